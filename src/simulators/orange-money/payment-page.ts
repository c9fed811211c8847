import type { ServerResponse } from 'node:http'
import type { Exchange } from './api-routes.ts'
import { redirect, sendHtml } from './http-io.ts'
import { noticePage, paymentForm, textsFor } from './page-html.ts'
import type { WebPayment } from './payments.ts'
import { cancel, confirm, isPastValidity, refresh } from './settlement.ts'
import type { SimulatorState } from './state.ts'

/**
 * The hosted payment page a webpayment's payment_url opens (Orange's "secured payment page"):
 *
 *   GET  /payment/pay_token/{pay_token}          the page: a number, an OTP, Confirmer and Annuler
 *   POST /payment/pay_token/{pay_token}/pay      form field msisdn (otp is not checked)
 *   POST /payment/pay_token/{pay_token}/cancel   back to cancel_url
 */
export const pagePrefix = '/payment/pay_token/'

/** A number as a person types it: spaces, dots, dashes and a leading + are dropped. */
function typedNumber(form: URLSearchParams): string | undefined {
  const number = (form.get('msisdn') ?? '').replace(/[\s.\-+]/g, '')
  return /^\d{8,15}$/.test(number) ? number : undefined
}

function show(state: SimulatorState, response: ServerResponse, payment: WebPayment) {
  const t = textsFor(payment)
  if (refresh(state, payment).status !== 'INITIATED') {
    return sendHtml(response, 200, noticePage(payment, t.processed, payment.request.returnUrl))
  }
  if (isPastValidity(state, payment)) {
    return sendHtml(response, 200, noticePage(payment, t.expired, payment.request.returnUrl))
  }
  sendHtml(response, 200, paymentForm(payment))
}

/**
 * After "Confirmer" the customer goes back to return_url, as Orange's guide says. The test numbers
 * change how the page answers, not whether the payment goes on: 106 answers 500 to the customer,
 * 107 holds them for hangMs before sending them back.
 */
function answerConfirmed(state: SimulatorState, response: ServerResponse, payment: WebPayment) {
  if (payment.outcome === '106') {
    return sendHtml(response, 500, noticePage(payment, textsFor(payment).failure))
  }
  if (payment.outcome === '107') {
    return state.timers.after(state.config.hangMs, () => redirect(response, payment.request.returnUrl))
  }
  redirect(response, payment.request.returnUrl)
}

function pay(state: SimulatorState, { response, body }: Exchange, payment: WebPayment) {
  const msisdn = typedNumber(new URLSearchParams(body))
  if (msisdn === undefined && refresh(state, payment).status === 'INITIATED') {
    return sendHtml(response, 400, paymentForm(payment, textsFor(payment).invalidNumber))
  }
  const result = confirm(state, payment, msisdn ?? '')
  if (result === 'not-initiated') {
    return sendHtml(
      response,
      409,
      noticePage(payment, textsFor(payment).processed, payment.request.returnUrl),
    )
  }
  if (result === 'expired') return redirect(response, payment.request.returnUrl)
  answerConfirmed(state, response, payment)
}

function leave(state: SimulatorState, response: ServerResponse, payment: WebPayment) {
  if (!cancel(state, payment)) {
    return sendHtml(
      response,
      409,
      noticePage(payment, textsFor(payment).processed, payment.request.returnUrl),
    )
  }
  redirect(response, payment.request.cancelUrl)
}

export function handlePaymentPage(state: SimulatorState, exchange: Exchange) {
  const [payToken = '', action, ...extra] = exchange.path.slice(pagePrefix.length).split('/')
  const method = exchange.request.method ?? 'GET'
  const payment = state.payments.byToken(payToken)
  if (payment === undefined || extra.length > 0) {
    return sendHtml(exchange.response, 404, noticePage(undefined, textsFor(undefined).notFound))
  }
  if (action === undefined && method === 'GET') return show(state, exchange.response, payment)
  if (action === 'pay' && method === 'POST') return pay(state, exchange, payment)
  if (action === 'cancel' && method === 'POST') return leave(state, exchange.response, payment)
  sendHtml(exchange.response, 405, noticePage(payment, textsFor(payment).notFound))
}
