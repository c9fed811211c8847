import type { SelectQueryBuilder } from 'kysely'
import type { Mode, OperationKind } from '../domain/kinds.ts'
import type { Status } from '../domain/status.ts'
import type { Database } from '../store/schema.ts'
import type { Executor } from '../store/store.ts'
import { type Operation, toOperation } from './operation-rows.ts'
import { counterValue, isUnfiltered, type Page, type PageRequest, seekPage } from './pages.ts'

export type { Page, PageRequest }

export interface OperationFilters {
  status?: Status
  merchantReference?: string
  phoneNumber?: string
  channel?: string
  country?: string
  fromMicros?: number
  toMicros?: number
}

/** Newest first: unfiltered pages seek on the dense position (pages.ts); filtered lists count and skip through their index. */
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
  if (isUnfiltered(filters)) {
    const total = await counterValue(db, merchantId, mode, kind)
    const seek = await seekPage(total, page, (top, limit) =>
      base.selectAll().where('position', '<=', top).orderBy('position', 'desc').limit(limit).execute(),
    )
    return { items: seek.items.map(toOperation), total }
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
