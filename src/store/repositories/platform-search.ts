import type { Selectable } from 'kysely'
import { type Mode, operationKindNames } from '../../domain/kinds.ts'
import type { Operation } from '../../domain/operation.ts'
import type { OperationsTable } from '../schema.ts'
import type { Executor, RepositoryScope } from './executor.ts'
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
   * at most `scanLimit` rows of the primary key, the filter checked on each here; stops early once
   * `keep` has taken `limit` rows, or the rows are older than `olderThanUs`.
   */
  scanNewest(request: NewestScan): Promise<NewestScanPage>
  /** The largest id of an operation initiated before `beforeUs` (operations' ids follow their dates). */
  lastIdBefore(beforeUs: number): Promise<number | undefined>
}

export interface NewestScan {
  beforeId: number | undefined
  limit: number
  scanLimit: number
  /** Stop once rows were initiated before this (their dates follow their ids within seconds). */
  stopBeforeUs: number | undefined
  keep(operation: Operation): boolean
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

/** Reads are chunked so a page that keeps few rows still returns to the event loop between chunks. */
const scanChunk = 500

async function scanNewest(db: Executor, request: NewestScan): Promise<NewestScanPage> {
  const items: Operation[] = []
  let below = request.beforeId
  let scanned = 0
  while (scanned < request.scanLimit) {
    let query = db.selectFrom('operations').selectAll()
    if (below !== undefined) query = query.where('id', '<', below)
    const rows = await query
      .orderBy('id', 'desc')
      .limit(Math.min(scanChunk, request.scanLimit - scanned))
      .execute()
    for (const row of rows) {
      below = Number(row.id)
      scanned++
      if (request.stopBeforeUs !== undefined && Number(row.initiated_at_us) < request.stopBeforeUs)
        return { items, nextBeforeId: undefined }
      const operation = toOperation(row)
      if (!request.keep(operation)) continue
      items.push(operation)
      if (items.length === request.limit) return { items, nextBeforeId: below }
    }
    if (rows.length < scanChunk) return { items, nextBeforeId: undefined }
  }
  return { items, nextBeforeId: below }
}

/**
 * A binary search on the primary key: about 20 seeks for a million operations. Ids are given in
 * the order operations are written, a few milliseconds after their initiation's date, so the id
 * found is the last written before the instant, give or take the operations of those milliseconds.
 */
async function lastIdBefore(db: Executor, beforeUs: number): Promise<number | undefined> {
  const bounds = await db
    .selectFrom('operations')
    .select((eb) => [eb.fn.min('id').as('low'), eb.fn.max('id').as('high')])
    .executeTakeFirst()
  if (!bounds || bounds.low === null || bounds.high === null) return undefined
  let low = Number(bounds.low)
  let high = Number(bounds.high)
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
