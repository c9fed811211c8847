import type { ServerResponse } from 'node:http'
import { outcomeForPhoneNumber } from '../test-numbers.ts'
import { initiationAnswer, rejectInitiation, unknownErrorAnswer } from './answers.ts'
import { checkInitiationBody, type InitiationBody, idInBody } from './bodies.ts'
import { type Refusal, technical } from './errors.ts'
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

/** What pawaPay makes of one well-formed initiation: the payment it holds, or its refusal. */
export type Admission =
  | { readonly status: 'ACCEPTED' | 'DUPLICATE_IGNORED'; readonly payment: Payment }
  | { readonly status: 'REJECTED'; readonly id: string; readonly refusal: Refusal }

/**
 * One well-formed initiation, alone or in a bulk: a repeated id is DUPLICATE_IGNORED (before the
 * values, so a retry of an accepted request is never rejected), then its values (REJECTED), then
 * the payment is ACCEPTED and settles, or stays ENQUEUED while payouts are held.
 */
export function admit(state: SimulatorState, spec: OperationSpec, body: InitiationBody): Admission {
  const known = state.ledger.get(spec.kind, body.id)
  if (known) {
    state.receipts.answered(known, 'DUPLICATE_IGNORED')
    return { status: 'DUPLICATE_IGNORED', payment: known }
  }
  const terms = termsOf(state, spec, body)
  if (terms.refusal) return { status: 'REJECTED', id: body.id, refusal: terms.refusal }
  const payment = newPayment(spec, body, terms.value)
  state.ledger.add(payment)
  state.receipts.answered(payment, 'ACCEPTED')
  if (spec.queued && state.holdPayouts) payment.status = 'ENQUEUED'
  else settleLater(state, payment)
  return { status: 'ACCEPTED', payment }
}

/**
 * POST /v2/deposits, /v2/payouts, /v2/refunds: the body's shape (400 when wrong), then the
 * admission (SOURCES.md, "Initiation").
 */
export function initiate(spec: OperationSpec) {
  return (state: SimulatorState, { response, body }: Exchange) => {
    const checked = checkInitiationBody(body, spec)
    if (checked.refusal) return rejectInitiation(response, spec, idInBody(body, spec), checked.refusal)
    const admission = admit(state, spec, checked.value)
    if (admission.status === 'REJECTED')
      return rejectInitiation(response, spec, admission.id, admission.refusal)
    if (admission.status === 'DUPLICATE_IGNORED')
      return sendJson(response, 200, initiationAnswer(admission.payment, 'DUPLICATE_IGNORED'))
    acknowledge(state, response, admission.payment)
  }
}
