import type { Mode } from '../domain/kinds.ts'
import type { Page, PageRequest } from '../domain/pages.ts'
import type { BalanceView, LedgerEntry, TransactionFilters } from '../store/repositories/ledger.ts'
import type { AppContext } from './context.ts'
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
