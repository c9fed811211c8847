import { outcomeForPhoneNumber, type SimulatorOutcome } from '../test-numbers.ts'
import { newTxnid, type WebPayment, type WebPaymentStatus } from './payments.ts'
import type { SimulatorState } from './state.ts'

/** Orange notifies only a confirmed payment that ends SUCCESS or FAILED. */
const notifiedStatuses: readonly WebPaymentStatus[] = ['SUCCESS', 'FAILED']

export function isPastValidity(state: SimulatorState, payment: WebPayment): boolean {
  return Date.now() >= payment.createdAtMs + state.config.paymentValidityMs
}

/**
 * Brings a payment up to date before it is read. Orange documents that an untried payment stays
 * INITIATED; only with the expireUntriedPayments option does it become EXPIRED after its validity.
 */
export function refresh(state: SimulatorState, payment: WebPayment): WebPayment {
  if (
    state.config.expireUntriedPayments &&
    payment.status === 'INITIATED' &&
    isPastValidity(state, payment)
  ) {
    payment.status = 'EXPIRED'
    payment.settledAtMs = payment.createdAtMs + state.config.paymentValidityMs
  }
  return payment
}

/** The notification body, fields in the order of Orange's example. */
export function notificationBody(payment: WebPayment): Record<string, unknown> {
  return { status: payment.status, notif_token: payment.notifToken, txnid: payment.txnid }
}

function notify(state: SimulatorState, payment: WebPayment): void {
  payment.notificationSent = true
  state.notifications.send(payment.request.notifUrl, notificationBody(payment))
}

/** How a confirmed payment ends, by its test number; undefined while it stays PENDING (104). */
export function finalStatusOf(outcome: SimulatorOutcome | undefined): WebPaymentStatus | undefined {
  if (outcome === '104') return undefined
  if (outcome === '103') return 'EXPIRED'
  if (outcome === '101' || outcome === '102' || outcome === '108') return 'FAILED'
  return 'SUCCESS'
}

export function settleNow(state: SimulatorState, payment: WebPayment): void {
  if (payment.status !== 'PENDING') return
  const final = finalStatusOf(payment.outcome)
  if (final === undefined) return
  payment.status = final
  payment.settledAtMs = Date.now()
  if (notifiedStatuses.includes(final) && payment.outcome !== '105' && !payment.notificationSent) {
    notify(state, payment)
  }
}

export type ConfirmResult = 'pending' | 'expired' | 'not-initiated'

/**
 * The customer clicks "Confirmer" with their number: the payment is PENDING and settles after the
 * settle delay. Past the pay_token's validity it is EXPIRED instead ("user has clicked on
 * Confirmer too late"), with no notification.
 */
export function confirm(state: SimulatorState, payment: WebPayment, msisdn: string): ConfirmResult {
  if (refresh(state, payment).status !== 'INITIATED') return 'not-initiated'
  payment.msisdn = msisdn
  payment.outcome = outcomeForPhoneNumber(msisdn)
  payment.confirmedAtMs = Date.now()
  if (isPastValidity(state, payment)) {
    payment.status = 'EXPIRED'
    payment.settledAtMs = payment.confirmedAtMs
    return 'expired'
  }
  payment.status = 'PENDING'
  payment.txnid = newTxnid()
  state.timers.after(state.config.settleDelayMs, () => settleNow(state, payment))
  return 'pending'
}

export interface ForcedStatus {
  readonly status: WebPaymentStatus
  /** false: no notification; true: one even for 105 or a second one; absent: as the test number says. */
  readonly notify?: boolean
}

/** Sets a payment's status from the control paths, notifying it when the status is SUCCESS or FAILED. */
export function forceStatus(state: SimulatorState, payment: WebPayment, forced: ForcedStatus): void {
  payment.status = forced.status
  if (forced.status !== 'INITIATED' && forced.status !== 'EXPIRED' && payment.txnid === undefined) {
    payment.txnid = newTxnid()
  }
  payment.settledAtMs = forced.status === 'INITIATED' || forced.status === 'PENDING' ? undefined : Date.now()
  if (!notifiedStatuses.includes(forced.status) || forced.notify === false) return
  const byTestNumber = payment.outcome !== '105' && !payment.notificationSent
  if (forced.notify === true || byTestNumber) notify(state, payment)
}

/**
 * The customer clicks the page's cancel link: they go back to cancel_url and the payment, never
 * tried, stays INITIATED ("If the transaction is not tried (the customer doesn't do anything, or
 * returns on Merchant site), status stays on INITIATED state"). False once it was confirmed.
 */
export function cancel(state: SimulatorState, payment: WebPayment): boolean {
  if (refresh(state, payment).status !== 'INITIATED') return false
  payment.cancelledAtMs = Date.now()
  return true
}
