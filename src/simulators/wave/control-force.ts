import { completePayment, failPayment, paymentErrors, viewContext } from './checkout-flow.ts'
import { type CheckoutSession, endSession, sessionView } from './checkout-store.ts'
import { applyPayoutStatus } from './payout-flow.ts'
import { type Payout, type PayoutStatus, payoutView } from './payout-store.ts'
import type { SimulatorState } from './state.ts'
import { bookPayout } from './wallet.ts'

/** What the control paths show of a session: what the API shows, and what only the simulator knows. */
export function sessionControlView(state: SimulatorState, session: CheckoutSession) {
  return {
    id: session.id,
    outcome: session.outcome ?? 'a person decides',
    payerMobile: session.payerMobile,
    refunded: session.refundedAtMs !== undefined,
    refundedAtMs: session.refundedAtMs,
    createdAtMs: session.createdAtMs,
    view: sessionView(session, viewContext(state)),
  }
}

export type SessionControlView = ReturnType<typeof sessionControlView>

export function payoutControlView(payout: Payout) {
  return {
    id: payout.id,
    outcome: payout.outcome,
    idempotencyKey: payout.idempotencyKey,
    createdAtMs: payout.createdAtMs,
    settledAtMs: payout.settledAtMs,
    reversedAtMs: payout.reversedAtMs,
    view: payoutView(payout),
  }
}

export type PayoutControlView = ReturnType<typeof payoutControlView>

/** A forced end for an open session; `webhook: false` keeps its webhook from being sent. */
export interface ForcedSession {
  readonly status: 'succeeded' | 'failed' | 'expired'
  readonly code?: string
  readonly message?: string
  readonly mobile?: string
  readonly webhook?: boolean
}

/** Applies a forced end to an open session; false when the session is no longer open. */
export function forceSession(
  state: SimulatorState,
  session: CheckoutSession,
  forced: ForcedSession,
): boolean {
  if (state.checkout.get(session.id)?.checkoutStatus !== 'open') return false
  const webhook = forced.webhook ?? true
  if (forced.status === 'succeeded') completePayment(state, session, forced.mobile, webhook)
  else if (forced.status === 'expired') endSession(session)
  else {
    const error = {
      code: forced.code ?? paymentErrors.paymentFailure.code,
      message: forced.message ?? paymentErrors.paymentFailure.message,
    }
    failPayment(state, session, error, forced.mobile, webhook)
  }
  return true
}

export interface ForcedPayout {
  readonly status: PayoutStatus
  readonly error_code?: string
  readonly error_message?: string
}

export function forcePayout(state: SimulatorState, payout: Payout, forced: ForcedPayout): void {
  const payoutError =
    forced.error_code === undefined
      ? undefined
      : { error_code: forced.error_code, error_message: forced.error_message ?? forced.error_code }
  applyPayoutStatus(payout, { status: forced.status, payoutError })
  bookPayout(state, payout)
}

function stringOrAbsent(value: unknown): boolean {
  return value === undefined || typeof value === 'string'
}

/** The body of POST /_simulator/sessions/{id}/status, or undefined when it is not one. */
export function parseForcedSession(body: Record<string, unknown>): ForcedSession | undefined {
  const { status, code, message, mobile, webhook } = body
  if (status !== 'succeeded' && status !== 'failed' && status !== 'expired') return undefined
  if (![code, message, mobile].every(stringOrAbsent)) return undefined
  if (webhook !== undefined && typeof webhook !== 'boolean') return undefined
  return body as unknown as ForcedSession
}

/** The body of POST /_simulator/payouts/{id}/status, or undefined when it is not one. */
export function parseForcedPayout(body: Record<string, unknown>): ForcedPayout | undefined {
  const statuses: readonly unknown[] = ['processing', 'succeeded', 'failed', 'reversed']
  if (!statuses.includes(body.status)) return undefined
  if (![body.error_code, body.error_message].every(stringOrAbsent)) return undefined
  return body as unknown as ForcedPayout
}
