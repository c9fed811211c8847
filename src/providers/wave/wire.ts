import { toMajorUnits } from '../../domain/money.ts'
import type { ProviderOutcome, ProviderRequest } from '../provider.ts'

export { sideOfClientReference } from '../side-reference.ts'

/**
 * Sika's shapes in Wave Business API terms: a cash-in is a checkout session the customer pays on
 * Wave's page (its wave_launch_url is the record's redirectUrl), a cash-out a payout.
 * client_reference names the side, so a webhook or a search finds it: `<token>.<role>`.
 */

export const clientReferenceOf = (request: Pick<ProviderRequest, 'token' | 'role'>) =>
  `${request.token}.${request.role}`

/** What moves on the customer's wallet, in major units, as Wave's string (no decimals for XOF). */
export const waveAmount = (request: ProviderRequest) =>
  String(toMajorUnits(request.amountMinor, request.currency))

export function checkoutBody(request: ProviderRequest, returnUrl: string): Record<string, unknown> {
  return {
    amount: waveAmount(request),
    currency: request.currency,
    client_reference: clientReferenceOf(request),
    success_url: returnUrl,
    error_url: returnUrl,
  }
}

/**
 * A payout (D-PAYOUT "Create a payout"): `name` is the recipient's, as the merchant gave it (Wave
 * uses it for the recipient), left out when it gave none; `payment_reason` (at most 40 characters)
 * is the text the customer sees.
 */
export function payoutBody(request: ProviderRequest): Record<string, unknown> {
  return {
    currency: request.currency,
    receive_amount: waveAmount(request),
    mobile: request.phoneNumber,
    ...(request.customerName ? { name: request.customerName.slice(0, 255) } : {}),
    client_reference: clientReferenceOf(request),
    ...(request.statementDescriptor ? { payment_reason: request.statementDescriptor } : {}),
  }
}

/**
 * The checkout session a refund gives back whole, when it does: Wave refunds only whole sessions
 * (POST /v1/checkout/sessions/:id/refund), so a refund of part of one is a payout of that part.
 */
export function refundedSessionOf(request: ProviderRequest): string | undefined {
  const refunded = request.refund
  if (!refunded?.providerReference || request.amountMinor !== refunded.paidAmountMinor) return undefined
  return refunded.providerReference
}

/** A checkout session as our outcome: paid is succeeded, expired canceled; open stays pending for the customer. */
export function outcomeOfSession(session: Record<string, unknown>, pollAfterMs: number): ProviderOutcome {
  const providerReference = typeof session.id === 'string' ? session.id : undefined
  const reference = { ...(providerReference ? { providerReference } : {}), fromOperatorRecord: true }
  if (session.payment_status === 'succeeded') return { status: 'succeeded', ...reference }
  if (session.checkout_status === 'expired' || session.payment_status === 'cancelled')
    return {
      status: 'canceled',
      reason: { code: 'wave_expired', message: 'The customer did not pay the Wave checkout in time.' },
      ...reference,
    }
  const redirectUrl = typeof session.wave_launch_url === 'string' ? session.wave_launch_url : undefined
  // The customer pays on Wave's page, not ours: Sika keeps polling (and listens for the webhook).
  return {
    status: 'pending',
    pollAfterMs,
    ...reference,
    ...(redirectUrl ? { redirectUrl } : {}),
  }
}

/** A payout as our outcome: processing stays pending; failed and reversed moved no money to the customer. */
export function outcomeOfPayout(payout: Record<string, unknown>, pollAfterMs: number): ProviderOutcome {
  const providerReference = typeof payout.id === 'string' ? payout.id : undefined
  const reference = { ...(providerReference ? { providerReference } : {}), fromOperatorRecord: true }
  if (payout.status === 'succeeded') return { status: 'succeeded', ...reference }
  if (payout.status === 'failed' || payout.status === 'reversed') {
    const error = payout.payout_error as { error_code?: unknown; error_message?: unknown } | undefined
    const code = typeof error?.error_code === 'string' ? error.error_code : String(payout.status)
    const message = typeof error?.error_message === 'string' ? error.error_message : 'Wave did not pay out.'
    return { status: 'failed', reason: { code: `wave_${code.replaceAll('-', '_')}`, message }, ...reference }
  }
  return { status: 'pending', pollAfterMs, ...reference }
}
