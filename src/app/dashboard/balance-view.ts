import type { Mode } from '../../domain/kinds.ts'
import type { Page } from '../../domain/pages.ts'
import type { AppContext } from '../context.ts'
import type { Principal } from '../principal.ts'
import {
  type BalanceView,
  type LedgerEntry,
  listTransactions,
  openStatement,
  readBalances,
  type Statement,
  type TransactionFilters,
} from '../transactions.ts'
import { type Actor, audit } from './audit.ts'

export type { BalanceView, LedgerEntry, Statement }

export const movementsPerPage = 25

export interface BalancePageView {
  balances: BalanceView[]
  movements: Page<LedgerEntry>
  page: number
}

/**
 * The balance page's reads: posted, held and available per currency, and a page of movements,
 * newest first. The unfiltered list seeks on the merchant's dense ledger sequence (no offset
 * scan), so a page deep in millions of movements costs what the first one does.
 */
export async function balancePageOf(
  context: AppContext,
  principal: Principal,
  page: number,
): Promise<BalancePageView> {
  const [balances, movements] = await Promise.all([
    readBalances(context, principal.merchantId, principal.mode),
    listTransactions(context, principal, {}, { page, perPage: movementsPerPage }),
  ])
  return { balances, movements, page }
}

/**
 * The same CSV statement the API streams (`GET /api/v1/transaction?format=csv`), for a date
 * range; audited as `statement.exported` when opened. Throws the API's 429 when the merchant is
 * already streaming as many statements as it may.
 */
export async function exportStatement(
  context: AppContext,
  actor: Actor,
  principal: Principal,
  range: Pick<TransactionFilters, 'fromUs' | 'toUs'>,
): Promise<Statement> {
  const statement = openStatement(context, principal, range)
  const mode: Mode = principal.mode
  await audit(context, actor, {
    merchantId: principal.merchantId,
    mode,
    action: 'statement.exported',
    target: `${mode} statement`,
    after: {
      from: range.fromUs === undefined ? null : new Date(range.fromUs / 1000).toISOString(),
      to: range.toUs === undefined ? null : new Date(range.toUs / 1000).toISOString(),
    },
  }).catch((error: unknown) => {
    statement.close()
    throw error
  })
  return statement
}
