import { fromUnits, toUnits } from './amounts.ts'
import type { InitiationBody } from './bodies.ts'
import { rejections } from './errors.ts'
import type { Checked } from './fields.ts'
import { isFinal, type Payment } from './ledger.ts'
import { deposit } from './operations.ts'
import { checkAmount, checkProvider } from './rules.ts'
import type { SimulatorState } from './state.ts'

export interface RefundTerms {
  readonly deposit: Payment
  readonly amount: string
  readonly currency: string
}

/** What of a deposit is still refundable: its amount less the refunds that completed. */
function remainingUnits(state: SimulatorState, refunded: Payment): bigint {
  const done = state.ledger
    .refundsOf(refunded.id)
    .filter((payment) => payment.status === 'COMPLETED')
    .reduce((sum, payment) => sum + toUnits(payment.amount), 0n)
  return toUnits(refunded.amount) - done
}

/** The deposit a refund names: known, COMPLETED, and with no other refund under way. */
function refundableDeposit(state: SimulatorState, depositId: string): Checked<Payment> {
  const refunded = state.ledger.get('deposit', depositId)
  if (refunded === undefined) return { refusal: rejections.notFound(deposit.label, depositId) }
  if (refunded.status !== 'COMPLETED') {
    return { refusal: rejections.invalidState(deposit.label, depositId, 'is not in COMPLETED status.') }
  }
  if (state.ledger.refundsOf(refunded.id).some((payment) => !isFinal(payment.status))) {
    return { refusal: rejections.refundInProgress(depositId) }
  }
  if (remainingUnits(state, refunded) <= 0n) return { refusal: rejections.depositAlreadyRefunded(depositId) }
  return { value: refunded }
}

/**
 * A refund's values, checked as pawaPay's refund failure codes describe: NOT_FOUND, INVALID_STATE,
 * REFUND_IN_PROGRESS, DEPOSIT_ALREADY_REFUNDED, INVALID_CURRENCY, INVALID_AMOUNT,
 * AMOUNT_OUT_OF_BOUNDS and AMOUNT_TOO_LARGE, each answered 200 REJECTED.
 */
export function checkRefundRules(state: SimulatorState, body: InitiationBody): Checked<RefundTerms> {
  const refunded = refundableDeposit(state, body.depositId ?? '')
  if (refunded.refusal) return refunded
  const source = refunded.value
  const provider = checkProvider(state.config, source.accountDetails.provider)
  if (provider.refusal) return provider
  if (body.currency !== undefined && body.currency !== source.currency) {
    return { refusal: rejections.invalidCurrency(body.currency, provider.value.code) }
  }
  const remaining = remainingUnits(state, source)
  const amount = body.amount ?? fromUnits(remaining)
  const refusal = checkAmount(state.config, provider.value, amount, source.currency, 'refund')
  if (refusal) return { refusal }
  if (toUnits(amount) > remaining) return { refusal: rejections.amountTooLarge() }
  return { value: { deposit: source, amount, currency: source.currency } }
}
