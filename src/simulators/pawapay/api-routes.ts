import { refuse, rejectInitiation } from './answers.ts'
import { checkBearer } from './auth.ts'
import { idInBody } from './bodies.ts'
import { initiateBulk } from './bulk.ts'
import { rejections, technical } from './errors.ts'
import { checkStatement, initiateStatement, walletBalances } from './finance-routes.ts'
import { type Exchange, sendJson } from './http-io.ts'
import { initiate } from './initiate.ts'
import { isFinal } from './ledger.ts'
import { type OperationSpec, operations } from './operations.ts'
import { failEnqueued } from './queue.ts'
import { sendCallback } from './settlement.ts'
import type { SimulatorState } from './state.ts'
import { activeConfiguration, predictProvider, publicKeys } from './toolkit.ts'
import { statusData } from './views.ts'

type Handler = (state: SimulatorState, exchange: Exchange) => void

interface Route {
  readonly run: Handler
  /** The initiation's spec, whose refusals carry the id and status REJECTED. */
  readonly initiation?: OperationSpec
}

/** GET /v2/{operation}/{id}: `{status: "FOUND", data}` or `{status: "NOT_FOUND"}`, both 200. */
function checkStatus(spec: OperationSpec, id: string): Handler {
  return (state, { response }) => {
    const payment = state.ledger.get(spec.kind, id)
    if (payment === undefined) return sendJson(response, 200, { status: 'NOT_FOUND' })
    sendJson(response, 200, { status: 'FOUND', data: statusData(payment) })
  }
}

/** POST /v2/{operation}/resend-callback/{id}: only a payment in a final status has one to resend. */
function resendCallback(spec: OperationSpec, id: string): Handler {
  return (state, { response }) => {
    const payment = state.ledger.get(spec.kind, id)
    if (payment === undefined)
      return rejectInitiation(response, spec, id, rejections.notFound(spec.label, id))
    if (!isFinal(payment.status)) {
      const refusal = rejections.invalidState(spec.label, id, 'has not finished processing')
      return rejectInitiation(response, spec, id, refusal)
    }
    sendCallback(state, payment)
    sendJson(response, 200, { [spec.idField]: id, status: 'ACCEPTED' })
  }
}

/** A path segment as sent; one that is not valid percent-encoding stays as it is. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

function operationRoute(method: string, path: string, spec: OperationSpec): Route | undefined {
  if (path === spec.path) return method === 'POST' ? { run: initiate(spec), initiation: spec } : undefined
  if (!path.startsWith(`${spec.path}/`)) return undefined
  const rest = decoded(path.slice(spec.path.length + 1))
  const resend = /^resend-callback\/([^/]+)$/.exec(rest)?.[1]
  if (resend !== undefined) return method === 'POST' ? { run: resendCallback(spec, resend) } : undefined
  if (spec.queued) {
    if (rest === 'bulk' && method === 'POST') return { run: initiateBulk(spec) }
    const failed = /^fail-enqueued\/([^/]+)$/.exec(rest)?.[1]
    if (failed !== undefined) return method === 'POST' ? { run: failEnqueued(spec, failed) } : undefined
  }
  if (rest === '' || rest.includes('/') || method !== 'GET') return undefined
  return { run: checkStatus(spec, rest) }
}

const toolkit: Record<string, Handler> = {
  'GET /v2/active-conf': activeConfiguration,
  'POST /v2/predict-provider': predictProvider,
  'GET /v2/public-key/http': publicKeys,
  'GET /v2/wallet-balances': walletBalances,
  'POST /v2/statements': initiateStatement,
}

/** The operation a method and path name, or undefined for what pawaPay does not publish. */
function routeOf(method: string, path: string): Route | undefined {
  for (const spec of operations) {
    const route = operationRoute(method, path, spec)
    if (route) return route
  }
  const statementId = /^\/v2\/statements\/([^/]+)$/.exec(path)?.[1]
  if (statementId !== undefined)
    return method === 'GET' ? { run: checkStatement(decoded(statementId)) } : undefined
  const run = toolkit[`${method} ${path}`]
  return run === undefined ? undefined : { run }
}

/** Answers one call to the pawaPay Merchant API v2. */
export function handleApiCall(state: SimulatorState, exchange: Exchange) {
  const route = routeOf(exchange.request.method ?? 'GET', exchange.path.replace(/\/+$/, ''))
  if (route === undefined) return refuse(exchange.response, technical.unknownPath())
  const refusal = checkBearer(state, exchange.request)
  if (refusal && route.initiation) {
    return rejectInitiation(
      exchange.response,
      route.initiation,
      idInBody(exchange.body, route.initiation),
      refusal,
    )
  }
  if (refusal) return refuse(exchange.response, refusal)
  route.run(state, exchange)
}
