import type { ServerResponse } from 'node:http'
import type { Exchange } from '../http-io.ts'
import { checkBearer, checkClient } from './auth.ts'
import { acceptsCurrency, countryCurrencies, isKnownCountry } from './countries.ts'
import { type Refusal, refusals } from './errors.ts'
import { sendJson } from './http-io.ts'
import { newPayment, statusView, type WebPaymentRequest } from './payments.ts'
import { refresh } from './settlement.ts'
import type { SimulatorState } from './state.ts'
import { checkStatusBody, checkWebPaymentBody } from './validation.ts'

export type { Exchange }

export function refuse(response: ServerResponse, refusal: Refusal) {
  sendJson(response, refusal.status, refusal.body)
}

export const tokenPath = '/oauth/v3/token'
const webPayPath = /^\/orange-money-webpay\/([^/]+)\/v1\/(webpayment|transactionstatus)$/

/** The URL a customer is sent to, shaped as Orange's: {host}/payment/pay_token/{pay_token}. */
export function paymentUrl(state: SimulatorState, payToken: string): string {
  return `${state.url}/payment/pay_token/${payToken}`
}

/** POST /oauth/v3/token: client credentials in, a bearer token out (Orange's OAuth proxy v3). */
function issueToken(state: SimulatorState, { request, response, body }: Exchange) {
  const form = new URLSearchParams(body)
  const refusal = checkClient(state, request, form)
  if (refusal) return refuse(response, refusal)
  const grantType = form.get('grant_type')
  if (grantType === null || grantType === '') return refuse(response, refusals.missingGrantType())
  if (grantType !== 'client_credentials') return refuse(response, refusals.unsupportedGrantType())
  sendJson(response, 200, state.tokens.issue(state.config.clientId))
}

/** The business checks after the body's own: the merchant key, the country's currency, a new order_id. */
function businessRefusal(state: SimulatorState, country: string, request: WebPaymentRequest) {
  const { merchantKey, currency, orderId } = request
  if (merchantKey !== state.config.merchantKey) {
    return refusals.accessDenied('The merchant_key is not valid for this application.')
  }
  if (!acceptsCurrency(country, currency)) {
    const accepted = (countryCurrencies[country] ?? []).join(', ')
    return refusals.invalidBodyField(`The currency ${currency} is not accepted here: use ${accepted}.`)
  }
  if (state.payments.hasOrder(orderId)) {
    return refusals.accessDenied(`The order_id ${orderId} has already been used: it must be unique.`)
  }
  return undefined
}

/** POST /orange-money-webpay/{country}/v1/webpayment: a payment session, INITIATED, answered 201. */
function createWebPayment(state: SimulatorState, { response, body }: Exchange, country: string) {
  const checked = checkWebPaymentBody(body)
  if (checked.refusal) return refuse(response, checked.refusal)
  const refusal = businessRefusal(state, country, checked.value)
  if (refusal) return refuse(response, refusal)
  const payment = newPayment(country, checked.value)
  state.payments.add(payment)
  sendJson(response, 201, {
    status: 201,
    message: 'OK',
    pay_token: payment.payToken,
    payment_url: paymentUrl(state, payment.payToken),
    notif_token: payment.notifToken,
  })
}

/** POST /orange-money-webpay/{country}/v1/transactionstatus: order_id, amount and pay_token must all match. */
function transactionStatus(state: SimulatorState, { response, body }: Exchange, country: string) {
  const checked = checkStatusBody(body)
  if (checked.refusal) return refuse(response, checked.refusal)
  const { orderId, amount, payToken } = checked.value
  const payment = state.payments.byToken(payToken)
  const matches =
    payment !== undefined &&
    payment.country === country &&
    payment.request.orderId === orderId &&
    payment.request.amount === amount
  if (!matches) return refuse(response, refusals.transactionNotFound())
  sendJson(response, 201, statusView(refresh(state, payment)))
}

/** Answers one call to Orange's published API: the token endpoint, webpayment, transactionstatus. */
export function handleApiCall(state: SimulatorState, exchange: Exchange) {
  const method = exchange.request.method ?? 'GET'
  if (exchange.path === tokenPath) {
    return method === 'POST'
      ? issueToken(state, exchange)
      : refuse(exchange.response, refusals.methodNotAllowed())
  }
  const match = webPayPath.exec(exchange.path)
  const [, country = '', operation] = match ?? []
  if (match === null || !isKnownCountry(country))
    return refuse(exchange.response, refusals.resourceNotFound())
  if (method !== 'POST') return refuse(exchange.response, refusals.methodNotAllowed())
  const refusal = checkBearer(state, exchange.request)
  if (refusal) return refuse(exchange.response, refusal)
  if (operation === 'webpayment') createWebPayment(state, exchange, country)
  else transactionStatus(state, exchange, country)
}
