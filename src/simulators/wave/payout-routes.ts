import { outcomeForPhoneNumber } from '../test-numbers.ts'
import { payoutFee } from './amounts.ts'
import { refusals } from './errors.ts'
import { header, queryOf, sendEmpty, sendJson } from './http-io.ts'
import { payoutId } from './ids.ts'
import { applyPayoutStatus, executePayout } from './payout-flow.ts'
import { canonicalJson, type Payout, payoutView } from './payout-store.ts'
import { acknowledge, refuse } from './respond.ts'
import type { Exchange, SimulatorState } from './state.ts'
import { checkPayoutBody, type PayoutRequest, parseJsonObject } from './validation.ts'
import { bookPayout } from './wallet.ts'

/** The Payout API (docs.wave.com/payout): a payout, its read, its search and its reversal. */

const idempotencyKeyMaxLength = 255

function newPayout(state: SimulatorState, request: PayoutRequest, idempotencyKey: string): Payout {
  return {
    id: payoutId(),
    request,
    fee: payoutFee(request.receiveAmount, request.currency, state.config.payoutFeePercent),
    outcome: outcomeForPhoneNumber(request.mobile),
    createdAtMs: Date.now(),
    idempotencyKey,
    status: 'processing',
    payoutError: undefined,
    settledAtMs: undefined,
    reversedAtMs: undefined,
  }
}

/** The Idempotency-Key every POST /v1/payout needs (docs "Idempotency"), or undefined once refused. */
function idempotencyKeyOf(state: SimulatorState, { request, response }: Exchange): string | undefined {
  const key = header(request, 'Idempotency-Key')
  const status = state.config.validationErrorStatus
  if (key === undefined || key === '') {
    refuse(
      response,
      refusals.validationMessage(status, "An 'Idempotency-Key' header is required for POST requests"),
    )
    return undefined
  }
  if (key.length > idempotencyKeyMaxLength) {
    refuse(
      response,
      refusals.validationMessage(status, 'The Idempotency-Key must be at most 255 characters.'),
    )
    return undefined
  }
  return key
}

/**
 * POST /v1/payout. A key already used with the same body answers the payout it created, as it is
 * now, and sends nothing again; with another body it is a 409 `idempotency-mismatch`.
 */
export function createPayout(state: SimulatorState, exchange: Exchange) {
  const { request, response, body } = exchange
  const key = idempotencyKeyOf(state, exchange)
  if (key === undefined) return
  const parsed = parseJsonObject(request, body)
  if (parsed.refusal) return refuse(response, parsed.refusal)
  const fingerprint = canonicalJson(parsed.value)
  const previous = state.payouts.byIdempotencyKey(key)
  if (previous !== undefined) {
    if (previous.fingerprint !== fingerprint) return refuse(response, refusals.idempotencyMismatch())
    return sendJson(response, 200, payoutView(previous.payout))
  }
  const checked = checkPayoutBody(parsed.value, state.config)
  if (checked.refusal) return refuse(response, checked.refusal)
  const payout = newPayout(state, checked.value, key)
  state.payouts.add(payout, fingerprint)
  executePayout(state, payout)
  acknowledge(state, response, payout.outcome, payoutView(payout))
}

function payoutFor(state: SimulatorState, { response }: Exchange, id: string): Payout | undefined {
  const payout = state.payouts.get(decodeURIComponent(id))
  if (payout === undefined) refuse(response, refusals.notFound())
  return payout
}

/** GET /v1/payout/:id */
export function getPayout(state: SimulatorState, exchange: Exchange, id: string) {
  const payout = payoutFor(state, exchange, id)
  if (payout) sendJson(exchange.response, 200, payoutView(payout))
}

/** GET /v1/payouts/search?client_reference=… → `{result: [payouts]}`, empty when none. */
export function searchPayouts(state: SimulatorState, exchange: Exchange) {
  const clientReference = queryOf(exchange.request.url).get('client_reference')
  if (clientReference === null || clientReference === '') {
    return refuse(
      exchange.response,
      refusals.validation(state.config.validationErrorStatus, [
        { loc: ['query', 'client_reference'], msg: 'field required', type: 'value_error.missing' },
      ]),
    )
  }
  const result = state.payouts.byClientReference(clientReference).map(payoutView)
  sendJson(exchange.response, 200, { result })
}

/**
 * POST /v1/payout/:id/reverse → 200 with no body; the fee is reversed too. Idempotent: a reversed
 * payout answers 200 again. Only within the reversal window of a succeeded payout.
 */
export function reversePayout(state: SimulatorState, exchange: Exchange, id: string) {
  const payout = payoutFor(state, exchange, id)
  if (payout === undefined) return
  if (payout.status === 'reversed') return sendEmpty(exchange.response, 200)
  if (payout.status !== 'succeeded') return refuse(exchange.response, refusals.payoutNotReversible())
  if (Date.now() - payout.createdAtMs > state.config.payoutReversalWindowMs) {
    return refuse(exchange.response, refusals.payoutReversalTimeLimitExceeded())
  }
  applyPayoutStatus(payout, { status: 'reversed' })
  bookPayout(state, payout)
  sendEmpty(exchange.response, 200)
}
