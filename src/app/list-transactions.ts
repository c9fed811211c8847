import type { Selectable } from 'kysely'
import type { Mode } from '../domain/kinds.ts'
import type { LedgerEntriesTable } from '../store/schema.ts'
import type { Executor } from '../store/store.ts'
import { counterValue, isUnfiltered, type Page, type PageRequest, seekPage } from './pages.ts'

export interface TransactionFilters {
  type?: 'cash-in' | 'cash-out' | 'reversal'
  operation?: string
  status?: 'pending' | 'succeeded' | 'canceled'
  fromMicros?: number
  toMicros?: number
}

export type LedgerEntry = Selectable<LedgerEntriesTable> & { token: string }

/** The merchant's balance movements, newest first; unfiltered pages seek on the dense sequence. */
export async function listTransactions(
  db: Executor,
  merchantId: string,
  mode: Mode,
  filters: TransactionFilters,
  page: PageRequest,
): Promise<Page<LedgerEntry>> {
  let query = db
    .selectFrom('ledger_entries')
    .innerJoin('operations', 'operations.id', 'ledger_entries.operation_id')
    .where('ledger_entries.merchant_id', '=', merchantId)
    .where('ledger_entries.mode', '=', mode)
  if (isUnfiltered(filters)) {
    const total = await counterValue(db, merchantId, mode, 'ledger')
    return seekPage(total, page, (top, limit) =>
      query
        .selectAll('ledger_entries')
        .select('operations.token')
        .where('ledger_entries.sequence', '<=', top)
        .orderBy('ledger_entries.sequence', 'desc')
        .limit(limit)
        .execute(),
    )
  }
  if (filters.type) query = query.where('ledger_entries.type', '=', filters.type)
  if (filters.operation) query = query.where('ledger_entries.operation_kind', '=', filters.operation)
  if (filters.status) query = query.where('ledger_entries.status', '=', filters.status)
  if (filters.fromMicros !== undefined)
    query = query.where('ledger_entries.created_at_us', '>=', filters.fromMicros)
  if (filters.toMicros !== undefined)
    query = query.where('ledger_entries.created_at_us', '<', filters.toMicros)
  const [counted, items] = await Promise.all([
    query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    query
      .selectAll('ledger_entries')
      .select('operations.token')
      .orderBy('ledger_entries.sequence', 'desc')
      .limit(page.perPage)
      .offset((page.page - 1) * page.perPage)
      .execute(),
  ])
  return { items, total: Number(counted.total) }
}
