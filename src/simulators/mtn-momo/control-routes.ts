import type { ServerResponse } from 'node:http'
import { answerBookControl } from '../book-control.ts'
import { answerSharedControl } from '../control.ts'
import { accountKeeper } from './account-keeper.ts'
import type { Exchange } from './api-routes.ts'
import { connectionEntry } from './connection.ts'
import { sendJson } from './http-io.ts'
import { type MomoTransaction, statusView } from './ledger.ts'
import type { MomoStatus } from './operations.ts'
import { type ForcedStatus, forceStatus } from './settlement.ts'
import type { SimulatorState } from './state.ts'

/**
 * Paths under /_simulator/ for tests and people: not part of MTN's API, so they need no credentials.
 *
 *   GET  /_simulator/transactions                    every transaction, oldest first
 *   GET  /_simulator/transactions/{referenceId}      the transactions with that reference id
 *   POST /_simulator/transactions/{referenceId}/status
 *        {"status": "SUCCESSFUL"|"FAILED"|"PENDING", "reason"?, "callback"?: boolean, "resource"?}
 *   POST /_simulator/expire-tokens                   every access token issued so far stops working
 *   GET  /_simulator/callbacks                       every callback sent and how it was answered
 *   GET  /_simulator/requests                        every request received
 *   GET  /_simulator/connection?channel=&countries=  the OPERATORS_FILE entry for this simulator
 *   GET|POST /_simulator/books/...                   the accounts of `collection` and `disbursement`:
 *        their float, seeded lines, and the breaks that apply to an operator without statements
 *        (silent-success, balance-drift; src/simulators/book-control.ts)
 */
export const controlPrefix = '/_simulator/'

export interface ControlView {
  readonly resource: string
  readonly operation: string
  readonly referenceId: string
  readonly product: string
  readonly outcome: string
  readonly status: MomoStatus
  readonly reason: string | undefined
  readonly callbackUrl: string | undefined
  readonly callbackSent: boolean
  readonly createdAtMs: number
  readonly settledAtMs: number | undefined
  /** What GET status answers for it. */
  readonly view: Record<string, unknown>
}

export function controlView(state: SimulatorState, transaction: MomoTransaction): ControlView {
  return {
    resource: transaction.spec.resource,
    operation: transaction.spec.createPath,
    referenceId: transaction.referenceId,
    product: transaction.spec.product,
    outcome: transaction.outcome,
    status: transaction.status,
    reason: transaction.reason,
    callbackUrl: transaction.callbackUrl,
    callbackSent: transaction.callbackSent,
    createdAtMs: transaction.createdAtMs,
    settledAtMs: transaction.settledAtMs,
    view: statusView(transaction, state.config.reasonFormat),
  }
}

function parseForced(body: string): ForceRequest | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return undefined
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined
  const { status, reason, callback, resource } = parsed as Record<string, unknown>
  const statuses: readonly unknown[] = ['PENDING', 'SUCCESSFUL', 'FAILED']
  if (!statuses.includes(status)) return undefined
  if (reason !== undefined && typeof reason !== 'string') return undefined
  if (callback !== undefined && typeof callback !== 'boolean') return undefined
  if (resource !== undefined && typeof resource !== 'string') return undefined
  return { status: status as MomoStatus, reason, callback, resource }
}

export type ForceRequest = ForcedStatus & { readonly resource?: string }

/** Forces the one transaction with this reference id (and resource, when given). */
export function forceByReference(state: SimulatorState, referenceId: string, forced: ForceRequest) {
  const matches = state.ledger
    .withReference(referenceId)
    .filter((transaction) => forced.resource === undefined || transaction.spec.resource === forced.resource)
  const [transaction] = matches
  if (transaction === undefined || matches.length > 1) return { found: matches.length }
  forceStatus(state, transaction, forced)
  return { found: 1, transaction }
}

function forceFromRequest(
  state: SimulatorState,
  referenceId: string,
  body: string,
  response: ServerResponse,
) {
  const forced = parseForced(body)
  if (forced === undefined) {
    return sendJson(response, 400, {
      error: 'Expected {"status": "PENDING"|"SUCCESSFUL"|"FAILED", "reason"?, "callback"?, "resource"?}',
    })
  }
  const { found, transaction } = forceByReference(state, referenceId, forced)
  if (transaction !== undefined) return sendJson(response, 200, controlView(state, transaction))
  if (found === 0) return sendJson(response, 404, { error: 'No such transaction' })
  sendJson(response, 409, { error: 'Several transactions match: give "resource"' })
}

function transactionRoutes(
  state: SimulatorState,
  { request, response, path, body }: Exchange,
  rest: string[],
) {
  const [referenceId, action] = rest
  if (referenceId === undefined) {
    return sendJson(
      response,
      200,
      state.ledger.all().map((transaction) => controlView(state, transaction)),
    )
  }
  if (action === undefined && request.method === 'GET') {
    const found = state.ledger
      .withReference(referenceId)
      .map((transaction) => controlView(state, transaction))
    return found.length === 0
      ? sendJson(response, 404, { error: 'No such transaction' })
      : sendJson(response, 200, found)
  }
  if (action === 'status' && request.method === 'POST')
    return forceFromRequest(state, referenceId, body, response)
  sendJson(response, 404, { error: `Unknown control path ${path}` })
}

export function handleControl(state: SimulatorState, exchange: Exchange) {
  const { response, path } = exchange
  const [name = '', ...rest] = path.slice(controlPrefix.length).split('/').filter(Boolean)
  if (name === 'transactions') return transactionRoutes(state, exchange, rest)
  if (answerBookControl(exchange, name, rest, accountKeeper(state))) return
  const shared = answerSharedControl(exchange, name, {
    sent: state.callbacks.sent,
    sentPath: 'callbacks',
    requests: state.requests,
    defaultChannel: 'mtn-momo',
    connection: (channel, countries) => connectionEntry(state, channel, countries),
    expireTokens: () => state.tokens.expireAll(),
    sendJson,
  })
  if (!shared) sendJson(response, 404, { error: `Unknown control path ${path}` })
}
