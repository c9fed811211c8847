import { sql } from 'kysely'
import { nullableNumber } from './account-rows.ts'
import type { Executor, RepositoryScope } from './executor.ts'

/**
 * Attempts at secrets, per subject and per address, shared by every instance. An attempt is
 * claimed before its secret is checked, by a statement that both checks the limit and counts the
 * attempt, so concurrent attempts on any number of instances never pass the limit together; a
 * right secret gives its attempt back, a wrong one leaves it counted.
 */
export interface SecretAttemptsRepository {
  /**
   * Claims an attempt of `subject`: false when it is locked at nowUs or `limit` attempts are
   * counted already. A lock that has ended starts the count again, at this attempt.
   */
  claim(subject: string, limit: number, nowUs: number): Promise<boolean>
  /** A claimed attempt whose secret was right: it no longer counts. */
  giveBack(subject: string): Promise<void>
  /**
   * A claimed attempt whose secret was wrong stays counted; once `limit` are counted the subject
   * is locked until lockUntilUs (a lock already running is kept). Returns the lock's end, or null.
   */
  fail(subject: string, limit: number, lockUntilUs: number): Promise<number | null>
  /** A whole sign-in: the count starts again from none. */
  clear(subject: string): Promise<void>
  /**
   * Claims an attempt from `address` in the window that starts at windowStartUs: false when
   * `limit` are counted in it already. A later window starts the count again; an earlier one (an
   * instance whose clock is behind) counts in the current one.
   */
  claimForAddress(address: string, windowStartUs: number, limit: number): Promise<boolean>
  /** Gives back an address's claimed attempt, when its window is still the current one. */
  giveBackForAddress(address: string, windowStartUs: number): Promise<void>
}

export function secretAttemptsRepository({ db }: RepositoryScope): SecretAttemptsRepository {
  return {
    claim: (subject, limit, nowUs) => claim(db, subject, limit, nowUs),
    async giveBack(subject) {
      await db
        .updateTable('secret_attempts')
        .set({ attempts: sql`attempts - 1` })
        .where('subject', '=', subject)
        .where('attempts', '>', 0)
        .execute()
    },
    async fail(subject, limit, lockUntilUs) {
      const reachesLock = sql<boolean>`attempts >= ${limit} and locked_until_us is null`
      const row = await db
        .updateTable('secret_attempts')
        .set({
          locked_until_us: sql`case when ${reachesLock} then ${lockUntilUs} else locked_until_us end`,
        })
        .where('subject', '=', subject)
        .returning('locked_until_us')
        .executeTakeFirst()
      return nullableNumber(row?.locked_until_us ?? null)
    },
    async clear(subject) {
      await db.updateTable('secret_attempts').set({ attempts: 0 }).where('subject', '=', subject).execute()
    },
    claimForAddress: (address, windowStartUs, limit) => claimForAddress(db, address, windowStartUs, limit),
    async giveBackForAddress(address, windowStartUs) {
      await db
        .updateTable('address_attempts')
        .set({ attempts: sql`attempts - 1` })
        .where('address', '=', address)
        .where('window_start_us', '=', windowStartUs)
        .where('attempts', '>', 0)
        .execute()
    },
  }
}

/**
 * One upsert: the row is counted only where its condition holds (not locked and under the limit,
 * or its lock over), and a row that was not counted returns nothing.
 */
async function claim(db: Executor, subject: string, limit: number, nowUs: number): Promise<boolean> {
  const lockOver = sql<boolean>`secret_attempts.locked_until_us is not null and secret_attempts.locked_until_us <= ${nowUs}`
  const row = await db
    .insertInto('secret_attempts')
    .values({ subject, attempts: 1, locked_until_us: null })
    .onConflict((conflict) =>
      conflict
        .column('subject')
        .doUpdateSet({
          attempts: sql`case when ${lockOver} then 1 else secret_attempts.attempts + 1 end`,
          locked_until_us: sql`case when ${lockOver} then null else secret_attempts.locked_until_us end`,
        })
        .where((where) =>
          where.or([
            where.and([
              where('secret_attempts.locked_until_us', 'is', null),
              where('secret_attempts.attempts', '<', limit),
            ]),
            where('secret_attempts.locked_until_us', '<=', nowUs),
          ]),
        ),
    )
    .returning('attempts')
    .executeTakeFirst()
  return row !== undefined
}

async function claimForAddress(
  db: Executor,
  address: string,
  windowStartUs: number,
  limit: number,
): Promise<boolean> {
  const newer = sql<boolean>`excluded.window_start_us > address_attempts.window_start_us`
  const row = await db
    .insertInto('address_attempts')
    .values({ address, window_start_us: windowStartUs, attempts: 1 })
    .onConflict((conflict) =>
      conflict
        .column('address')
        .doUpdateSet({
          attempts: sql`case when ${newer} then 1 else address_attempts.attempts + 1 end`,
          window_start_us: sql`case when ${newer} then excluded.window_start_us else address_attempts.window_start_us end`,
        })
        .where((where) =>
          where.or([
            where('address_attempts.window_start_us', '<', windowStartUs),
            where('address_attempts.attempts', '<', limit),
          ]),
        ),
    )
    .returning('attempts')
    .executeTakeFirst()
  return row !== undefined
}
