import type { SimulatorOutcome } from '../test-numbers.ts'
import { waveTimestamp } from './ids.ts'
import type { CheckoutRequest } from './validation.ts'

export type CheckoutStatus = 'open' | 'complete' | 'expired'
export type PaymentStatus = 'processing' | 'cancelled' | 'succeeded'

/** The reason of the last failed payment attempt (`last_payment_error`). */
export interface PaymentError {
  readonly code: string
  readonly message: string
}

/** One checkout session, as Wave holds it. */
export interface CheckoutSession {
  readonly id: string
  readonly request: CheckoutRequest
  /** The outcome of `restrict_payer_mobile`'s test number; undefined when a person decides. */
  readonly outcome: SimulatorOutcome | undefined
  readonly createdAtMs: number
  /** The `when_expires` it shows. */
  readonly expiresAtMs: number
  /** False for test number 104: the session stays open for ever. */
  readonly expires: boolean
  checkoutStatus: CheckoutStatus
  paymentStatus: PaymentStatus
  transactionId: string | undefined
  /** When it was completed or expired (`when_completed`). */
  completedAtMs: number | undefined
  lastPaymentError: PaymentError | undefined
  /** The number that paid, or last tried to. */
  payerMobile: string | undefined
  /** Set by a refund; Wave publishes no field for it, so only the control paths show it. */
  refundedAtMs: number | undefined
}

/** Every checkout session of the wallet, oldest first. */
export class CheckoutStore {
  private readonly byId = new Map<string, CheckoutSession>()
  private readonly inOrder: CheckoutSession[] = []

  add(session: CheckoutSession): void {
    this.byId.set(session.id, session)
    this.inOrder.push(session)
  }

  /** The session, expired first if its `when_expires` has passed while it was open. */
  get(id: string): CheckoutSession | undefined {
    const session = this.byId.get(id)
    if (session !== undefined) expireIfDue(session)
    return session
  }

  byTransactionId(transactionId: string): CheckoutSession | undefined {
    return this.all().find((session) => session.transactionId === transactionId)
  }

  byClientReference(clientReference: string): CheckoutSession[] {
    return this.all().filter((session) => session.request.clientReference === clientReference)
  }

  all(): CheckoutSession[] {
    for (const session of this.inOrder) expireIfDue(session)
    return [...this.inOrder]
  }
}

/**
 * An open session whose time is up is expired: Wave publishes no event for it, so checking on
 * every read is enough and needs no timer. `when_completed` is "the time at which the checkout
 * session was completed or expired".
 */
export function expireIfDue(session: CheckoutSession, nowMs = Date.now()): void {
  if (session.checkoutStatus !== 'open' || !session.expires || nowMs < session.expiresAtMs) return
  endSession(session, session.expiresAtMs)
}

/** Ends an open session without a payment: `expired`, its payment `cancelled`. */
export function endSession(session: CheckoutSession, atMs = Date.now()): void {
  session.checkoutStatus = 'expired'
  session.paymentStatus = 'cancelled'
  session.completedAtMs = atMs
}

export interface ViewContext {
  readonly baseUrl: string
  readonly businessName: string
}

/** `wave_launch_url` as Wave shapes it (`https://pay.wave.com/c/cos-…?a=125&c=XOF&m=Shop`), on the simulator. */
export function launchUrl(session: CheckoutSession, context: ViewContext): string {
  const query = new URLSearchParams({
    a: session.request.amount,
    c: session.request.currency,
    m: context.businessName,
  })
  return `${context.baseUrl}/c/${session.id}?${query.toString()}`
}

/**
 * The checkout session object, its fields in the docs' order. `client_reference` and
 * `last_payment_error` are null when unset (as in a live webhook); the other optional fields are
 * left out until they have a value ("not populated for open sessions").
 */
export function sessionView(session: CheckoutSession, context: ViewContext): Record<string, unknown> {
  const { request } = session
  const view: Record<string, unknown> = {
    id: session.id,
    amount: request.amount,
    checkout_status: session.checkoutStatus,
    client_reference: request.clientReference ?? null,
    currency: request.currency,
    error_url: request.errorUrl,
    last_payment_error: session.lastPaymentError ?? null,
    business_name: context.businessName,
    payment_status: session.paymentStatus,
    transaction_id: session.transactionId,
    aggregated_merchant_id: request.aggregatedMerchantId,
    restrict_payer_mobile: request.restrictPayerMobile,
    success_url: request.successUrl,
    wave_launch_url: launchUrl(session, context),
    when_completed: session.completedAtMs === undefined ? undefined : waveTimestamp(session.completedAtMs),
    when_created: waveTimestamp(session.createdAtMs),
    when_expires: waveTimestamp(session.expiresAtMs),
  }
  for (const [name, value] of Object.entries(view)) if (value === undefined) delete view[name]
  return view
}
