import { type ExpressionBuilder, sql } from 'kysely'
import { durationBucketsMs, hourUs } from '../../domain/operator-hours.ts'
import type { Database } from '../schema.ts'
import type { Executor, RepositoryScope } from './executor.ts'

/**
 * The console overview's roll-up (0018-console-data.ts): counted from the operations by ranges of
 * their primary key, saved per connection and hour, read back whole for 30 days. Nothing in the
 * write path touches it.
 */
export interface OperatorHoursRepository {
  /** The live operations with ids in [fromId, toId) initiated at or after `fromUs`, counted per side's channel, country, hour, status and duration bucket. */
  countRange(range: IdRange): Promise<HourCount[]>
  /** Writes each row, replacing the row of the same hour, channel and country. */
  save(rows: readonly SavedHour[]): Promise<void>
  /** Every row of the hours starting at or after `fromUs`. */
  readSince(fromUs: number): Promise<SavedHour[]>
  /** The largest operation id, 0 when there is none. */
  largestId(): Promise<number>
  /** The roll-up's marks: hours before `finalBeforeUs` are counted for good; `rolledAtUs` is its last run. */
  marks(): Promise<RollUpMarks | undefined>
  setMarks(marks: RollUpMarks): Promise<void>
}

export interface IdRange {
  fromId: number
  toId: number
  fromUs: number
}

export interface HourCount {
  channel: string
  country: string
  hourUs: number
  status: string
  /** -1 while pending; otherwise the index in `durationBucketsMs` (its length: longer than all). */
  bucket: number
  count: number
}

export interface SavedHour {
  channel: string
  country: string
  hourUs: number
  operations: number
  succeeded: number
  ended: number
  endedByDuration: number[]
}

export interface RollUpMarks {
  finalBeforeUs: number
  rolledAtUs: number
}

const marksKey = 'operator_hours_marks'

export function operatorHoursRepository({ db }: RepositoryScope): OperatorHoursRepository {
  return {
    countRange: (range) => countRange(db, range),
    save: (rows) => save(db, rows),
    readSince: async (fromUs) =>
      (await db.selectFrom('operator_hours').selectAll().where('hour_us', '>=', fromUs).execute()).map(
        (row) => ({
          channel: row.channel,
          country: row.country,
          hourUs: Number(row.hour_us),
          operations: row.operations,
          succeeded: row.succeeded,
          ended: row.ended,
          endedByDuration: JSON.parse(row.ended_by_duration) as number[],
        }),
      ),
    largestId: async () =>
      Number(
        (
          await db
            .selectFrom('operations')
            .select((eb) => eb.fn.max('id').as('id'))
            .executeTakeFirst()
        )?.id ?? 0,
      ),
    marks: async () => {
      const row = await db
        .selectFrom('settings')
        .select('value')
        .where('key', '=', marksKey)
        .executeTakeFirst()
      return row ? (JSON.parse(row.value) as RollUpMarks) : undefined
    },
    setMarks: async (marks) => {
      const value = JSON.stringify(marks)
      await db
        .insertInto('settings')
        .values({ key: marksKey, value })
        .onConflict((conflict) => conflict.column('key').doUpdateSet({ value }))
        .execute()
    },
  }
}

/** The bucket of an ended operation's time to its final status, in SQL: -1 while pending. */
function bucketExpression(eb: ExpressionBuilder<Database, 'operations'>) {
  const durationMs = sql<number>`(completed_at_us - initiated_at_us) / 1000`
  let cases = eb.case().when('status', '=', sql.lit('pending')).then(sql.lit(-1))
  for (const [index, bound] of durationBucketsMs.entries())
    cases = cases.when(durationMs, '<=', sql.lit(bound)).then(sql.lit(index))
  return cases.else(sql.lit(durationBucketsMs.length)).end()
}

async function countRange(db: Executor, { fromId, toId, fromUs }: IdRange): Promise<HourCount[]> {
  const bySide = (channel: 'channel' | 'to_channel', country: 'country' | 'to_country') =>
    db
      .selectFrom('operations')
      .select((eb) => [
        eb.ref(channel).as('channel'),
        eb.ref(country).as('country'),
        sql<number>`initiated_at_us / ${sql.lit(hourUs)}`.as('hour'),
        'status',
        bucketExpression(eb).as('bucket'),
        eb.fn.countAll<number>().as('count'),
      ])
      .where('id', '>=', fromId)
      .where('id', '<', toId)
      .where('mode', '=', sql.lit('live'))
      .where('initiated_at_us', '>=', fromUs)
      .where(channel, 'is not', null)
      // By the five columns' positions: the hour and the bucket are expressions.
      .groupBy([sql.lit(1), sql.lit(2), sql.lit(3), sql.lit(4), sql.lit(5)])
      .execute()
  const rows = [...(await bySide('channel', 'country')), ...(await bySide('to_channel', 'to_country'))]
  return rows.map((row) => ({
    channel: String(row.channel),
    country: String(row.country),
    hourUs: Number(row.hour) * hourUs,
    status: row.status,
    bucket: Number(row.bucket),
    count: Number(row.count),
  }))
}

async function save(db: Executor, rows: readonly SavedHour[]): Promise<void> {
  for (let start = 0; start < rows.length; start += 200) {
    const values = rows.slice(start, start + 200).map((row) => ({
      channel: row.channel,
      country: row.country,
      hour_us: row.hourUs,
      operations: row.operations,
      succeeded: row.succeeded,
      ended: row.ended,
      ended_by_duration: JSON.stringify(row.endedByDuration),
    }))
    await db
      .insertInto('operator_hours')
      .values(values)
      .onConflict((conflict) =>
        conflict.columns(['hour_us', 'channel', 'country']).doUpdateSet((eb) => ({
          operations: eb.ref('excluded.operations'),
          succeeded: eb.ref('excluded.succeeded'),
          ended: eb.ref('excluded.ended'),
          ended_by_duration: eb.ref('excluded.ended_by_duration'),
        })),
      )
      .execute()
  }
}
