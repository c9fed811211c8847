import { randomInt } from 'node:crypto'
import { type FailureReason, transactionFailure } from './errors.ts'
import { isFinal, type Payment, type PaymentStatus } from './ledger.ts'
import { finalStatusOf } from './outcomes.ts'
import type { SimulatorState } from './state.ts'
import { callbackBody } from './views.ts'
import { bookPayment } from './wallets.ts'

/** Moves a payment to a status; the provider's transaction id comes with COMPLETED. */
export function applyStatus(payment: Payment, status: PaymentStatus, failureReason?: FailureReason): void {
  payment.status = status
  payment.failureReason = status === 'FAILED' ? failureReason : undefined
  if (status === 'COMPLETED' && payment.providerTransactionId === undefined) {
    payment.providerTransactionId = String(randomInt(1_000_000_000, 9_999_999_999))
  }
  payment.settledAtMs = isFinal(status) ? Date.now() : undefined
}

/** POSTs the payment's callback to the URL configured for its operation, if there is one. */
export function sendCallback(state: SimulatorState, payment: Payment): boolean {
  const url = state.config.callbackUrls[payment.spec.kind]
  if (url === undefined) return false
  payment.callbackSent = true
  state.callbacks.send(url, JSON.stringify(callbackBody(payment, state.config)))
  return true
}

/**
 * The callback of a final status, once. Test number 105 completes without one, so only a status
 * check finds it; `force` overrides that for the control paths.
 */
function notify(state: SimulatorState, payment: Payment, force = false): void {
  if (payment.callbackSent || !isFinal(payment.status)) return
  if (payment.outcome === '105' && !force) return
  sendCallback(state, payment)
}

/** Ends a payment as its test number says; 104 stays PROCESSING for ever, with no callback. */
export function settleNow(state: SimulatorState, payment: Payment): void {
  // An ENQUEUED payout waits for its provider (a release) or for fail-enqueued.
  if (isFinal(payment.status) || payment.status === 'ENQUEUED') return
  const final = finalStatusOf(payment.spec.kind, payment.outcome)
  if (final === undefined) {
    applyStatus(payment, 'PROCESSING')
    return
  }
  applyStatus(payment, final.status, final.status === 'FAILED' ? final.failureReason : undefined)
  bookPayment(state, payment)
  notify(state, payment)
}

/**
 * pawaPay accepts a payment, submits it to the provider (PROCESSING) and learns its final status
 * later: halfway through the settle delay it is PROCESSING, at the end final.
 */
export function settleLater(state: SimulatorState, payment: Payment): void {
  const { settleDelayMs } = state.config
  state.timers.after(Math.floor(settleDelayMs / 2), () => {
    if (payment.status === 'ACCEPTED') applyStatus(payment, 'PROCESSING')
  })
  state.timers.after(settleDelayMs, () => settleNow(state, payment))
}

export interface ForcedStatus {
  readonly status: PaymentStatus
  readonly failureCode?: string
  readonly failureMessage?: string
  /** false: no callback; true: a callback even for 105; absent: as the test number says. */
  readonly callback?: boolean
}

/** Sets a payment's status from the control paths, sending its callback if the status is final. */
export function forceStatus(state: SimulatorState, payment: Payment, forced: ForcedStatus): void {
  const failureReason = transactionFailure(forced.failureCode ?? 'UNSPECIFIED_FAILURE', forced.failureMessage)
  applyStatus(payment, forced.status, failureReason)
  bookPayment(state, payment)
  if (!isFinal(forced.status) || forced.callback === false) return
  payment.callbackSent = false
  notify(state, payment, forced.callback === true)
}
