import type { Mode } from '../../domain/kinds.ts'
import { currencies } from '../../domain/money.ts'
import {
  isOpeningBalance,
  openingBalanceKind,
  openingBalanceReference,
} from '../../domain/opening-balances.ts'
import type { Operation } from '../../domain/operation.ts'
import type { BalanceView } from '../../store/repositories/ledger.ts'
import type { OperationCounts } from '../../store/repositories/operation-search.ts'
import type { AppContext } from '../context.ts'

export interface Overview {
  balances: BalanceView[]
  /** The sandbox's opening balances, shown as such and counted apart from today's operations. */
  openingBalances: Operation[]
  /** Today's operations (since midnight UTC) per kind and status, and what they moved. */
  today: OperationCounts
  latest: Operation[]
}

const dayUs = 86_400_000_000

/**
 * The home page's reads: the balances, today's counts and amounts, the latest operations. Today's
 * counts add up every operation and posting of the day, as many as a busy merchant makes: a long
 * read, taken in its turn with the process's other long work (`LongWorkTurns`).
 */
export async function overviewOf(context: AppContext, merchantId: string, mode: Mode): Promise<Overview> {
  const nowUs = context.clock.nowUs()
  const sinceUs = nowUs - (nowUs % dayUs)
  const { ledger, operationSearch } = context.store
  const [balances, today, latest, openingBalances] = await Promise.all([
    ledger.balances(merchantId, mode),
    context.longWork.run({ merchantId, mode }, () => operationSearch.countsSince(merchantId, mode, sinceUs)),
    operationSearch.list(merchantId, mode, { limit: 10 }).then((page) => page.items),
    openingBalancesOf(context, merchantId, mode),
  ])
  const openedToday = openingBalances.filter((operation) => operation.initiatedAtUs >= sinceUs)
  return { balances, openingBalances, today: withoutOpenings(today, openedToday), latest }
}

/** A point read per currency through the (merchant, mode, kind, reference) index; none in live mode. */
async function openingBalancesOf(context: AppContext, merchantId: string, mode: Mode): Promise<Operation[]> {
  if (mode !== 'sandbox') return []
  const found = await Promise.all(
    Object.keys(currencies).map((currency) =>
      context.store.operations.findByReference(
        merchantId,
        mode,
        openingBalanceKind,
        openingBalanceReference(currency),
      ),
    ),
  )
  return found.filter(
    (operation): operation is Operation => operation !== undefined && isOpeningBalance(operation),
  )
}

/** Today's counts less the opening balances made today: a recharge each, succeeded, and its cash-in. */
function withoutOpenings(today: OperationCounts, openings: readonly Operation[]): OperationCounts {
  if (openings.length === 0) return today
  const byStatus = today.byStatus
    .map((row) => {
      const made = openings.filter((each) => each.kind === row.kind && each.status === row.status).length
      return { ...row, count: row.count - made }
    })
    .filter((row) => row.count > 0)
  const posted = today.posted
    .map((row) => {
      const credited = openings.filter(
        (each) =>
          row.type === 'cash-in' &&
          each.status === 'succeeded' &&
          each.kind === row.kind &&
          each.currency === row.currency,
      )
      const amountMinor = credited.reduce((sum, each) => sum + (each.sides[0]?.cashAmountMinor ?? 0), 0)
      return { ...row, entries: row.entries - credited.length, amountMinor: row.amountMinor - amountMinor }
    })
    .filter((row) => row.entries > 0)
  return { byStatus, posted }
}
