import { sql } from 'kysely'
import type { PageRequest } from '../../domain/pages.ts'
import type { Executor } from './executor.ts'

/**
 * A list filtered on status must give its true total and its page N without counting or skipping
 * every matching row, which grows with the list. Operations are therefore counted per status in
 * blocks of `statusBucketSize` list positions, in the same transaction as the insert or the
 * status change: the total is the sum of one list's blocks, and page N starts in the block where
 * the running count, newest first, passes (N - 1) * perPage; inside it, at most one block's rows
 * are skipped. The cost is one pass over the blocks (a thousand at a million operations) and one
 * short seek, whatever the page.
 */
export const statusBucketSize = 1024

export interface ListKey {
  merchantId: string
  mode: string
  kind: string
}

export interface StatusCountChange {
  status: string
  position: number
  delta: 1 | -1
}

/** Where a status-filtered page starts: below `top` (inclusive), after skipping `skip` matching rows. */
export interface StatusPageStart {
  total: number
  start: { top: number; skip: number } | undefined
}

/** Records operations entering (+1) or leaving (-1) a status, in one statement. */
export async function countStatusChanges(
  db: Executor,
  key: ListKey,
  changes: readonly StatusCountChange[],
): Promise<void> {
  // One order for every transaction, so two that change the same blocks cannot deadlock (PostgreSQL).
  const rows = changes
    .map((change) => ({
      merchant_id: key.merchantId,
      mode: key.mode,
      kind: key.kind,
      status: change.status,
      bucket: Math.floor(change.position / statusBucketSize),
      count: change.delta,
    }))
    .sort((a, b) => (a.status === b.status ? a.bucket - b.bucket : a.status < b.status ? -1 : 1))
  if (rows.length === 0) return
  await db
    .insertInto('status_buckets')
    .values(rows)
    .onConflict((conflict) =>
      conflict
        .columns(['merchant_id', 'mode', 'kind', 'status', 'bucket'])
        .doUpdateSet((eb) => ({ count: eb('status_buckets.count', '+', eb.ref('excluded.count')) })),
    )
    .execute()
}

/** Counts the operations seeded in bulk above `abovePosition` (benchmarks' seeding). */
export async function countSeededStatuses(db: Executor, key: ListKey, abovePosition: number): Promise<void> {
  await sql`
    insert into status_buckets (merchant_id, mode, kind, status, bucket, count)
    select merchant_id, mode, kind, status, position / ${sql.lit(statusBucketSize)}, count(*)
    from operations
    where merchant_id = ${key.merchantId} and mode = ${key.mode} and kind = ${key.kind}
      and position > ${abovePosition}
    group by merchant_id, mode, kind, status, position / ${sql.lit(statusBucketSize)}
    on conflict (merchant_id, mode, kind, status, bucket)
      do update set count = status_buckets.count + excluded.count
  `.execute(db)
}

export async function statusPageStart(
  db: Executor,
  key: ListKey,
  status: string,
  page: PageRequest,
): Promise<StatusPageStart> {
  const offset = (page.page - 1) * page.perPage
  const { rows } = await sql<{ bucket: number; before: number; total: number }>`
    select bucket, cumulative - count as before, total
    from (
      select bucket, count,
        cast(sum(count) over (order by bucket desc rows between unbounded preceding and current row) as bigint)
          as cumulative,
        cast(sum(count) over () as bigint) as total
      from status_buckets
      where merchant_id = ${key.merchantId} and mode = ${key.mode} and kind = ${key.kind}
        and status = ${status}
    ) as running
    where cumulative > ${offset}
    order by bucket desc
    limit 1
  `.execute(db)
  const found = rows[0]
  if (found)
    return {
      total: Number(found.total),
      start: { top: (Number(found.bucket) + 1) * statusBucketSize - 1, skip: offset - Number(found.before) },
    }
  // A page past the end: still the true total.
  const { rows: totals } = await sql<{ total: number | null }>`
    select cast(sum(count) as bigint) as total from status_buckets
    where merchant_id = ${key.merchantId} and mode = ${key.mode} and kind = ${key.kind}
      and status = ${status}
  `.execute(db)
  return { total: Number(totals[0]?.total ?? 0), start: undefined }
}
