import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyReply } from 'fastify'
import type { AppContext } from '../../app/context.ts'
import { expiredReason, settleSide } from '../../app/lifecycle.ts'
import { type Operation, toOperation } from '../../app/operation-rows.ts'
import type { ProviderOutcome } from '../../providers/provider.ts'
import { checkoutStyleHash, renderCheckoutMessage, renderCheckoutPage } from '../checkout/checkout-page.ts'

const csrfCookie = 'sika_checkout'
const declined = { code: 'customer_declined', message: 'The customer declined on the checkout page.' }

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
    const found = await loadCheckout(context, token)
    if (!found) return sendNotFound(reply)
    const { operation, side, merchantName, channelName } = found
    const expired = isExpired(context, operation)
    let csrf: string | undefined
    if (customerMayDecide(operation, side) && !expired) {
      const nonce = randomBytes(16).toString('base64url')
      csrf = csrfFor(token, nonce)
      reply.header(
        'set-cookie',
        `${csrfCookie}=${nonce}; Path=/checkout/${token}; HttpOnly; SameSite=Strict; Max-Age=3600${secure ? '; Secure' : ''}`,
      )
    }
    const html = renderCheckoutPage({
      token,
      merchantName,
      merchantReference: operation.merchantReference,
      channelName,
      side,
      status: operation.status,
      expired: operation.status === 'pending' && expired,
      csrf,
      sandbox: operation.mode === 'sandbox',
    })
    return sendPage(reply, 200, outcomeOrigins(operation), html)
  })

  for (const decision of ['pay', 'decline'] as const) {
    app.post(`/checkout/:token/${decision}`, { schema: { hide: true } }, async (request, reply) => {
      const { token } = request.params as { token: string }
      const found = await loadCheckout(context, token)
      if (!found) return sendNotFound(reply)
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
      let { operation } = found
      const { side } = found
      if (customerMayDecide(operation, side)) {
        const outcome: ProviderOutcome = isExpired(context, operation)
          ? { status: 'canceled', reason: expiredReason }
          : decision === 'pay'
            ? { status: 'succeeded' }
            : { status: 'canceled', reason: declined }
        operation = await settleSide(context, operation.id, side.role, outcome, 'checkout')
      }
      return reply.code(303).header('location', outcomeLocation(operation)).send()
    })
  }
}

async function loadCheckout(context: AppContext, token: string) {
  if (!/^[a-z0-9]{5}(-[a-z0-9]{5}){4}$/.test(token)) return undefined
  const row = await context.store.db
    .selectFrom('operations')
    .innerJoin('merchants', 'merchants.id', 'operations.merchant_id')
    .selectAll('operations')
    .select('merchants.name as merchant_name')
    .where('operations.token', '=', token)
    .executeTakeFirst()
  if (!row) return undefined
  const operation = toOperation(row)
  // The side the customer decides on; once decided, the side that asked for it.
  const side =
    operation.sides.find((candidate) => candidate.awaitingCustomer) ??
    operation.sides.find(
      (candidate) => candidate.providerReference !== undefined && candidate.status !== 'pending',
    ) ??
    operation.sides[0]!
  const route = await context.store.db
    .selectFrom('channel_routes')
    .select('channel_name')
    .where('channel', '=', side.channel)
    .limit(1)
    .executeTakeFirst()
  return {
    operation,
    side,
    merchantName: row.merchant_name,
    channelName: route?.channel_name ?? side.channel,
  }
}

/**
 * Only the sandbox's customer decides here. In live mode the operator alone says whether money
 * moved, so a click on our page must never settle a live operation.
 */
function customerMayDecide(operation: Operation, side: Operation['sides'][number]): boolean {
  return operation.mode === 'sandbox' && operation.status === 'pending' && side.awaitingCustomer === true
}

function isExpired(context: AppContext, operation: Operation): boolean {
  return context.clock.nowMicros() >= operation.initiatedAtUs + context.config.operationTtlMs * 1000
}

/** The merchant's outcome URL for the status (pendingUrl while pending), with token, reference and status. */
function outcomeLocation(operation: Operation): string {
  const target = operation.urls[`${operation.status}Url` as const]
  if (!target) return `/checkout/${operation.token}`
  const url = new URL(target)
  url.searchParams.set('token', operation.token)
  url.searchParams.set('merchantReference', operation.merchantReference)
  url.searchParams.set('status', operation.status)
  return url.toString()
}

function outcomeOrigins(operation: Operation): string[] {
  const urls = [
    operation.urls.pendingUrl,
    operation.urls.succeededUrl,
    operation.urls.failedUrl,
    operation.urls.canceledUrl,
    operation.urls.errorUrl,
  ]
  return [...new Set(urls.filter((url): url is string => Boolean(url)).map((url) => new URL(url).origin))]
}

/** Chrome applies form-action to the redirect after a POST, so the merchant's outcome origins are listed. */
function sendPage(reply: FastifyReply, status: number, formTargets: string[], html: string): FastifyReply {
  return reply
    .code(status)
    .headers({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': `default-src 'none'; style-src '${checkoutStyleHash}'; form-action 'self' ${formTargets.join(' ')}; frame-ancestors 'none'; base-uri 'none'`,
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    })
    .send(html)
}

function sendNotFound(reply: FastifyReply): FastifyReply {
  return sendPage(reply, 404, [], renderCheckoutMessage('Not found', 'There is no payment at this address.'))
}

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of header?.split(';') ?? []) {
    const [key, ...value] = part.trim().split('=')
    if (key === name) return value.join('=')
  }
  return undefined
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}
