import { type Selectable, sql } from 'kysely'
import { type Mode, operationKindNames } from '../../domain/kinds.ts'
import type { Operation } from '../../domain/operation.ts'
import type { OperationsTable } from '../schema.ts'
import type { Executor, RepositoryScope } from './executor.ts'
import { applyListFilters, type OperationListFilter } from './operation-search.ts'
import { toOperation } from './operations.ts'

/**
 * The platform console's search of operations across every merchant, through the dashboard's
 * indexes, none of them added for it. A phone number and a merchantReference are found through
 * the per-merchant indexes the dashboard's search box uses (operations_by_phone,
 * operations_by_to_phone, operations_reference_once), one seek per merchant
 * (`merchant_id in (select id from merchants)`); a token through its unique index and an operator
 * reference through operator_references' primary key, each one seek. A list without a merchant
 * reads the primary key backwards (the order operations were recorded in), a bounded number of
 * rows a page.
 */
export interface PlatformSearchRepository {
  /** Operations of any merchant where either side's customer has this number, newest first. */
  findByPhone(mode: Mode, e164: string, limit: number): Promise<Operation[]>
  /** Operations of any merchant whose merchantReference, token or an operator reference is `text`. */
  findByReference(mode: Mode, text: string, limit: number): Promise<Operation[]>
  /**
   * Operations of every merchant below `beforeId` (all when undefined), newest recorded first:
   * one range of at most `scanLimit` ids of the primary key, the filters checked on each row by
   * the database, at most `limit` rows given back.
   */
  scanNewest(request: NewestScan): Promise<NewestScanPage>
  /** The largest id of an operation initiated before `beforeUs` (operations' ids follow their dates). */
  lastIdBefore(beforeUs: number): Promise<number | undefined>
}

export interface NewestScan {
  beforeId: number | undefined
  mode: Mode
  /** The dashboard list's filters, checked on each row of the range. */
  filter: Omit<OperationListFilter, 'limit' | 'after'>
  limit: number
  /** How many ids below `beforeId` one page reads at most. */
  scanLimit: number
}

export interface NewestScanPage {
  items: Operation[]
  /** Where the scan stopped when it could go on: the id to read below next; undefined at the end. */
  nextBeforeId: number | undefined
}

export function platformSearchRepository({ db }: RepositoryScope): PlatformSearchRepository {
  return {
    findByPhone: (mode, e164, limit) => findByPhone(db, mode, e164, limit),
    findByReference: (mode, text, limit) => findByReference(db, mode, text, limit),
    scanNewest: (request) => scanNewest(db, request),
    lastIdBefore: (beforeUs) => lastIdBefore(db, beforeUs),
  }
}

const everyMerchant = (db: Executor) => db.selectFrom('merchants').select('merchants.id')

async function findByPhone(db: Executor, mode: Mode, e164: string, limit: number) {
  const newest = (column: 'phone_number' | 'to_phone_number') =>
    db
      .selectFrom('operations')
      .selectAll()
      .where('merchant_id', 'in', everyMerchant(db))
      .where('mode', '=', mode)
      .where(column, '=', e164)
      .orderBy('initiated_at_us', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute()
  return newestFirst([...(await newest('phone_number')), ...(await newest('to_phone_number'))], limit)
}

async function findByReference(db: Executor, mode: Mode, text: string, limit: number) {
  const byReference = await db
    .selectFrom('operations')
    .selectAll()
    .where('merchant_id', 'in', everyMerchant(db))
    .where('mode', '=', mode)
    .where('kind', 'in', operationKindNames)
    .where('merchant_reference', '=', text)
    .limit(limit)
    .execute()
  const byToken = await db
    .selectFrom('operations')
    .selectAll()
    .where('token', '=', text)
    .where('mode', '=', mode)
    .execute()
  const byOperatorReference = await db
    .selectFrom('operator_references')
    .innerJoin('operations', 'operations.id', 'operator_references.operation_id')
    .selectAll('operations')
    .where('operator_references.reference', '=', text)
    .where('operations.mode', '=', mode)
    .execute()
  return newestFirst([...byReference, ...byToken, ...byOperatorReference], limit)
}

async function scanNewest(db: Executor, request: NewestScan): Promise<NewestScanPage> {
  const top =
    request.beforeId ??
    Number(
      (
        await db
          .selectFrom('operations')
          .select((eb) => eb.fn.max('id').as('top'))
          .executeTakeFirst()
      )?.top ?? 0,
    ) + 1
  const floor = Math.max(0, top - request.scanLimit)
  const { fromUs, toUs, ...columns } = request.filter
  let range = db
    .selectFrom('operations')
    .selectAll()
    .where('id', '<', top)
    .where('id', '>=', floor)
    .where('mode', '=', request.mode)
  // The dates as an expression, not the column: SQLite's planner, with statistics, would otherwise
  // read them through a skip scan of operations_by_merchant_date, a seek per merchant over half
  // the history, instead of this range of the primary key.
  if (fromUs !== undefined) range = range.where(sql<number>`initiated_at_us + 0`, '>=', fromUs)
  if (toUs !== undefined) range = range.where(sql<number>`initiated_at_us + 0`, '<', toUs)
  const rows = await applyListFilters(range, { ...columns, limit: request.limit })
    .orderBy('id', 'desc')
    .limit(request.limit)
    .execute()
  const items = rows.map(toOperation)
  if (items.length === request.limit) return { items, nextBeforeId: items.at(-1)!.id }
  const below = await db
    .selectFrom('operations')
    .select('initiated_at_us')
    .where('id', '<', floor)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst()
  const ended = !below || (fromUs !== undefined && Number(below.initiated_at_us) < fromUs - idDateSlackUs)
  return { items, nextBeforeId: ended ? undefined : floor }
}

/** Operations' ids follow their dates within this: a date turned into an id is widened by it. */
export const idDateSlackUs = 60_000_000

/**
 * A binary search on the primary key: about 20 seeks for a million operations. Ids are given in
 * the order operations are written, a few milliseconds after their initiation's date, so the id
 * found is the last written before the instant, give or take the operations of those milliseconds.
 */
async function lastIdBefore(db: Executor, beforeUs: number): Promise<number | undefined> {
  // Two reads, not min() and max() in one: SQLite answers a lone min() or max() from the index's
  // end, but scans the whole table for both together.
  const edge = (direction: 'asc' | 'desc') =>
    db.selectFrom('operations').select('id').orderBy('id', direction).limit(1).executeTakeFirst()
  const [lowest, highest] = [await edge('asc'), await edge('desc')]
  if (!lowest || !highest) return undefined
  let low = Number(lowest.id)
  let high = Number(highest.id)
  const dateAtOrAbove = async (id: number) =>
    db
      .selectFrom('operations')
      .select(['id', 'initiated_at_us'])
      .where('id', '>=', id)
      .orderBy('id')
      .limit(1)
      .executeTakeFirst()
  if (Number((await dateAtOrAbove(low))?.initiated_at_us) >= beforeUs) return undefined
  // Invariant: the operation at `low` was initiated before `beforeUs`.
  while (low < high) {
    const middle = Math.floor((low + high + 1) / 2)
    const row = await dateAtOrAbove(middle)
    if (row && Number(row.initiated_at_us) < beforeUs) low = Number(row.id)
    else high = middle - 1
  }
  return low
}

function newestFirst(rows: Selectable<OperationsTable>[], limit: number): Operation[] {
  const unique = new Map(rows.map((row) => [Number(row.id), row]))
  return [...unique.values()]
    .sort((a, b) => Number(b.initiated_at_us) - Number(a.initiated_at_us) || Number(b.id) - Number(a.id))
    .slice(0, limit)
    .map(toOperation)
}
