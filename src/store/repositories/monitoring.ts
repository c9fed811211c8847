import type BetterSqlite3 from 'better-sqlite3'
import { sql } from 'kysely'
import type pg from 'pg'
import type { RepositoryScope } from './executor.ts'

/**
 * What /metrics reads from the store at scrape time. Every query reads only rows that are still
 * to do, through the partial indexes the workers' own claims use (`events_due`: pending events;
 * `scheduled_work_due`: work not done), so a scrape costs the size of the backlog, never of the
 * history.
 */
export interface Backlog {
  outbox: {
    /** Events not delivered yet (pending: due now, or waiting for a retry). */
    undelivered: number
    /** Of those, the ones due now. */
    due: number
    /** Creation time of the oldest undelivered event, or null when there is none. */
    oldestCreatedAtUs: number | null
  }
  /** Work not done yet, by its kind (submit, poll, expire). */
  scheduledWork: { kind: string; open: number; due: number }[]
  /** When the earliest work not done yet was due, or null when there is none. */
  oldestScheduledDueAtUs: number | null
}

/** The database connections, as the driver sees them at this moment. */
export interface ConnectionUse {
  /** How many connections the store opens at most. */
  max: number
  /** Open now. */
  open: number
  /** Open and held by a request or a worker. */
  busy: number
  /** Requests waiting for a connection; undefined where the driver does not say (SQLite). */
  waiting: number | undefined
}

export interface MonitoringRepository {
  backlog(nowUs: number): Promise<Backlog>
  connections(): ConnectionUse
}

export function monitoringRepository(scope: RepositoryScope): MonitoringRepository {
  return {
    backlog: (nowUs) => readBacklog(scope, nowUs),
    connections: () => connectionUse(scope),
  }
}

async function readBacklog({ db }: RepositoryScope, nowUs: number): Promise<Backlog> {
  const [outbox, work, oldestWork] = await Promise.all([
    // The literal 'pending' (not a parameter) lets SQLite prove that the partial index applies.
    db
      .selectFrom('events')
      .where('delivery_status', '=', sql.lit('pending'))
      .select((eb) => [
        eb.fn.countAll<number | string>().as('undelivered'),
        eb.fn
          .sum<number | string | null>(
            eb.case().when('next_attempt_at_us', '<=', nowUs).then(eb.lit(1)).else(eb.lit(0)).end(),
          )
          .as('due'),
        eb.fn.min<number | string | null>('created_at_us').as('oldest'),
      ])
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('scheduled_work')
      .where('done_at_us', 'is', null)
      .groupBy('kind')
      .select((eb) => [
        'kind',
        eb.fn.countAll<number | string>().as('open'),
        eb.fn
          .sum<number | string | null>(
            eb.case().when('due_at_us', '<=', nowUs).then(eb.lit(1)).else(eb.lit(0)).end(),
          )
          .as('due'),
      ])
      .execute(),
    db
      .selectFrom('scheduled_work')
      .where('done_at_us', 'is', null)
      .select((eb) => eb.fn.min<number | string | null>('due_at_us').as('oldest'))
      .executeTakeFirstOrThrow(),
  ])
  return {
    outbox: {
      undelivered: Number(outbox.undelivered),
      due: Number(outbox.due ?? 0),
      oldestCreatedAtUs: outbox.oldest === null ? null : Number(outbox.oldest),
    },
    scheduledWork: work.map((row) => ({ kind: row.kind, open: Number(row.open), due: Number(row.due ?? 0) })),
    oldestScheduledDueAtUs: oldestWork.oldest === null ? null : Number(oldestWork.oldest),
  }
}

/** The request pool's size (src/store/dialect.ts); the one SQLite connection otherwise. */
const postgresPoolMax = 20

/**
 * Read from the driver objects the dialect holds (GuardedPostgresDialect's pool, GuardedSqliteDialect's
 * database), as nothing else in the store exposes them yet; an unknown shape reads as unknown.
 */
function connectionUse({ dialect }: RepositoryScope): ConnectionUse {
  const held = dialect.kyselyDialect as unknown as { pool?: pg.Pool; database?: BetterSqlite3.Database }
  if (dialect.name === 'postgres') {
    const pool = held.pool
    if (!pool || typeof pool.totalCount !== 'number')
      return { max: postgresPoolMax, open: 0, busy: 0, waiting: undefined }
    return {
      max: pool.options?.max ?? postgresPoolMax,
      open: pool.totalCount,
      busy: pool.totalCount - pool.idleCount,
      waiting: pool.waitingCount,
    }
  }
  // One connection, taken in turns; it is busy while a transaction holds it.
  const open = held.database?.open ? 1 : 0
  return { max: 1, open, busy: held.database?.inTransaction ? 1 : 0, waiting: undefined }
}
