import type { Mode } from '../../domain/kinds.ts'
import type { Operation } from '../../domain/operation.ts'
import type { BalanceView } from '../../store/repositories/ledger.ts'
import type { OperationCounts } from '../../store/repositories/operation-search.ts'
import type { AppContext } from '../context.ts'

export interface Overview {
  balances: BalanceView[]
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
  const { ledger, operationSearch } = context.store
  const [balances, today, latest] = await Promise.all([
    ledger.balances(merchantId, mode),
    context.longWork.run({ merchantId, mode }, () =>
      operationSearch.countsSince(merchantId, mode, nowUs - (nowUs % dayUs)),
    ),
    operationSearch.list(merchantId, mode, { limit: 10 }).then((page) => page.items),
  ])
  return { balances, today, latest }
}
