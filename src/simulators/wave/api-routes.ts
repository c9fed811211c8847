import { checkApiKey } from './auth.ts'
import { getBalance, listTransactions } from './balance-routes.ts'
import {
  createSession,
  expireSession,
  getByTransactionId,
  getSession,
  refundSession,
  searchSessions,
} from './checkout-routes.ts'
import { refusals } from './errors.ts'
import { createPayout, getPayout, reversePayout, searchPayouts } from './payout-routes.ts'
import { refuse } from './respond.ts'
import type { Exchange, SimulatorState } from './state.ts'

type Handler = (state: SimulatorState, exchange: Exchange, id: string) => void

interface Route {
  readonly method: 'GET' | 'POST'
  /** The path; its one capture group, when there is one, is the object's id. */
  readonly pattern: RegExp
  readonly run: Handler
}

const id = '([^/]+)'

/** The operations of the Checkout, Payout and Balance APIs, the fixed paths before the ones with an id. */
const routes: readonly Route[] = [
  { method: 'POST', pattern: /^\/v1\/checkout\/sessions$/, run: createSession },
  { method: 'GET', pattern: /^\/v1\/checkout\/sessions$/, run: getByTransactionId },
  { method: 'GET', pattern: /^\/v1\/checkout\/sessions\/search$/, run: searchSessions },
  { method: 'GET', pattern: new RegExp(`^/v1/checkout/sessions/${id}$`), run: getSession },
  { method: 'POST', pattern: new RegExp(`^/v1/checkout/sessions/${id}/expire$`), run: expireSession },
  { method: 'POST', pattern: new RegExp(`^/v1/checkout/sessions/${id}/refund$`), run: refundSession },
  { method: 'POST', pattern: /^\/v1\/payout$/, run: createPayout },
  { method: 'GET', pattern: /^\/v1\/payouts\/search$/, run: searchPayouts },
  { method: 'GET', pattern: new RegExp(`^/v1/payout/${id}$`), run: getPayout },
  { method: 'POST', pattern: new RegExp(`^/v1/payout/${id}/reverse$`), run: reversePayout },
  { method: 'GET', pattern: /^\/v1\/balance$/, run: getBalance },
  { method: 'GET', pattern: /^\/v1\/transactions$/, run: listTransactions },
]

/**
 * Answers one call to Wave's API: a path it does not publish is a 404, a published path with
 * another method a 405 (docs "HTTP status codes"), then the API key is checked before anything.
 */
export function handleApiCall(state: SimulatorState, exchange: Exchange) {
  const method = exchange.request.method ?? 'GET'
  const matching = routes.filter((route) => route.pattern.test(exchange.path))
  if (matching.length === 0) return refuse(exchange.response, refusals.unknownPath())
  const route = matching.find((candidate) => candidate.method === method)
  if (route === undefined) return refuse(exchange.response, refusals.methodNotAllowed())
  const refusal = checkApiKey(state, exchange.request)
  if (refusal) return refuse(exchange.response, refusal)
  route.run(state, exchange, route.pattern.exec(exchange.path)?.[1] ?? '')
}
