import type { ServerResponse } from 'node:http'
import { outcomeForPhoneNumber } from '../test-numbers.ts'
import { initiationAnswer, rejectInitiation, unknownErrorAnswer } from './answers.ts'
import { checkInitiationBody, type InitiationBody, idInBody } from './bodies.ts'
import { technical } from './errors.ts'
import type { Checked } from './fields.ts'
import { type Exchange, sendJson } from './http-io.ts'
import type { Payment } from './ledger.ts'
import type { OperationSpec } from './operations.ts'
import { checkRefundRules } from './refunds.ts'
import { checkPaymentRules } from './rules.ts'
import { settleLater } from './settlement.ts'
import type { SimulatorState } from './state.ts'

/** `created` as pawaPay writes it: UTC to the second ("2020-10-19T11:17:01Z"). */
function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
}

type PaymentTerms = Pick<Payment, 'amount' | 'currency' | 'country' | 'accountDetails'>

/** What the payment moves, and to or from whom, once the rules accept it. */
function termsOf(state: SimulatorState, spec: OperationSpec, body: InitiationBody): Checked<PaymentTerms> {
  // A refund names no party: its recipient is the refunded deposit's payer.
  if (!spec.partyInBody) {
    const refund = checkRefundRules(state, body)
    if (refund.refusal) return refund
    const { deposit, amount, currency } = refund.value
    return { value: { amount, currency, country: deposit.country, accountDetails: deposit.accountDetails } }
  }
  const details = body.accountDetails
  const amount = body.amount ?? ''
  const currency = body.currency ?? ''
  if (details === undefined) return { refusal: technical.missingParameter(spec.partyField) }
  const provider = checkPaymentRules(state.config, spec.kind, details, amount, currency)
  if (provider.refusal) return provider
  return { value: { amount, currency, country: provider.value.country, accountDetails: details } }
}

function newPayment(spec: OperationSpec, body: InitiationBody, terms: PaymentTerms): Payment {
  const createdAtMs = Date.now()
  return {
    spec,
    id: body.id,
    ...terms,
    customerMessage: body.customerMessage,
    clientReferenceId: body.clientReferenceId,
    metadata: body.metadata,
    depositId: body.depositId,
    outcome: outcomeForPhoneNumber(terms.accountDetails.phoneNumber),
    createdAtMs,
    created: timestamp(createdAtMs),
    status: 'ACCEPTED',
    failureReason: undefined,
    providerTransactionId: undefined,
    settledAtMs: undefined,
    callbackSent: false,
  }
}

/** Answers a stored payment as its test number says: 106 with a 500, 107 only after hangMs. */
function acknowledge(state: SimulatorState, response: ServerResponse, payment: Payment) {
  if (payment.outcome === '106') {
    const refusal = technical.unknownError()
    return sendJson(response, refusal.status, unknownErrorAnswer(payment, refusal))
  }
  const answer = initiationAnswer(payment, 'ACCEPTED')
  if (payment.outcome === '107') {
    return state.timers.after(state.config.hangMs, () => sendJson(response, 200, answer))
  }
  sendJson(response, 200, answer)
}

/**
 * POST /v2/deposits, /v2/payouts, /v2/refunds: the body's shape (400 when wrong), then a repeated
 * id (DUPLICATE_IGNORED), then its values (200 REJECTED), then the payment is ACCEPTED and settles.
 */
export function initiate(spec: OperationSpec) {
  return (state: SimulatorState, { response, body }: Exchange) => {
    const checked = checkInitiationBody(body, spec)
    if (checked.refusal) return rejectInitiation(response, spec, idInBody(body, spec), checked.refusal)
    const known = state.ledger.get(spec.kind, checked.value.id)
    if (known) return sendJson(response, 200, initiationAnswer(known, 'DUPLICATE_IGNORED'))
    const terms = termsOf(state, spec, checked.value)
    if (terms.refusal) return rejectInitiation(response, spec, checked.value.id, terms.refusal)
    const payment = newPayment(spec, checked.value, terms.value)
    state.ledger.add(payment)
    settleLater(state, payment)
    acknowledge(state, response, payment)
  }
}
