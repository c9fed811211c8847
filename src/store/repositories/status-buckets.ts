import { type Insertable, sql } from 'kysely'
import type { PageRequest } from '../../domain/pages.ts'
import type { StatusBucketsTable } from '../schema.ts'
import type { Executor } from './executor.ts'
import { statementTemplate } from './statement-template.ts'

/**
 * A list filtered on status must give its true total and its page N without counting or skipping
 * every matching row, which grows with the list. Operations are therefore counted per status in
 * blocks of list positions, at two sizes (`statusBlockSizes`: level 0 and level 1), in the same
 * transaction as the insert or the status change. The total is the sum of the list's large
 * blocks; page N starts in the large block where the running count, newest first, passes
 * (N - 1) * perPage, then in the small block inside it where it does, and skips at most one small
 * block's rows there. A request reads a few dozen counts (16 large blocks and at most 64 small
 * ones at a million operations) and makes one short seek, whatever the page and the list's size.
 */
export const statusBlockSizes = [1024, 65_536] as const
const smallPerLarge = statusBlockSizes[1] / statusBlockSizes[0]

export interface ListKey {
  merchantId: string
  mode: string
  kind: string
}

export interface StatusCountChange {
  status: string
  position: number
  delta: number
}

/**
 * Where a status-filtered page starts: below `top` (inclusive), after skipping `skip` matching rows;
 * `start` is undefined for a page past the end.
 */
export interface StatusPageStart {
  total: number
  start: { top: number; skip: number } | undefined
}

/** Records operations entering (+1) or leaving (-1) a status, at both levels, in one statement. */
export async function countStatusChanges(
  db: Executor,
  key: ListKey,
  changes: readonly StatusCountChange[],
): Promise<void> {
  // One row per block, however many changes fall in it (a payout batch's items): an upsert may
  // change a row once.
  const blocks = new Map<string, BucketRow & { count: number }>()
  for (const change of changes)
    for (const [level, size] of statusBlockSizes.entries()) {
      const bucket = Math.floor(change.position / size)
      const block = blocks.get(`${change.status}/${level}/${bucket}`)
      if (block) block.count += change.delta
      else
        blocks.set(`${change.status}/${level}/${bucket}`, {
          merchant_id: key.merchantId,
          mode: key.mode,
          kind: key.kind,
          status: change.status,
          level,
          bucket,
          count: change.delta,
        })
    }
  const rows = [...blocks.values()].filter((row) => row.count !== 0)
  // One order for every transaction, so two that change the same blocks cannot deadlock (PostgreSQL).
  rows.sort((a, b) =>
    a.status !== b.status ? (a.status < b.status ? -1 : 1) : a.level - b.level || a.bucket - b.bucket,
  )
  if (rows.length === 0) return
  await addToCounts(db, { rows })
}

type BucketRow = Insertable<StatusBucketsTable>

const addToCounts = statementTemplate(
  (db, change: { rows: BucketRow[] }) =>
    db
      .insertInto('status_buckets')
      .values(change.rows)
      .onConflict((conflict) =>
        conflict
          .columns(['merchant_id', 'mode', 'kind', 'status', 'level', 'bucket'])
          .doUpdateSet((eb) => ({ count: eb('status_buckets.count', '+', eb.ref('excluded.count')) })),
      ),
  { writeOnly: 'status_buckets' },
)

/** Counts the operations above `abovePosition`, at both levels (a migration's fill, the bench's bulk seeding). */
export async function countExistingStatuses(
  db: Executor,
  key: ListKey | undefined,
  abovePosition = 0,
): Promise<void> {
  const ofList = key
    ? sql`and merchant_id = ${key.merchantId} and mode = ${key.mode} and kind = ${key.kind}`
    : sql``
  for (const [level, size] of statusBlockSizes.entries()) {
    await sql`
      insert into status_buckets (merchant_id, mode, kind, status, level, bucket, count)
      select merchant_id, mode, kind, status, ${sql.lit(level)}, position / ${sql.lit(size)}, count(*)
      from operations
      where position > ${abovePosition} ${ofList}
      group by merchant_id, mode, kind, status, position / ${sql.lit(size)}
      on conflict (merchant_id, mode, kind, status, level, bucket)
        do update set count = status_buckets.count + excluded.count
    `.execute(db)
  }
}

/**
 * Undefined when the two reads disagree: outside a transaction, a status change committed between
 * them can leave the large block's count above what its small blocks now hold (a pending list
 * shrinking under load). The caller then counts the rows instead, once.
 */
export async function statusPageStart(
  db: Executor,
  key: ListKey,
  status: string,
  page: PageRequest,
): Promise<StatusPageStart | undefined> {
  const offset = (page.page - 1) * page.perPage
  const large = await blockWhereCountPasses(db, key, status, 1, offset, undefined)
  if (!large) return { total: await totalOf(db, key, status), start: undefined }
  const first = large.bucket * smallPerLarge
  const inLarge = offset - large.before
  const small = await blockWhereCountPasses(db, key, status, 0, inLarge, [first, first + smallPerLarge - 1])
  if (!small) return undefined
  return {
    total: large.total,
    start: { top: (small.bucket + 1) * statusBlockSizes[0] - 1, skip: inLarge - small.before },
  }
}

interface BlockFound {
  bucket: number
  /** Matching operations in the newer blocks of the same range. */
  before: number
  /** Matching operations in every block read. */
  total: number
}

/** Newest first, the block of `level` (within `range`) where the running count exceeds `offset`. */
async function blockWhereCountPasses(
  db: Executor,
  key: ListKey,
  status: string,
  level: 0 | 1,
  offset: number,
  range: [number, number] | undefined,
): Promise<BlockFound | undefined> {
  const inRange = range ? sql`and bucket between ${range[0]} and ${range[1]}` : sql``
  const { rows } = await sql<{ bucket: number; before: number; total: number }>`
    select bucket, cumulative - count as before, total
    from (
      select bucket, count,
        cast(sum(count) over (order by bucket desc rows between unbounded preceding and current row) as bigint)
          as cumulative,
        cast(sum(count) over () as bigint) as total
      from status_buckets
      where merchant_id = ${key.merchantId} and mode = ${key.mode} and kind = ${key.kind}
        and status = ${status} and level = ${level} ${inRange}
    ) as running
    where cumulative > ${offset}
    order by bucket desc
    limit 1
  `.execute(db)
  const found = rows[0]
  return found && { bucket: Number(found.bucket), before: Number(found.before), total: Number(found.total) }
}

/** A page past the end: still the true total. */
async function totalOf(db: Executor, key: ListKey, status: string): Promise<number> {
  const { rows } = await sql<{ total: number | null }>`
    select cast(sum(count) as bigint) as total from status_buckets
    where merchant_id = ${key.merchantId} and mode = ${key.mode} and kind = ${key.kind}
      and status = ${status} and level = 1
  `.execute(db)
  return Number(rows[0]?.total ?? 0)
}
