import { operationKindNames, operationKinds, sideKinds } from '../../domain/kinds.ts'
import type { Currency } from '../../domain/money.ts'
import type { OperatorBalance } from '../../domain/operator-lines.ts'
import type { AccountBalanceFigure } from '../../observability/operator-balances.ts'
import type { LowBalanceAlert } from '../../providers/operators-file.ts'
import type { LiveConnection } from '../../providers/registry.ts'
import type { AppContext } from '../context.ts'
import type { BalanceReading } from '../mechanisms/operator-balances.ts'

/** The kinds with a side that pays a customer out of an operator account. */
const payoutKinds = operationKindNames.filter((kind) =>
  operationKinds[kind].sides.some((side) => sideKinds[side.sideKind].direction === 'cash-out'),
)

/**
 * Pending payouts read at most: beyond, the figures say they are a lower bound (`waitingComplete`).
 * A deployment with more payouts in flight than this has a backlog the page shows anyway.
 */
export const waitingPayoutsRead = 100_000

/** What a connection's operator said of its balances, as the console shows it. */
export type AccountsBalance =
  | { readonly state: 'not-offered' }
  | { readonly state: 'unavailable'; readonly reason: string; readonly readAtUs: number }
  | { readonly state: 'read'; readonly readAtUs: number; readonly accounts: readonly AccountBalanceFigure[] }

/** The payouts through one connection in one currency that its account will have to pay. */
export interface WaitingPayouts {
  readonly currency: Currency
  /** Handed to the operator, or on their way to it, and not final. */
  readonly pendingCount: number
  readonly pendingMinor: number
  /** Waiting in a payout batch (for approval or for the batch worker): no operator has them yet. */
  readonly queuedCount: number
  readonly queuedMinor: number
}

export interface OperatorAccount {
  readonly id: string
  readonly channel: string
  readonly countries: readonly string[]
  readonly adapter: string
  readonly lowBalanceAlerts: readonly LowBalanceAlert[]
  readonly balance: AccountsBalance
  /** True when an account is below the connection's alert in its currency. */
  readonly lowBalance: boolean
  readonly waiting: readonly WaitingPayouts[]
}

export interface OperatorAccounts {
  readonly connections: readonly OperatorAccount[]
  /** False when more payouts were pending than `waitingPayoutsRead`: the waiting figures are then a lower bound. */
  readonly waitingComplete: boolean
}

/**
 * Each live connection of OPERATORS_FILE with its balances (from the operator, at most once a
 * minute, never inside a transaction; an operator that fails is shown unavailable) and the live
 * payouts of every merchant waiting for it.
 */
export async function readOperatorAccounts(context: AppContext): Promise<OperatorAccounts> {
  const connections = context.providers.liveConnections()
  const [readings, pending] = await Promise.all([
    Promise.all(connections.map((connection) => context.operatorBalances.read(connection))),
    context.store.operatorActivity.pendingLive(payoutKinds, waitingPayoutsRead),
  ])
  const payoutSides = pending.flatMap((operation) =>
    operation.sides.filter(
      (side) => sideKinds[side.kind].direction === 'cash-out' && side.status === 'pending',
    ),
  )
  return {
    connections: connections.map((connection, index) => {
      const balance = accountsBalance(connection, readings[index])
      return {
        id: connection.id,
        channel: connection.channel,
        countries: connection.countries,
        adapter: connection.adapter.name,
        lowBalanceAlerts: connection.lowBalanceAlerts,
        balance,
        lowBalance: balance.state === 'read' && balance.accounts.some((account) => account.low),
        waiting: waitingByCurrency(
          payoutSides.filter(
            (side) => side.channel === connection.channel && connection.countries.includes(side.country),
          ),
        ),
      }
    }),
    waitingComplete: pending.length < waitingPayoutsRead,
  }
}

function accountsBalance(connection: LiveConnection, read: BalanceReading | undefined): AccountsBalance {
  if (!read) return { state: 'not-offered' }
  if (!read.reading.ok) return { state: 'unavailable', reason: read.reading.reason, readAtUs: read.readAtUs }
  return { state: 'read', readAtUs: read.readAtUs, accounts: balanceFigures(connection, read.reading.value) }
}

/** Each account's balance, and whether it is below the connection's alert in its currency. */
export function balanceFigures(
  connection: Pick<LiveConnection, 'lowBalanceAlerts'>,
  balances: readonly OperatorBalance[],
): AccountBalanceFigure[] {
  return balances.map(({ account, currency, balanceMinor }) => {
    const alert = connection.lowBalanceAlerts.find((candidate) => candidate.currency === currency)
    return { account, currency, balanceMinor, low: alert !== undefined && balanceMinor < alert.amountMinor }
  })
}

function waitingByCurrency(
  sides: readonly { currency: Currency; transactionAmountMinor: number; queuedInBatch?: boolean }[],
): WaitingPayouts[] {
  const byCurrency = new Map<Currency, WaitingPayouts>()
  for (const side of sides) {
    const before = byCurrency.get(side.currency) ?? {
      currency: side.currency,
      pendingCount: 0,
      pendingMinor: 0,
      queuedCount: 0,
      queuedMinor: 0,
    }
    byCurrency.set(
      side.currency,
      side.queuedInBatch
        ? {
            ...before,
            queuedCount: before.queuedCount + 1,
            queuedMinor: before.queuedMinor + side.transactionAmountMinor,
          }
        : {
            ...before,
            pendingCount: before.pendingCount + 1,
            pendingMinor: before.pendingMinor + side.transactionAmountMinor,
          },
    )
  }
  return [...byCurrency.values()].sort((a, b) => (a.currency < b.currency ? -1 : 1))
}

/**
 * Reads every connection's balances once a minute on this instance, so /metrics' low-balance
 * gauges follow the operators without anyone opening the console. A per-instance timer, not
 * scheduled work: each instance's gauges are its own, and the read goes through the instance's
 * cache, so a console view in the same minute costs no second call.
 */
export function watchOperatorBalances(context: AppContext, everyMs = 60_000): { stop(): void } {
  const readAll = () => {
    for (const connection of context.providers.liveConnections())
      void context.operatorBalances.read(connection)
  }
  readAll()
  const timer = setInterval(readAll, everyMs)
  timer.unref()
  return { stop: () => clearInterval(timer) }
}
