import { bookTransaction } from './accounts.ts'
import { applyStatus, type MomoTransaction, statusView } from './ledger.ts'
import type { MomoStatus } from './operations.ts'
import type { SimulatorState } from './state.ts'

/**
 * Sends the transaction's callback when it has an X-Callback-Url, once. Test number 105 succeeds
 * without one, so only a status check finds it; `force` overrides that for the control paths.
 */
function notify(state: SimulatorState, transaction: MomoTransaction, force = false): void {
  if (transaction.callbackUrl === undefined || transaction.callbackSent) return
  if (transaction.outcome === '105' && !force) return
  transaction.callbackSent = true
  state.callbacks.send(
    transaction.callbackUrl,
    transaction.spec.callbackMethod,
    statusView(transaction, state.config.reasonFormat),
  )
}

/** Ends a PENDING transaction as its test number says; 104 stays PENDING for ever. */
export function settleNow(state: SimulatorState, transaction: MomoTransaction): void {
  if (transaction.status !== 'PENDING') return
  const final = state.ledger.finalStatusOf(transaction)
  if (final === undefined) return
  applyStatus(transaction, final)
  bookTransaction(state, transaction)
  notify(state, transaction)
}

/** The wallet platform queues the request and processes it later (the "202 Accepted" contract). */
export function settleLater(state: SimulatorState, transaction: MomoTransaction): void {
  state.timers.after(state.config.settleDelayMs, () => settleNow(state, transaction))
}

export interface ForcedStatus {
  readonly status: MomoStatus
  readonly reason?: string
  /** false: no callback; true: a callback even for 105; absent: as the test number says. */
  readonly callback?: boolean
}

/** Sets a transaction's status from the control paths, sending its callback if the status is final. */
export function forceStatus(state: SimulatorState, transaction: MomoTransaction, forced: ForcedStatus): void {
  applyStatus(transaction, forced)
  bookTransaction(state, transaction)
  if (forced.status === 'PENDING' || forced.callback === false) return
  notify(state, transaction, forced.callback === true)
}
