import type { Mode } from '../domain/kinds.ts'
import type { Page, PageRequest } from '../domain/pages.ts'
import type { BalanceView, LedgerEntry, TransactionFilters } from '../store/repositories/ledger.ts'
import type { AppContext } from './context.ts'
import { type LongExport, openLongExport } from './mechanisms/long-exports.ts'
import type { Principal } from './principal.ts'

export type { BalanceView, LedgerEntry, TransactionFilters }

/** The merchant's balance movements in the calling mode, newest first. */
export function listTransactions(
  context: AppContext,
  principal: Principal,
  filters: TransactionFilters,
  page: PageRequest,
): Promise<Page<LedgerEntry>> {
  return context.store.ledger.list(principal.merchantId, principal.mode, filters, page)
}

/** Posted, held and available, per currency, in one mode or both. */
export function readBalances(context: AppContext, merchantId: string, mode?: Mode): Promise<BalanceView[]> {
  return context.store.ledger.balances(merchantId, mode)
}

/**
 * Rows read per statement batch: a batch holds the event loop (SQLite's query, and the rows
 * written out as text) for a few milliseconds, which is what a request may wait behind a statement.
 */
const statementBatchSize = 250

/** A CSV statement being streamed: its text, one batch of movements at a time, until `close()`. */
export type Statement = LongExport<LedgerEntry>

/**
 * Every movement the filters select, newest first, for a CSV statement of any length. Refused
 * (429) when the merchant is already streaming as many statements and exports in this mode as it
 * may; each batch is read and written out in its turn with the other long work (`openLongExport`).
 */
export function openStatement(
  context: AppContext,
  principal: Principal,
  filters: TransactionFilters,
): Statement {
  const owner = { merchantId: principal.merchantId, mode: principal.mode }
  return openLongExport(context, owner, () =>
    context.store.ledger
      .scan(principal.merchantId, principal.mode, filters, statementBatchSize)
      [Symbol.asyncIterator](),
  )
}

/** GET /api/v1/balance: each currency of the catalogue in the calling mode, at zero where nothing moved yet. */
export async function balancesOf(context: AppContext, principal: Principal): Promise<BalanceView[]> {
  const [held, routes] = await Promise.all([
    context.store.ledger.balances(principal.merchantId, principal.mode),
    context.store.catalogue.listRoutes(),
  ])
  const byCurrency = new Map(held.map((balance) => [balance.currency, balance]))
  for (const route of routes) {
    if (byCurrency.has(route.currency)) continue
    byCurrency.set(route.currency, {
      mode: principal.mode,
      currency: route.currency,
      postedMinor: 0,
      heldMinor: 0,
      availableMinor: 0,
    })
  }
  return [...byCurrency.values()].sort((a, b) => (a.currency < b.currency ? -1 : 1))
}
