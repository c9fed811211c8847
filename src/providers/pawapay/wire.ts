import { toMajorUnits } from '../../domain/money.ts'
import type { FailureReason } from '../../domain/status.ts'
import type { ProviderOutcome, ProviderRequest } from '../provider.ts'

/**
 * Sika's shapes in pawaPay Merchant API v2 terms (docs.pawapay.io/v2; the simulator's SOURCES.md
 * names the page behind each line): a cash-in is a deposit, a cash-out a payout, and the side's
 * operator reference is its depositId or payoutId, so a retry is the same payment to pawaPay
 * (DUPLICATE_IGNORED). clientReferenceId names the side as `<token>.<role>` for people reading
 * pawaPay's Dashboard; callbacks do not carry it, so Sika never relies on it.
 */

/**
 * The resource a side is: a deposit (cash-in), a payout (cash-out), or a refund of a deposit Sika
 * made (a refund whose refunded payment pawaPay knows by its depositId): its path and id field,
 * and the field naming the customer (a refund names none: pawaPay pays the deposit's payer).
 */
export function resourceOf(request: Pick<ProviderRequest, 'direction' | 'refund'>) {
  if (request.refund?.operatorReference)
    return { path: '/v2/refunds', idField: 'refundId', partyField: undefined } as const
  return request.direction === 'cash-in'
    ? ({ path: '/v2/deposits', idField: 'depositId', partyField: 'payer' } as const)
    : ({ path: '/v2/payouts', idField: 'payoutId', partyField: 'recipient' } as const)
}

export const clientReferenceOf = (request: Pick<ProviderRequest, 'token' | 'role'>) =>
  `${request.token}.${request.role}`

/** What moves on the customer's wallet ("5000" XOF, "10.5" GHS: no trailing zeros, v2's pattern). */
const amountOf = (request: ProviderRequest) => String(toMajorUnits(request.amountMinor, request.currency))

/**
 * POST /v2/deposits or /v2/payouts: amount as a string in major units, the phone as digits with
 * the country code, and customerMessage (4 to 22 letters, digits and spaces, D-DEPOSIT, PP-KIT),
 * what the customer sees, left out when the side has no statement text that fits. A refund is
 * POST /v2/refunds against the deposit's id (docs.pawapay.io/v2/api-reference/refunds): pawaPay pays its payer, never more than
 * the deposit, once per refundId.
 */
export function initiationBody(request: ProviderRequest, provider: string): Record<string, unknown> {
  const { idField, partyField } = resourceOf(request)
  if (!partyField)
    return {
      refundId: request.operatorReference,
      depositId: request.refund?.operatorReference,
      amount: amountOf(request),
      currency: request.currency,
      clientReferenceId: clientReferenceOf(request),
    }
  return {
    [idField]: request.operatorReference,
    amount: amountOf(request),
    currency: request.currency,
    [partyField]: {
      type: 'MMO',
      accountDetails: { phoneNumber: request.phoneNumber.replace(/\D/g, ''), provider },
    },
    clientReferenceId: clientReferenceOf(request),
    ...(request.statementDescriptor ? { customerMessage: request.statementDescriptor } : {}),
  }
}

type Ending = { status: 'failed' | 'canceled' | 'error'; message: string }

/**
 * pawaPay's failure codes (D-FAILURES, PP-KIT errors.md) as Sika's outcomes. A transaction failure
 * (a FAILED payment moved no money) is a decline, `failed`, or `canceled` when the customer did not
 * approve in time or someone cancelled it; a fault of pawaPay or of the merchant's account `error`.
 * The technical codes come only with REJECTED initiations: nothing was created, so `error`.
 */
const endings: Record<string, Ending> = {
  PAYMENT_NOT_APPROVED: {
    status: 'canceled',
    message: 'The customer did not approve the payment, or not in time.',
  },
  // The code of a payout failed while ENQUEUED (fail-enqueued, or pawaPay's Dashboard): no money moved.
  MANUALLY_CANCELLED: {
    status: 'canceled',
    message: 'The payment was cancelled at pawaPay before it reached the provider.',
  },
  INSUFFICIENT_BALANCE: { status: 'failed', message: 'The customer does not have enough funds.' },
  PAYER_NOT_FOUND: { status: 'failed', message: 'The phone number has no wallet with this provider.' },
  RECIPIENT_NOT_FOUND: { status: 'failed', message: 'The phone number has no wallet with this provider.' },
  PAYER_LIMIT_REACHED: { status: 'failed', message: 'The customer reached a limit of their wallet.' },
  RECIPIENT_LIMIT_REACHED: { status: 'failed', message: 'The recipient reached a limit of their wallet.' },
  WALLET_LIMIT_REACHED: { status: 'failed', message: 'The customer reached a limit of their wallet.' },
  PAYMENT_IN_PROGRESS: { status: 'failed', message: 'The customer has another payment in progress.' },
  TRANSACTION_ALREADY_IN_PROCESS: {
    status: 'failed',
    message: 'The customer has another payment in progress.',
  },
  UNSPECIFIED_FAILURE: { status: 'failed', message: 'The provider declined the payment without a reason.' },
  UNKNOWN_ERROR: { status: 'error', message: 'pawaPay could not process the payment.' },
  PAWAPAY_WALLET_OUT_OF_FUNDS: {
    status: 'error',
    message: 'The merchant’s pawaPay wallet does not hold enough for this payout.',
  },
  // Technical failures (REJECTED, 400, 401, 403): the request itself was refused.
  NO_AUTHENTICATION: { status: 'error', message: 'pawaPay found no API token in the request.' },
  AUTHENTICATION_ERROR: { status: 'error', message: 'pawaPay refused the API token (revoked or wrong).' },
  AUTHORISATION_ERROR: { status: 'error', message: 'The API token is not allowed this call at pawaPay.' },
  HTTP_SIGNATURE_ERROR: { status: 'error', message: 'pawaPay requires signed requests.' },
  DEPOSITS_NOT_ALLOWED: { status: 'error', message: 'Deposits are not enabled on the pawaPay account.' },
  PAYOUTS_NOT_ALLOWED: { status: 'error', message: 'Payouts are not enabled on the pawaPay account.' },
  INVALID_PHONE_NUMBER: { status: 'error', message: 'pawaPay refused the phone number for this provider.' },
  INVALID_PROVIDER: { status: 'error', message: 'pawaPay refused the provider code of this connection.' },
  INVALID_CURRENCY: { status: 'error', message: 'The provider does not take this currency at pawaPay.' },
  INVALID_AMOUNT: { status: 'error', message: 'The provider does not take this amount’s decimals.' },
  AMOUNT_OUT_OF_BOUNDS: { status: 'error', message: 'The amount is outside pawaPay’s limits for it.' },
  PROVIDER_TEMPORARILY_UNAVAILABLE: {
    status: 'error',
    message: 'The provider is temporarily unavailable at pawaPay.',
  },
  // A refund REJECTED (PP-KIT refunds.md, the simulator's errors): pawaPay created nothing, so nothing moved.
  NOT_FOUND: { status: 'error', message: 'pawaPay does not know the payment this refund gives back.' },
  INVALID_STATE: { status: 'error', message: 'pawaPay cannot refund the payment in its current state.' },
  AMOUNT_TOO_LARGE: {
    status: 'error',
    message: 'pawaPay has less left to refund of the payment than asked.',
  },
  DEPOSIT_ALREADY_REFUNDED: { status: 'error', message: 'pawaPay has already refunded the whole payment.' },
  REFUND_IN_PROGRESS: {
    status: 'error',
    message: 'pawaPay is processing another refund of the payment; refund again once it has ended.',
  },
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** `pawapay_<code>` in lower case (PAWAPAY_WALLET_OUT_OF_FUNDS is pawapay_wallet_out_of_funds). */
const reasonCode = (code: string) => `pawapay_${code.toLowerCase().replace(/^pawapay_/, '')}`

/**
 * A failureReason `{failureCode, failureMessage}` as Sika's ending; an unknown code ends as the
 * fallback says, under its own code and pawaPay's message.
 */
export function endingOf(
  failureReason: unknown,
  fallback: Ending & { code: string },
): { status: Ending['status']; reason: FailureReason } {
  const reason = isObject(failureReason) ? failureReason : {}
  const code = typeof reason.failureCode === 'string' ? reason.failureCode : undefined
  if (code === undefined)
    return { status: fallback.status, reason: { code: fallback.code, message: fallback.message } }
  const known = endings[code]
  const given = typeof reason.failureMessage === 'string' ? reason.failureMessage : fallback.message
  return {
    status: known?.status ?? fallback.status,
    reason: { code: reasonCode(code), message: known?.message ?? given },
  }
}

/**
 * An initiation's answer (D-DEPOSIT): ACCEPTED and DUPLICATE_IGNORED are pending, to be polled;
 * REJECTED created nothing, so it ends the side. Anything else is no answer: pending.
 */
export function outcomeOfInitiation(status: number, body: unknown, pollAfterMs: number): ProviderOutcome {
  const answer = isObject(body) ? body.status : undefined
  // 5xx (UNKNOWN_ERROR: "do not assume failure"), or a 200 this adapter cannot read: money may move.
  if (status >= 500 || (status === 200 && answer !== 'REJECTED')) return { status: 'pending', pollAfterMs }
  // A REJECTED 200, or a refusal of the request itself (400, 401, 403, 404): nothing was created.
  if (status === 200 || status === 400 || status === 401 || status === 403 || status === 404) {
    const ending = endingOf(isObject(body) ? body.failureReason : undefined, {
      status: 'error',
      code: 'pawapay_rejected',
      message: `pawaPay refused the request (HTTP ${status}).`,
    })
    return { status: ending.status, reason: ending.reason }
  }
  // Another status (429, 408, ...) says nothing certain about the payment.
  return { status: 'pending', pollAfterMs }
}

/**
 * GET /v2/{deposits|payouts}/{id} (D-STATUS): `{status: FOUND, data}` or `{status: NOT_FOUND}`.
 * COMPLETED is succeeded, FAILED ends it by its failure code; ACCEPTED, PROCESSING, ENQUEUED,
 * IN_RECONCILIATION, any unknown status, and NOT_FOUND (the TTL ends it) stay pending.
 */
export function outcomeOfStatus(body: unknown, pollAfterMs: number): ProviderOutcome {
  const data = isObject(body) && body.status === 'FOUND' && isObject(body.data) ? body.data : undefined
  const providerReference =
    typeof data?.providerTransactionId === 'string' && data.providerTransactionId
      ? data.providerTransactionId
      : undefined
  // FOUND: pawaPay's own record of the payment, which proves it holds it.
  const reference = {
    ...(providerReference ? { providerReference } : {}),
    ...(data ? { fromOperatorRecord: true } : {}),
  }
  if (data?.status === 'COMPLETED') return { status: 'succeeded', ...reference }
  if (data?.status === 'FAILED') {
    const ending = endingOf(data.failureReason, {
      status: 'failed',
      code: 'pawapay_failed',
      message: 'pawaPay reports the payment failed.',
    })
    return { ...ending, ...reference }
  }
  // REDIRECT_AUTH providers (PP-KIT): the customer authorises at authorizationUrl.
  const redirectUrl = typeof data?.authorizationUrl === 'string' ? data.authorizationUrl : undefined
  return { status: 'pending', pollAfterMs, ...reference, ...(redirectUrl ? { redirectUrl } : {}) }
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * The payment a callback is about (D-CALLBACK): its depositId, payoutId or refundId, the only
 * name it has for it. Undefined for a body that is no pawaPay callback.
 */
export function paymentIdOfCallback(rawBody: string): string | undefined {
  let body: unknown
  try {
    body = JSON.parse(rawBody)
  } catch {
    return undefined
  }
  if (!isObject(body) || (body.status !== undefined && typeof body.status !== 'string')) return undefined
  // A refund's callback may also name the deposit it refunds: its own id comes first.
  const id = [body.refundId, body.payoutId, body.depositId].find((value) => value !== undefined)
  // Sika's ids are lower-case UUIDs (randomUUID); a UUID's case carries no meaning (RFC 9562).
  return typeof id === 'string' && uuid.test(id) ? id.toLowerCase() : undefined
}
