import { answerBookControl } from '../book-control.ts'
import { answerSharedControl } from '../control.ts'
import { attemptPayment, declinePayment } from './checkout-flow.ts'
import { connectionEntry } from './connection.ts'
import {
  forcePayout,
  forceSession,
  parseForcedPayout,
  parseForcedSession,
  payoutControlView,
  sessionControlView,
} from './control-force.ts'
import { sendEmpty, sendJson } from './http-io.ts'
import type { Exchange, SimulatorState } from './state.ts'
import { walletKeeper } from './wallet-keeper.ts'

/**
 * Paths under /_simulator/ for tests and people: not part of Wave's API, so they need no key.
 *
 *   GET  /_simulator/sessions                     every checkout session, oldest first
 *   GET  /_simulator/sessions/{id}                one session
 *   POST /_simulator/sessions/{id}/pay            {"mobile"?}: the payer pays, as on the hosted page
 *   POST /_simulator/sessions/{id}/decline        the payer declines
 *   POST /_simulator/sessions/{id}/status         {"status": "succeeded"|"failed"|"expired", "code"?,
 *                                                  "message"?, "mobile"?, "webhook"?: boolean}
 *   GET  /_simulator/payouts                      every payout, oldest first
 *   GET  /_simulator/payouts/{id}                 one payout
 *   POST /_simulator/payouts/{id}/status          {"status", "error_code"?, "error_message"?}
 *   POST /_simulator/webhooks/test                sends a `test.test_event`, as the portal's test button
 *   POST /_simulator/expire-tokens                nothing: Wave's API keys do not expire
 *   POST /_simulator/revoke-api-key               the key answers `api-key-revoked` from now on
 *   POST /_simulator/restore-api-key              the key works again
 *   GET  /_simulator/callbacks                    every webhook delivery tried, and its answer
 *   GET  /_simulator/requests                     every request received
 *   GET  /_simulator/connection?channel=&countries=  the OPERATORS_FILE entry for this simulator
 *   GET|POST /_simulator/books/...                the wallet (account `wallet`): its float, a seeded day,
 *                                                 and each break (src/simulators/book-control.ts)
 */
export const controlPrefix = '/_simulator/'

function parseObject(body: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(body === '' ? '{}' : body)
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

function unknownPath({ response, path }: Exchange) {
  sendJson(response, 404, { error: `Unknown control path ${path}` })
}

function sessionAction(state: SimulatorState, exchange: Exchange, id: string, action: string) {
  const session = state.checkout.get(id)
  if (session === undefined) return sendJson(exchange.response, 404, { error: 'No such checkout session' })
  const body = parseObject(exchange.body)
  if (body === undefined) return sendJson(exchange.response, 400, { error: 'Expected a JSON object' })
  if (action === 'pay' || action === 'decline') {
    const mobile = typeof body.mobile === 'string' ? body.mobile : undefined
    const result = action === 'pay' ? attemptPayment(state, session, mobile) : declinePayment(state, session)
    return sendJson(exchange.response, 200, { result, session: sessionControlView(state, session) })
  }
  const forced = parseForcedSession(body)
  if (forced === undefined) {
    return sendJson(exchange.response, 400, {
      error: 'Expected {"status": "succeeded"|"failed"|"expired", …}',
    })
  }
  if (!forceSession(state, session, forced))
    return sendJson(exchange.response, 409, { error: 'Session not open' })
  sendJson(exchange.response, 200, sessionControlView(state, session))
}

function sessionRoutes(state: SimulatorState, exchange: Exchange, [id, action]: string[]) {
  const method = exchange.request.method ?? 'GET'
  if (id === undefined && method === 'GET') {
    return sendJson(
      exchange.response,
      200,
      state.checkout.all().map((session) => sessionControlView(state, session)),
    )
  }
  if (id !== undefined && action === undefined && method === 'GET') {
    const session = state.checkout.get(id)
    if (session === undefined) return sendJson(exchange.response, 404, { error: 'No such checkout session' })
    return sendJson(exchange.response, 200, sessionControlView(state, session))
  }
  const actions = ['pay', 'decline', 'status']
  if (id !== undefined && action !== undefined && actions.includes(action) && method === 'POST') {
    return sessionAction(state, exchange, id, action)
  }
  unknownPath(exchange)
}

function payoutRoutes(state: SimulatorState, exchange: Exchange, [id, action]: string[]) {
  const method = exchange.request.method ?? 'GET'
  const { response } = exchange
  if (id === undefined && method === 'GET')
    return sendJson(response, 200, state.payouts.all().map(payoutControlView))
  const payout = id === undefined ? undefined : state.payouts.get(id)
  if (id !== undefined && payout === undefined) return sendJson(response, 404, { error: 'No such payout' })
  if (payout !== undefined && action === undefined && method === 'GET') {
    return sendJson(response, 200, payoutControlView(payout))
  }
  if (payout !== undefined && action === 'status' && method === 'POST') {
    const forced = parseForcedPayout(parseObject(exchange.body) ?? {})
    if (forced === undefined)
      return sendJson(response, 400, { error: 'Expected {"status", "error_code"?, …}' })
    forcePayout(state, payout, forced)
    return sendJson(response, 200, payoutControlView(payout))
  }
  unknownPath(exchange)
}

/** The control paths that act on the simulator itself rather than on one object. */
function simulatorRoutes(state: SimulatorState, exchange: Exchange, name: string) {
  const { request, response } = exchange
  const post = request.method === 'POST'
  const shared = answerSharedControl(exchange, name, {
    sent: state.webhooks.sent,
    sentPath: 'callbacks',
    requests: state.requests,
    defaultChannel: 'wave',
    connection: (channel, countries) => connectionEntry(state, channel, countries),
    // Wave's API keys do not expire: there is nothing to expire.
    expireTokens: () => {},
    sendJson,
  })
  if (shared) return
  if ((name === 'revoke-api-key' || name === 'restore-api-key') && post) {
    state.apiKeyRevoked = name === 'revoke-api-key'
    return sendEmpty(response, 204)
  }
  unknownPath(exchange)
}

export function handleControl(state: SimulatorState, exchange: Exchange) {
  const [name = '', ...rest] = exchange.path.slice(controlPrefix.length).split('/').filter(Boolean)
  const parts = rest.map((part) => decodeURIComponent(part))
  if (answerBookControl(exchange, name, parts, walletKeeper(state))) return
  if (name === 'sessions') return sessionRoutes(state, exchange, parts)
  if (name === 'payouts') return payoutRoutes(state, exchange, parts)
  if (name === 'webhooks' && parts[0] === 'test' && exchange.request.method === 'POST') {
    state.webhooks.send('test.test_event', {})
    return sendEmpty(exchange.response, 202)
  }
  simulatorRoutes(state, exchange, name)
}
