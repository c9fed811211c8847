import type { ServerResponse } from 'node:http'
import { answerBookControl } from '../book-control.ts'
import { answerSharedControl } from '../control.ts'
import { connectionEntry } from './connection.ts'
import { isObject } from './fields.ts'
import { type Exchange, sendJson } from './http-io.ts'
import { type Payment, type PaymentStatus, paymentStatuses } from './ledger.ts'
import type { OperationKind } from './operations.ts'
import { holdPayouts } from './queue.ts'
import { type ForcedStatus, forceStatus } from './settlement.ts'
import type { SimulatorState } from './state.ts'
import { completeStatement, failStatement, holdStatements, statementData } from './statements.ts'
import { statusData } from './views.ts'
import { walletKeeper } from './wallet-keeper.ts'

/**
 * Paths under /_simulator/ for tests and people: not part of pawaPay's API, so they need no token.
 *
 *   GET  /_simulator/transactions                  every payment, oldest first
 *   GET  /_simulator/transactions/{id}             the payments with that id
 *   POST /_simulator/transactions/{id}/status
 *        {"status": "COMPLETED"|"FAILED"|"PROCESSING"|…, "failureCode"?, "failureMessage"?,
 *         "callback"?: boolean, "operation"?: "deposit"|"payout"|"refund"}
 *   POST /_simulator/payout-queue  {"hold": true|false}
 *        true: new payouts stay ENQUEUED (their provider delayed) until released or failed;
 *        false: releases every ENQUEUED payout to settle as its test number says
 *   GET  /_simulator/bulk-requests                 every POST /v2/payouts/bulk: [{size, receivedAtMs}]
 *   GET  /_simulator/acceptances                   per id: how often answered ACCEPTED and DUPLICATE_IGNORED
 *   POST /_simulator/expire-tokens                 revokes the API token and issues the next one
 *   GET  /_simulator/callbacks                     every callback attempt and how it was answered
 *   GET  /_simulator/requests                      every request received
 *   GET  /_simulator/connection?channel=&countries=  the OPERATORS_FILE entry for this simulator
 *   GET  /_simulator/statements                    every statement asked for, as its status check shows it
 *   POST /_simulator/statements  {"hold": true|false}
 *        true: statements stay PROCESSING (a generation that never ends); false: generates every held one
 *   POST /_simulator/statements/{id}/status  {"status": "COMPLETED"|"FAILED"}: ends its generation now
 *   GET|POST /_simulator/books/...                 the wallets (`BEN/XOF`): floats, a seeded day (with
 *        "provider"), and each break of the reconciliation (src/simulators/book-control.ts)
 */
export const controlPrefix = '/_simulator/'

export interface ControlView {
  readonly operation: OperationKind
  readonly id: string
  readonly outcome: string
  readonly status: PaymentStatus
  readonly callbackUrl: string | undefined
  readonly callbackSent: boolean
  readonly createdAtMs: number
  readonly settledAtMs: number | undefined
  /** What a status check answers in `data`. */
  readonly view: Record<string, unknown>
}

export function controlView(state: SimulatorState, payment: Payment): ControlView {
  return {
    operation: payment.spec.kind,
    id: payment.id,
    outcome: payment.outcome,
    status: payment.status,
    callbackUrl: state.config.callbackUrls[payment.spec.kind],
    callbackSent: payment.callbackSent,
    createdAtMs: payment.createdAtMs,
    settledAtMs: payment.settledAtMs,
    view: statusData(payment),
  }
}

export type ForceRequest = ForcedStatus & { readonly operation?: OperationKind }

function parseForced(body: string): ForceRequest | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return undefined
  }
  if (!isObject(parsed)) return undefined
  const { status, failureCode, failureMessage, callback, operation } = parsed
  if (!paymentStatuses.includes(status as PaymentStatus)) return undefined
  const optionalText = (value: unknown) => value === undefined || typeof value === 'string'
  if (!optionalText(failureCode) || !optionalText(failureMessage) || !optionalText(operation))
    return undefined
  if (callback !== undefined && typeof callback !== 'boolean') return undefined
  return { status, failureCode, failureMessage, callback, operation } as ForceRequest
}

/** Forces the one payment with this id (and operation, when given). */
export function forceById(state: SimulatorState, id: string, forced: ForceRequest) {
  const matches = state.ledger
    .withId(id)
    .filter((payment) => forced.operation === undefined || payment.spec.kind === forced.operation)
  const [payment] = matches
  if (payment === undefined || matches.length > 1) return { found: matches.length }
  forceStatus(state, payment, forced)
  return { found: 1, payment }
}

function forceFromRequest(state: SimulatorState, id: string, body: string, response: ServerResponse) {
  const forced = parseForced(body)
  if (forced === undefined) {
    return sendJson(response, 400, {
      error: `Expected {"status": ${paymentStatuses.join('|')}, "failureCode"?, "failureMessage"?, "callback"?, "operation"?}`,
    })
  }
  const { found, payment } = forceById(state, id, forced)
  if (payment !== undefined) return sendJson(response, 200, controlView(state, payment))
  if (found === 0) return sendJson(response, 404, { error: 'No such payment' })
  sendJson(response, 409, { error: 'Several payments match: give "operation"' })
}

function transactionRoutes(
  state: SimulatorState,
  { request, response, path, body }: Exchange,
  rest: string[],
) {
  const [id, action] = rest
  const views = (payments: readonly Payment[]) => payments.map((payment) => controlView(state, payment))
  if (id === undefined) return sendJson(response, 200, views(state.ledger.all()))
  if (action === undefined && request.method === 'GET') {
    const found = state.ledger.withId(id)
    return found.length === 0
      ? sendJson(response, 404, { error: 'No such payment' })
      : sendJson(response, 200, views(found))
  }
  if (action === 'status' && request.method === 'POST') return forceFromRequest(state, id, body, response)
  sendJson(response, 404, { error: `Unknown control path ${path}` })
}

function payoutQueueRoute(state: SimulatorState, { request, response, body }: Exchange) {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    parsed = undefined
  }
  const hold = isObject(parsed) ? parsed.hold : undefined
  if (request.method !== 'POST' || typeof hold !== 'boolean')
    return sendJson(response, 400, { error: 'Expected POST {"hold": true|false}' })
  const enqueued = holdPayouts(state, hold)
  sendJson(response, 200, { hold, [hold ? 'enqueued' : 'released']: enqueued })
}

/** The control paths of issue 45's bulk payouts and fail-enqueued, by name. */
const queueRoutes: Record<string, (state: SimulatorState, exchange: Exchange) => void> = {
  'payout-queue': payoutQueueRoute,
  'bulk-requests': (state, { response }) => sendJson(response, 200, state.receipts.bulks),
  acceptances: (state, { response }) => sendJson(response, 200, state.receipts.acceptances()),
}

function statementRoutes(
  state: SimulatorState,
  { request, response, body }: Exchange,
  [id, action]: string[],
) {
  let parsed: unknown
  try {
    parsed = JSON.parse(body === '' ? '{}' : body)
  } catch {
    parsed = undefined
  }
  const fields = isObject(parsed) ? parsed : {}
  if (id === undefined && request.method === 'GET')
    return sendJson(
      response,
      200,
      state.statements.all().map((statement) => statementData(state, statement)),
    )
  if (id === undefined && request.method === 'POST' && typeof fields.hold === 'boolean') {
    const held = holdStatements(state, fields.hold)
    return sendJson(response, 200, { hold: fields.hold, [fields.hold ? 'processing' : 'released']: held })
  }
  const statement = id === undefined ? undefined : state.statements.get(id)
  if (statement !== undefined && action === 'status' && request.method === 'POST') {
    if (fields.status === 'COMPLETED') completeStatement(state, statement)
    else if (fields.status === 'FAILED') failStatement(state, statement)
    else return sendJson(response, 400, { error: 'Expected {"status": "COMPLETED"|"FAILED"}' })
    return sendJson(response, 200, statementData(state, statement))
  }
  sendJson(response, statement === undefined && id !== undefined ? 404 : 400, {
    error: 'Expected GET, POST {"hold": true|false}, or POST {id}/status {"status"}',
  })
}

export function handleControl(state: SimulatorState, exchange: Exchange) {
  const { response, path } = exchange
  const [name = '', ...rest] = path.slice(controlPrefix.length).split('/').filter(Boolean)
  if (name === 'transactions') return transactionRoutes(state, exchange, rest)
  if (name === 'statements') return statementRoutes(state, exchange, rest)
  if (answerBookControl(exchange, name, rest, walletKeeper(state))) return
  const queueRoute = Object.hasOwn(queueRoutes, name) ? queueRoutes[name] : undefined
  if (queueRoute !== undefined && rest.length === 0) return queueRoute(state, exchange)
  const shared = answerSharedControl(exchange, name, {
    sent: state.callbacks.sent,
    sentPath: 'callbacks',
    requests: state.requests,
    defaultChannel: 'mtn-momo',
    connection: (channel, countries) => connectionEntry(state, channel, countries),
    expireTokens: () => state.tokens.revokeAll(),
    sendJson,
  })
  if (!shared) sendJson(response, 404, { error: `Unknown control path ${path}` })
}
