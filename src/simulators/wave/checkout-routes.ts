import { outcomeForPhoneNumber } from '../test-numbers.ts'
import { playRestrictedPayer, viewContext } from './checkout-flow.ts'
import { type CheckoutSession, endSession, sessionView } from './checkout-store.ts'
import { refusals } from './errors.ts'
import { queryOf, sendEmpty, sendJson } from './http-io.ts'
import { checkoutSessionId } from './ids.ts'
import { acknowledge, refuse } from './respond.ts'
import type { Exchange, SimulatorState } from './state.ts'
import { type CheckoutRequest, checkCheckoutBody, parseJsonObject } from './validation.ts'
import { bookSession } from './wallet.ts'

/** The Checkout API (docs.wave.com/checkout): sessions, their reads, expiry and refund. */

/**
 * A new open session. Restricted to a test number (and with autoPay), 103 is made to expire after
 * the settle delay and 104 never to expire; any other lives `checkoutLifetimeSeconds` (30 min).
 */
function newSession(state: SimulatorState, request: CheckoutRequest): CheckoutSession {
  const { autoPay, settleDelayMs, checkoutLifetimeMs } = state.config
  const outcome =
    request.restrictPayerMobile === undefined ? undefined : outcomeForPhoneNumber(request.restrictPayerMobile)
  const createdAtMs = Date.now()
  const expiresSoon = autoPay && outcome === '103'
  return {
    id: checkoutSessionId(),
    request,
    outcome,
    createdAtMs,
    expiresAtMs: createdAtMs + (expiresSoon ? settleDelayMs : checkoutLifetimeMs),
    expires: !(autoPay && outcome === '104'),
    checkoutStatus: 'open',
    paymentStatus: 'processing',
    transactionId: undefined,
    completedAtMs: undefined,
    lastPaymentError: undefined,
    payerMobile: undefined,
    refundedAtMs: undefined,
  }
}

/** POST /v1/checkout/sessions → 200 with the checkout session object. */
export function createSession(state: SimulatorState, { request, response, body }: Exchange) {
  const parsed = parseJsonObject(request, body)
  if (parsed.refusal) return refuse(response, parsed.refusal)
  const checked = checkCheckoutBody(parsed.value, state.config)
  if (checked.refusal) return refuse(response, checked.refusal)
  const session = newSession(state, checked.value)
  state.checkout.add(session)
  playRestrictedPayer(state, session)
  acknowledge(state, response, session.outcome, sessionView(session, viewContext(state)))
}

/** The session a path names, or a 404 `checkout-session-not-found` already answered. */
function sessionFor(state: SimulatorState, { response }: Exchange, id: string): CheckoutSession | undefined {
  const session = state.checkout.get(decodeURIComponent(id))
  if (session === undefined) refuse(response, refusals.checkoutSessionNotFound())
  return session
}

/** GET /v1/checkout/sessions/:id */
export function getSession(state: SimulatorState, exchange: Exchange, id: string) {
  const session = sessionFor(state, exchange, id)
  if (session) sendJson(exchange.response, 200, sessionView(session, viewContext(state)))
}

function missingQuery(state: SimulatorState, exchange: Exchange, name: string) {
  refuse(
    exchange.response,
    refusals.validation(state.config.validationErrorStatus, [
      { loc: ['query', name], msg: 'field required', type: 'value_error.missing' },
    ]),
  )
}

/** GET /v1/checkout/sessions?transaction_id=… → the one session that payment completed. */
export function getByTransactionId(state: SimulatorState, exchange: Exchange) {
  const transactionId = queryOf(exchange.request.url).get('transaction_id')
  if (transactionId === null || transactionId === '') return missingQuery(state, exchange, 'transaction_id')
  const session = state.checkout.byTransactionId(transactionId)
  if (session === undefined) return refuse(exchange.response, refusals.checkoutSessionNotFound())
  sendJson(exchange.response, 200, sessionView(session, viewContext(state)))
}

/** GET /v1/checkout/sessions/search?client_reference=… → `{result: [sessions]}`, empty when none. */
export function searchSessions(state: SimulatorState, exchange: Exchange) {
  const clientReference = queryOf(exchange.request.url).get('client_reference')
  if (clientReference === null || clientReference === '') {
    return missingQuery(state, exchange, 'client_reference')
  }
  const context = viewContext(state)
  const result = state.checkout
    .byClientReference(clientReference)
    .map((session) => sessionView(session, context))
  sendJson(exchange.response, 200, { result })
}

/** POST /v1/checkout/sessions/:id/expire → 200 with no body; only an open session can be expired. */
export function expireSession(state: SimulatorState, exchange: Exchange, id: string) {
  const session = sessionFor(state, exchange, id)
  if (session === undefined) return
  if (session.checkoutStatus !== 'open') return refuse(exchange.response, refusals.checkoutSessionNotOpen())
  endSession(session)
  sendEmpty(exchange.response, 200)
}

/**
 * POST /v1/checkout/sessions/:id/refund → 200 with no body. Idempotent: refunding a refunded
 * session succeeds again without a second refund. Only a paid session can be refunded.
 */
export function refundSession(state: SimulatorState, exchange: Exchange, id: string) {
  const session = sessionFor(state, exchange, id)
  if (session === undefined) return
  if (session.paymentStatus !== 'succeeded') return refuse(exchange.response, refusals.checkoutRefundFailed())
  session.refundedAtMs ??= Date.now()
  bookSession(state, session)
  sendEmpty(exchange.response, 200)
}
