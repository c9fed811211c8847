import { toMajorUnits } from '../../domain/money.ts'
import type { OperatorBalance } from '../../domain/operator-lines.ts'
import type { FailureReason } from '../../domain/status.ts'
import { minorUnitsOf, sikaCurrencyOf } from '../operator-amounts.ts'
import type { ProviderOutcome, ProviderRequest } from '../provider.ts'

/**
 * Sika's shapes in MTN MoMo Open API terms: a cash-in is a RequestToPay (collection product), a
 * cash-out a Transfer (disbursement product), and a refund of a RequestToPay Sika made is the
 * disbursement product's Refund against its X-Reference-Id (`referenceIdToRefund`); the side's
 * operator reference is the X-Reference-Id.
 */

export type Product = 'collection' | 'disbursement'

/** Whether the side is a refund of a RequestToPay Sika made, which MTN knows by its X-Reference-Id. */
const refundsRequestToPay = (request: Pick<ProviderRequest, 'refund'>) =>
  request.refund?.operatorReference !== undefined

export function productOf(request: Pick<ProviderRequest, 'direction' | 'refund'>): Product {
  return request.direction === 'cash-in' && !refundsRequestToPay(request) ? 'collection' : 'disbursement'
}

/** The resource path of the side's payment: a RequestToPay, a Transfer or a Refund. */
export function resourceOf(request: Pick<ProviderRequest, 'direction' | 'refund'>): string {
  if (refundsRequestToPay(request)) return '/disbursement/v1_0/refund'
  return productOf(request) === 'collection' ? '/collection/v1_0/requesttopay' : '/disbursement/v1_0/transfer'
}

/**
 * The body of a RequestToPay, Transfer or Refund. payerMessage and payeeNote (at most 160
 * characters, no apostrophe) are the text the customer sees, left out when the side has none.
 */
export function paymentBody(request: ProviderRequest): Record<string, unknown> {
  const party = { partyIdType: 'MSISDN', partyId: request.phoneNumber.replace(/\D/g, '') }
  const text = request.statementDescriptor
  return {
    // What moves on the customer's wallet, in major units, as a string.
    amount: String(toMajorUnits(request.amountMinor, request.currency)),
    currency: request.currency,
    externalId: request.token,
    // A refund pays the refunded request's payer: MTN takes the party from that request.
    ...(refundsRequestToPay(request)
      ? { referenceIdToRefund: request.refund?.operatorReference }
      : { [productOf(request) === 'collection' ? 'payer' : 'payee']: party }),
    ...(text ? { payerMessage: text, payeeNote: text } : {}),
  }
}

/** MTN's failure reasons: a customer's refusal or an expiry is canceled; a decline failed; a fault on MTN's side error. */
const reasons: Record<string, { status: 'failed' | 'canceled' | 'error'; message: string }> = {
  PAYER_NOT_FOUND: { status: 'failed', message: 'The payer has no MTN MoMo account.' },
  PAYEE_NOT_FOUND: { status: 'failed', message: 'The payee has no MTN MoMo account.' },
  NOT_ENOUGH_FUNDS: { status: 'failed', message: 'The customer does not have enough funds.' },
  PAYER_LIMIT_REACHED: { status: 'failed', message: 'The customer reached a wallet limit.' },
  PAYEE_NOT_ALLOWED_TO_RECEIVE: { status: 'failed', message: 'The payee may not receive this payment.' },
  NOT_ALLOWED: { status: 'failed', message: 'MTN MoMo does not allow this payment.' },
  APPROVAL_REJECTED: { status: 'canceled', message: 'The customer declined the payment.' },
  EXPIRED: { status: 'canceled', message: 'The customer did not approve the payment in time.' },
  TRANSACTION_CANCELED: { status: 'canceled', message: 'The payment was canceled.' },
  INTERNAL_PROCESSING_ERROR: { status: 'error', message: 'MTN MoMo could not process the payment.' },
  COULD_NOT_PERFORM_TRANSACTION: { status: 'error', message: 'MTN MoMo could not perform the payment.' },
  SERVICE_UNAVAILABLE: { status: 'error', message: 'MTN MoMo was unavailable.' },
}

/** A reason as MTN sends it: a string, or {code, message}. */
function reasonCode(reason: unknown): string {
  if (typeof reason === 'string') return reason
  if (reason && typeof reason === 'object' && typeof (reason as { code?: unknown }).code === 'string')
    return (reason as { code: string }).code
  return 'UNKNOWN'
}

/** GET /{resource}/{referenceId}'s answer as our outcome; an unknown status stays pending. */
export function outcomeOfStatus(body: Record<string, unknown>, pollAfterMs: number): ProviderOutcome {
  const providerReference =
    typeof body.financialTransactionId === 'string' ? body.financialTransactionId : undefined
  // MTN's own record of the payment (a 200 for its reference), which proves it holds it.
  const reference = { ...(providerReference ? { providerReference } : {}), fromOperatorRecord: true }
  if (body.status === 'SUCCESSFUL') return { status: 'succeeded', ...reference }
  if (body.status === 'FAILED') {
    const code = reasonCode(body.reason)
    const known = reasons[code] ?? { status: 'failed' as const, message: 'MTN MoMo declined the payment.' }
    const reason: FailureReason = { code: `mtn_${code.toLowerCase()}`, message: known.message }
    return { status: known.status, reason, ...reference }
  }
  // PENDING, or a transient CREATED: ask again later.
  return { status: 'pending', pollAfterMs, ...reference }
}

/** The account balance of a product (`GET /{product}/v1_0/account/balance`). */
export const balancePath = (product: Product) => `/${product}/v1_0/account/balance`

/**
 * `{availableBalance: "1000", currency: "XOF"}` (the simulator's SOURCES.md, "Account balance")
 * as the product's account, or the problem with it: a currency Sika does not hold, an amount
 * that is no amount of it.
 */
export function balanceOfProduct(product: Product, body: unknown): OperatorBalance | string {
  const answer = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {}
  const currency = sikaCurrencyOf(answer.currency)
  if (currency === undefined) return `MTN MoMo's ${product} balance is in a currency Sika does not hold.`
  const balanceMinor = minorUnitsOf(answer.availableBalance, currency)
  if (balanceMinor === undefined) return `MTN MoMo's ${product} balance has no readable availableBalance.`
  return { account: product, currency, balanceMinor, raw: answer }
}
