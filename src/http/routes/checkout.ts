import { createHmac, randomBytes } from 'node:crypto'
import type { FastifyInstance, FastifyReply } from 'fastify'
import {
  type CheckoutView,
  decideCheckout,
  loadCheckout,
  outcomeSources,
  returnFromOperator,
} from '../../app/checkout.ts'
import type { AppContext } from '../../app/context.ts'
import { checkoutStyleHash, renderCheckoutMessage, renderCheckoutPage } from '../checkout/checkout-page.ts'
import { readCookie, sameText } from '../pages/cookies.ts'
import { pageHeaders } from '../pages/html.ts'

const csrfCookie = 'sika_checkout'

/**
 * The hosted checkout (CONTRACT.md, Sandbox): the customer pays or declines a 906 operation.
 * The token in the path is the capability, as in any hosted payment page; the decision is a
 * POST whose hidden field must match an HMAC of a nonce held in a SameSite=Strict cookie, so
 * another site cannot submit it. The redirect that follows never settles money: the state
 * machine already did, and the merchant's truth is the API and the callbacks.
 */
export async function checkoutRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const csrfKey = context.secrets.derive('checkout-csrf')
  const csrfFor = (token: string, nonce: string) =>
    createHmac('sha256', csrfKey).update(`${token}.${nonce}`).digest('hex')
  const secure = context.config.publicBaseUrl.startsWith('https:')

  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))))
    },
  )

  app.get('/checkout/:token', { schema: { hide: true } }, async (request, reply) => {
    const { token } = request.params as { token: string }
    const view = await loadCheckout(context, token)
    if (!view) return sendNotFound(reply)
    let csrf: string | undefined
    if (view.mayDecide) {
      const nonce = randomBytes(16).toString('base64url')
      csrf = csrfFor(token, nonce)
      reply.header(
        'set-cookie',
        `${csrfCookie}=${nonce}; Path=/checkout/${token}; HttpOnly; SameSite=Strict; Max-Age=3600${secure ? '; Secure' : ''}`,
      )
    }
    return sendPage(reply, 200, outcomeSources(view.operation), pageOf(view, csrf))
  })

  // Where an operator's own payment page (Wave) sends the customer back.
  app.get('/checkout/:token/return', { schema: { hide: true } }, async (request, reply) => {
    const { token } = request.params as { token: string }
    const location = await returnFromOperator(context, token)
    if (!location) return sendNotFound(reply)
    return reply.code(303).header('location', location).send()
  })

  for (const decision of ['pay', 'decline'] as const) {
    app.post(`/checkout/:token/${decision}`, { schema: { hide: true } }, async (request, reply) => {
      const { token } = request.params as { token: string }
      const view = await loadCheckout(context, token)
      if (!view) return sendNotFound(reply)
      if (view.merchantSuspended) return sendSuspended(reply, view)
      const nonce = readCookie(request.headers.cookie, csrfCookie)
      const given = (request.body as Record<string, string> | undefined)?.csrf ?? ''
      if (!nonce || !sameText(given, csrfFor(token, nonce))) {
        return sendPage(
          reply,
          403,
          [],
          renderCheckoutMessage('Please try again', 'This form has expired. Go back and reload the page.'),
        )
      }
      const location = await decideCheckout(context, view, decision === 'pay')
      return reply.code(303).header('location', location).send()
    })
  }
}

function pageOf(view: CheckoutView, csrf: string | undefined): string {
  const { operation } = view
  return renderCheckoutPage({
    token: operation.token,
    merchantName: view.merchantName,
    channelName: view.channelName,
    side: view.side,
    status: operation.status,
    expired: view.expired,
    csrf,
    merchantSuspended: view.merchantSuspended,
    sandbox: operation.mode === 'sandbox',
  })
}

/** A suspended merchant's customer decides nothing: the form answers 403 and changes nothing. */
function sendSuspended(reply: FastifyReply, view: CheckoutView): FastifyReply {
  return sendPage(
    reply,
    403,
    [],
    renderCheckoutMessage(
      'Payment unavailable',
      `${view.merchantName} cannot take payments at the moment: nothing was paid. You can close this page.`,
    ),
  )
}

/** Chrome applies form-action to the redirect after a POST, so the merchant's outcome origins are listed. */
function sendPage(reply: FastifyReply, status: number, formTargets: string[], html: string): FastifyReply {
  return reply.code(status).headers(pageHeaders(checkoutStyleHash, formTargets)).send(html)
}

function sendNotFound(reply: FastifyReply): FastifyReply {
  return sendPage(reply, 404, [], renderCheckoutMessage('Not found', 'There is no payment at this address.'))
}
