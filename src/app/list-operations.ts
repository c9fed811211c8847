import type { SelectQueryBuilder } from 'kysely'
import type { Mode, OperationKind } from '../domain/kinds.ts'
import type { Status } from '../domain/status.ts'
import type { Database } from '../store/schema.ts'
import type { Executor } from '../store/store.ts'
import { type Operation, toOperation } from './operation-rows.ts'

export interface PageRequest {
  page: number
  perPage: number
}

export interface Page<T> {
  items: T[]
  total: number
}

export interface OperationFilters {
  status?: Status
  merchantReference?: string
  phoneNumber?: string
  channel?: string
  country?: string
  fromMicros?: number
  toMicros?: number
}

/**
 * Newest first. Without filters, the total is the kind's counter and page N is a range seek
 * on the dense `position` (position <= total - (N-1) * perPage): the cost is the same on
 * page 1 and page 10,000, with ten rows or a million. Filtered lists count and skip through
 * the matching index entries instead.
 */
export async function listOperations(
  db: Executor,
  merchantId: string,
  mode: Mode,
  kind: OperationKind,
  filters: OperationFilters,
  page: PageRequest,
): Promise<Page<Operation>> {
  const base = db
    .selectFrom('operations')
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', mode)
    .where('kind', '=', kind)
  if (Object.values(filters).every((value) => value === undefined)) {
    const total = await counterValue(db, merchantId, mode, kind)
    const top = total - (page.page - 1) * page.perPage
    if (top <= 0) return { items: [], total }
    const rows = await base
      .selectAll()
      .where('position', '<=', top)
      .orderBy('position', 'desc')
      .limit(page.perPage)
      .execute()
    return { items: rows.map(toOperation), total }
  }
  const filtered = applyFilters(base, filters)
  const [counted, rows] = await Promise.all([
    filtered.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    filtered
      .selectAll()
      .orderBy('position', 'desc')
      .limit(page.perPage)
      .offset((page.page - 1) * page.perPage)
      .execute(),
  ])
  return { items: rows.map(toOperation), total: Number(counted.total) }
}

function applyFilters<O>(
  query: SelectQueryBuilder<Database, 'operations', O>,
  filters: OperationFilters,
): SelectQueryBuilder<Database, 'operations', O> {
  let filtered = query
  if (filters.status) filtered = filtered.where('status', '=', filters.status)
  if (filters.merchantReference)
    filtered = filtered.where('merchant_reference', '=', filters.merchantReference)
  if (filters.phoneNumber) {
    const phone = filters.phoneNumber
    filtered = filtered.where((eb) =>
      eb.or([eb('phone_number', '=', phone), eb('to_phone_number', '=', phone)]),
    )
  }
  if (filters.channel) {
    const channel = filters.channel
    filtered = filtered.where((eb) => eb.or([eb('channel', '=', channel), eb('to_channel', '=', channel)]))
  }
  if (filters.country) {
    const country = filters.country
    filtered = filtered.where((eb) => eb.or([eb('country', '=', country), eb('to_country', '=', country)]))
  }
  if (filters.fromMicros !== undefined) filtered = filtered.where('initiated_at_us', '>=', filters.fromMicros)
  if (filters.toMicros !== undefined) filtered = filtered.where('initiated_at_us', '<', filters.toMicros)
  return filtered
}

export async function counterValue(
  db: Executor,
  merchantId: string,
  mode: Mode,
  name: string,
): Promise<number> {
  const row = await db
    .selectFrom('counters')
    .select('value')
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', mode)
    .where('name', '=', name)
    .executeTakeFirst()
  return row?.value ?? 0
}
