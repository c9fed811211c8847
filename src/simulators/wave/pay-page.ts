import { type AttemptResult, attemptPayment, declinePayment } from './checkout-flow.ts'
import type { CheckoutSession } from './checkout-store.ts'
import { redirect, sendHtml } from './http-io.ts'
import type { Exchange, SimulatorState } from './state.ts'

/**
 * The page `wave_launch_url` opens: what the Wave app shows the payer (the business, the amount, a
 * confirm button), as a plain HTML form a person can click and a test can post. Afterwards the
 * browser goes to `success_url` when the payment succeeded, to `error_url` otherwise, as the
 * Wave app does ("Getting started with the Wave Checkout API").
 */
export const payPagePrefix = '/c/'

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`)
}

function page(title: string, content: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem}
button{font-size:1rem;padding:.6rem 1.2rem;margin:.3rem .3rem 0 0}input{font-size:1rem;padding:.4rem;width:100%}</style>
</head><body>${content}</body></html>`
}

function sessionPage(state: SimulatorState, session: CheckoutSession): string {
  const { request } = session
  const business = escapeHtml(state.config.businessName)
  const amount = `${escapeHtml(request.amount)} ${escapeHtml(request.currency)}`
  if (session.checkoutStatus !== 'open') {
    return page(
      business,
      `<h1>${business}</h1><p>This checkout is ${escapeHtml(session.checkoutStatus)}.</p>`,
    )
  }
  const failure = session.lastPaymentError
    ? `<p role="alert">Last attempt failed: ${escapeHtml(session.lastPaymentError.code)}</p>`
    : ''
  const mobile = escapeHtml(request.restrictPayerMobile ?? '')
  return page(
    `Pay ${business}`,
    `<h1>${business}</h1><p>Amount: <strong>${amount}</strong></p>${failure}
<form method="post" action="${payPagePrefix}${escapeHtml(session.id)}">
<label>Your Wave number (E.164)<input name="mobile" value="${mobile}" placeholder="+221761110000"></label>
<button type="submit" name="action" value="pay">Pay</button>
<button type="submit" name="action" value="decline">Decline</button>
</form>`,
  )
}

/** Where the browser goes after an attempt; undefined keeps it on a "processing" page (104). */
function destination(session: CheckoutSession, result: AttemptResult): string | undefined {
  if (result === 'pending') return undefined
  if (result === 'succeeded') return session.request.successUrl
  if (result === 'not-open' && session.checkoutStatus === 'complete') return session.request.successUrl
  return session.request.errorUrl
}

function submit(state: SimulatorState, { response, body }: Exchange, session: CheckoutSession) {
  const form = new URLSearchParams(body)
  const mobile = (form.get('mobile') ?? '').trim()
  const result =
    form.get('action') === 'decline'
      ? declinePayment(state, session)
      : attemptPayment(state, session, mobile === '' ? undefined : mobile)
  const location = destination(session, result)
  if (location !== undefined) return redirect(response, location)
  sendHtml(
    response,
    200,
    page('Processing', '<h1>Payment processing</h1><p>Waiting for Wave to confirm.</p>'),
  )
}

/** GET /c/{id} shows the page; POST /c/{id} (form fields `action`, `mobile`) acts on it. */
export function handlePayPage(state: SimulatorState, exchange: Exchange) {
  const id = decodeURIComponent(exchange.path.slice(payPagePrefix.length))
  const session = state.checkout.get(id)
  if (session === undefined) {
    return sendHtml(exchange.response, 404, page('Not found', '<h1>This checkout does not exist.</h1>'))
  }
  if (exchange.request.method === 'POST') return submit(state, exchange, session)
  sendHtml(exchange.response, 200, sessionPage(state, session))
}
