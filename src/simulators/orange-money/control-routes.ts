import type { ServerResponse } from 'node:http'
import { answerSharedControl } from '../control.ts'
import { type Exchange, paymentUrl } from './api-routes.ts'
import { connectionEntry } from './connection.ts'
import { sendJson } from './http-io.ts'
import { statusView, type WebPayment, type WebPaymentStatus, webPaymentStatuses } from './payments.ts'
import { cancel, confirm, type ForcedStatus, forceStatus, refresh } from './settlement.ts'
import type { SimulatorState } from './state.ts'

/**
 * Paths under /_simulator/ for tests and people: not part of Orange's API, so they need no
 * credentials. {id} is a pay_token or an order_id.
 *
 *   GET  /_simulator/payments                  every payment, oldest first
 *   GET  /_simulator/payments/{id}             one payment
 *   POST /_simulator/payments/{id}/pay         {"msisdn": "..."}: confirms as the page's Confirmer does
 *   POST /_simulator/payments/{id}/cancel      as the page's cancel link
 *   POST /_simulator/payments/{id}/status      {"status": INITIATED|PENDING|SUCCESS|FAILED|EXPIRED, "notify"?: boolean}
 *   POST /_simulator/expire-tokens             every access token issued so far expires
 *   GET  /_simulator/notifications             every notification sent and how it was answered
 *   GET  /_simulator/requests                  every request received
 *   GET  /_simulator/connection?channel=&countries=   the OPERATORS_FILE entry for this simulator
 */
export const controlPrefix = '/_simulator/'

export interface ControlView {
  readonly payToken: string
  readonly orderId: string
  readonly country: string
  readonly amount: number
  readonly currency: string
  readonly status: WebPaymentStatus
  readonly msisdn: string | undefined
  readonly outcome: string | undefined
  readonly txnid: string | undefined
  readonly notifToken: string
  readonly paymentUrl: string
  readonly returnUrl: string
  readonly cancelUrl: string
  readonly notifUrl: string
  readonly notificationSent: boolean
  readonly createdAtMs: number
  readonly confirmedAtMs: number | undefined
  readonly settledAtMs: number | undefined
  readonly cancelledAtMs: number | undefined
  /** What transactionstatus answers for it. */
  readonly view: Record<string, unknown>
}

export function controlView(state: SimulatorState, payment: WebPayment): ControlView {
  refresh(state, payment)
  const { request } = payment
  return {
    payToken: payment.payToken,
    orderId: request.orderId,
    country: payment.country,
    amount: request.amount,
    currency: request.currency,
    status: payment.status,
    msisdn: payment.msisdn,
    outcome: payment.outcome,
    txnid: payment.txnid,
    notifToken: payment.notifToken,
    paymentUrl: paymentUrl(state, payment.payToken),
    returnUrl: request.returnUrl,
    cancelUrl: request.cancelUrl,
    notifUrl: request.notifUrl,
    notificationSent: payment.notificationSent,
    createdAtMs: payment.createdAtMs,
    confirmedAtMs: payment.confirmedAtMs,
    settledAtMs: payment.settledAtMs,
    cancelledAtMs: payment.cancelledAtMs,
    view: statusView(payment),
  }
}

function parseJson(body: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(body === '' ? '{}' : body)
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

export function parseForced(body: string): ForcedStatus | undefined {
  const parsed = parseJson(body)
  const status = parsed?.status
  const notify = parsed?.notify
  if (!webPaymentStatuses.includes(status as WebPaymentStatus)) return undefined
  if (notify !== undefined && typeof notify !== 'boolean') return undefined
  return { status: status as WebPaymentStatus, notify }
}

function payAs(state: SimulatorState, response: ServerResponse, payment: WebPayment, body: string) {
  const msisdn = parseJson(body)?.msisdn
  if (typeof msisdn !== 'string' || !/^\+?\d{8,15}$/.test(msisdn)) {
    return sendJson(response, 400, { error: 'Expected {"msisdn": "<8 to 15 digits>"}' })
  }
  if (confirm(state, payment, msisdn.replace('+', '')) === 'not-initiated') {
    return sendJson(response, 409, { error: `The payment is ${payment.status}, not INITIATED` })
  }
  sendJson(response, 200, controlView(state, payment))
}

function paymentAction(state: SimulatorState, exchange: Exchange, payment: WebPayment, action: string) {
  const { response, body } = exchange
  if (action === 'pay') return payAs(state, response, payment, body)
  if (action === 'cancel') {
    if (!cancel(state, payment)) return sendJson(response, 409, { error: `The payment is ${payment.status}` })
    return sendJson(response, 200, controlView(state, payment))
  }
  if (action === 'status') {
    const forced = parseForced(body)
    if (forced === undefined) {
      const statuses = webPaymentStatuses.join('|')
      return sendJson(response, 400, { error: `Expected {"status": "${statuses}", "notify"?: boolean}` })
    }
    forceStatus(state, payment, forced)
    return sendJson(response, 200, controlView(state, payment))
  }
  sendJson(response, 404, { error: `Unknown control path ${exchange.path}` })
}

function paymentRoutes(state: SimulatorState, exchange: Exchange, rest: string[]) {
  const { request, response, path } = exchange
  const [id, action, ...extra] = rest
  const method = request.method ?? 'GET'
  if (id === undefined && method === 'GET') {
    return sendJson(
      response,
      200,
      state.payments.all().map((payment) => controlView(state, payment)),
    )
  }
  const payment = id === undefined ? undefined : state.payments.find(decodeURIComponent(id))
  if (payment === undefined) return sendJson(response, 404, { error: 'No such payment' })
  if (action === undefined && method === 'GET') return sendJson(response, 200, controlView(state, payment))
  if (action !== undefined && extra.length === 0 && method === 'POST') {
    return paymentAction(state, exchange, payment, action)
  }
  sendJson(response, 404, { error: `Unknown control path ${path}` })
}

export function handleControl(state: SimulatorState, exchange: Exchange) {
  const { response, path } = exchange
  const [name = '', ...rest] = path.slice(controlPrefix.length).split('/').filter(Boolean)
  if (name === 'payments') return paymentRoutes(state, exchange, rest)
  const shared = answerSharedControl(exchange, name, {
    sent: state.notifications.sent,
    sentPath: 'notifications',
    requests: state.requests,
    defaultChannel: 'orange-money',
    connection: (channel, countries) => connectionEntry(state, channel, countries),
    expireTokens: () => state.tokens.expireAll(),
    sendJson,
  })
  if (!shared) sendJson(response, 404, { error: `Unknown control path ${path}` })
}
