import { createHmac, randomBytes } from 'node:crypto'
import { normalizeIP } from '@fastify/rate-limit'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import QRCode from 'qrcode'
import type { AppContext } from '../../app/context.ts'
import type { PaymentRefusal } from '../../app/payment-links/index.ts'
import {
  awaitLinkPaymentChange,
  linkPaymentOutcome,
  linkUrls,
  loadPaymentPage,
  type PaymentPageView,
  type PaymentRequest,
  payThroughLink,
} from '../../app/payment-links/index.ts'
import { cspSourceOf } from '../../domain/urls.ts'
import { ApiError } from '../../errors.ts'
import { localeOf } from '../dashboard/messages/catalogue.ts'
import { readCookie, sameText } from '../pages/cookies.ts'
import { HeldPages, heldPagesInAll, heldPagesPerAddress } from './held-pages.ts'
import { payMessagesOf } from './messages.ts'
import { paymentFormPage } from './pay-form.tsx'
import { formErrorOf, outcomePage, refusalPage, returnUrlOf } from './pay-outcomes.tsx'
import { messagePage, type PayPageContext } from './pay-pages.tsx'
import { payCss } from './stylesheet.ts'

const csrfCookie = 'sika_pay'
const languageCookie = 'sika_pay_lang'

/**
 * The headers of every payment page: no script at all, styles and images only from Sika itself,
 * forms only to this origin, never framed (CONTRACT.md, Dashboard's rules, which these pages share).
 */
export const payHeaders: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': policyWith([]),
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
}

function policyWith(formTargets: readonly string[]): string {
  const targets = formTargets.map((target) => ` ${target}`).join('')
  return `default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'${targets}; frame-ancestors 'none'; base-uri 'none'`
}

/**
 * A link's form may end at its succeededUrl (a sandbox payment succeeds at once, and Chrome holds
 * the redirects after a form's POST to its form-action): that origin is listed, as a CSP source
 * built from its parsed parts, never the merchant's text itself.
 */
export function sendPayPage(
  reply: FastifyReply,
  status: number,
  html: string,
  view?: PaymentPageView,
): FastifyReply {
  const succeeded = view?.link.succeededUrl ? cspSourceOf(view.link.succeededUrl) : undefined
  const headers = succeeded
    ? { ...payHeaders, 'content-security-policy': policyWith([succeeded]) }
    : payHeaders
  return reply.code(status).headers(headers).send(html)
}

/** What the routes share: the CSRF of a link's form, and each request's language. */
export interface PayTools {
  context: AppContext
  /** The pages held waiting on their payment (showOutcome): each is answered at once when the server stops. */
  held: Set<AbortController>
  /** How many pages are held, per address and in all, within their bounds. */
  heldPages: HeldPages
  /** A new nonce in a cookie for the link's form, and the token the form carries. */
  issueCsrf(reply: FastifyReply, token: string): string
  /** The token of the nonce the browser holds, when it holds one. */
  csrfOf(request: FastifyRequest, token: string): string | undefined
  checkCsrf(request: FastifyRequest, token: string): boolean
  pageOf(request: FastifyRequest, reply: FastifyReply, sandbox: boolean): PayPageContext
}

/**
 * The page customers pay a payment link on (CONTRACT.md, Payment links): no script, English and
 * French, a form with a CSRF token (an HMAC of a nonce kept in a SameSite=Strict cookie, as the
 * checkout page does), a per-address limit (http/rate-limit.ts), and the link's QR code.
 */
export async function payRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const tools = payTools(context)
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true }
  })
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 16 * 1024 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  )
  app.setErrorHandler((error, request, reply) => {
    const status =
      error instanceof ApiError ? error.status : ((error as { statusCode?: number }).statusCode ?? 500)
    if (status >= 500) request.log.error({ err: error }, 'payment page failed')
    if (error instanceof ApiError && error.headers) reply.headers(error.headers)
    const page = tools.pageOf(request, reply, false)
    const { t } = page
    const text = status === 429 ? t.errors.tooMany : status === 404 ? t.notFound : t.errors.failed
    return sendPayPage(reply, status >= 400 ? status : 500, messagePage(page, t.errorTitle, text))
  })
  app.get('/pay/assets/pay.css', async (_request, reply) =>
    reply
      .header('content-type', 'text/css; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .header('x-content-type-options', 'nosniff')
      .send(payCss),
  )
  app.get('/pay/:token/qr.svg', async (request, reply) => {
    const view = await loadPaymentPage(context, (request.params as { token: string }).token)
    if (!view) return notFound(tools, request, reply)
    const svg = await QRCode.toString(linkUrls(context, view.link.token).url, {
      type: 'svg',
      margin: 2,
      errorCorrectionLevel: 'M',
    })
    return reply
      .header('content-type', 'image/svg+xml; charset=utf-8')
      .header('cache-control', 'public, max-age=86400')
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
      .send(svg)
  })
  app.get('/pay/:token', async (request, reply) => showLink(tools, request, reply))
  app.post('/pay/:token', async (request, reply) => pay(tools, request, reply))
  app.get('/pay/:token/done', async (request, reply) => showOutcome(tools, request, reply))
  // A page held waiting on its payment (showOutcome) is answered at once when the server stops.
  app.addHook('preClose', async () => {
    for (const wait of tools.held) wait.abort()
  })
}

function payTools(context: AppContext): PayTools {
  const csrfKey = context.secrets.derive('pay-csrf')
  const secure = context.config.publicBaseUrl.startsWith('https:')
  const ownOrigin = new URL(context.config.publicBaseUrl).origin
  const csrfFor = (token: string, nonce: string) =>
    createHmac('sha256', csrfKey).update(`${token}.${nonce}`).digest('base64url')
  const formOf = (request: FastifyRequest) => (request.body as Record<string, string> | undefined) ?? {}
  return {
    context,
    held: new Set(),
    heldPages: new HeldPages(heldPagesPerAddress, heldPagesInAll),
    issueCsrf(reply, token) {
      const nonce = randomBytes(16).toString('base64url')
      reply.header(
        'set-cookie',
        `${csrfCookie}=${nonce}; Path=/pay/${token}; HttpOnly; SameSite=Strict; Max-Age=3600${secure ? '; Secure' : ''}`,
      )
      return csrfFor(token, nonce)
    },
    csrfOf(request, token) {
      const nonce = readCookie(request.headers.cookie, csrfCookie)
      return nonce ? csrfFor(token, nonce) : undefined
    },
    checkCsrf(request, token) {
      const expected = this.csrfOf(request, token)
      const origin = request.headers.origin
      const sameOrigin =
        origin === undefined ||
        origin === ownOrigin ||
        origin === `${request.protocol}://${request.headers.host}`
      return expected !== undefined && sameOrigin && sameText(formOf(request).csrf ?? '', expected)
    },
    pageOf(request, reply, sandbox) {
      const asked = (request.query as { lang?: string } | undefined)?.lang
      if (asked === 'fr' || asked === 'en')
        reply.header('set-cookie', `${languageCookie}=${asked}; Path=/pay; SameSite=Lax; Max-Age=31536000`)
      const chosen =
        asked === 'fr' || asked === 'en' ? asked : readCookie(request.headers.cookie, languageCookie)
      const locale = localeOf(chosen, request.headers['accept-language'])
      return { locale, t: payMessagesOf(locale), path: request.url, sandbox }
    },
  }
}

function notFound(tools: PayTools, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const page = tools.pageOf(request, reply, false)
  return sendPayPage(reply, 404, messagePage(page, page.t.notFoundTitle, page.t.notFound))
}

/**
 * Where a payment of the link stands (`/pay/{token}/done?token=`). With `wait=1` (the pending
 * page's own refresh, while the customer lets it follow the payment) the answer is held until the
 * payment is no longer pending, or 5 s passed, or the customer left (awaitLinkPaymentChange), if
 * the bounds of the held pages allow (held-pages.ts); otherwise a page that no longer follows its
 * payment is answered at once, without reading anything.
 */
async function showOutcome(
  tools: PayTools,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const { context } = tools
  const { token, next, follow, wait } = request.query as Record<string, string | undefined>
  const waits = follow !== 'off' && wait === '1'
  if (waits && !holdPage(tools, request, reply)) return notFollowing(tools, request, reply)
  const linkToken = (request.params as { token: string }).token
  let view = await loadPaymentPage(context, linkToken)
  if (!view || !token) return notFound(tools, request, reply)
  const operation = waits
    ? await awaitLinkPaymentChange(context, view, token, customerGone(tools, reply))
    : await linkPaymentOutcome(context, view, token)
  if (!operation) return notFound(tools, request, reply)
  // After a wait the link may have changed too (completed by this payment, closed meanwhile).
  if (waits && operation.status !== 'pending') view = (await loadPaymentPage(context, linkToken)) ?? view
  const returnUrl = operation.status === 'succeeded' ? returnUrlOf(view, operation) : undefined
  if (returnUrl) return reply.code(303).header('location', returnUrl).send()
  const page = tools.pageOf(request, reply, view.link.mode === 'sandbox')
  return sendPayPage(
    reply,
    200,
    outcomePage(page, view, operation, { fromForm: next === 'operator', refresh: follow !== 'off' }),
  )
}

/** Whether the page may be held, within the bounds of its address and of the instance: its hold ends with its answer. */
function holdPage(tools: PayTools, request: FastifyRequest, reply: FastifyReply): boolean {
  const release = tools.heldPages.hold(normalizeIP(request.ip))
  if (release) reply.raw.once('close', release)
  return release !== undefined
}

/** A pending page beyond the held pages' bounds: it no longer follows its payment, and its button checks where it stands. */
function notFollowing(tools: PayTools, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const page = tools.pageOf(request, reply, false)
  const check = new URL(request.url, 'http://page.invalid')
  check.searchParams.delete('wait')
  check.searchParams.set('follow', 'off')
  const button = (
    <a class="button secondary" href={`${check.pathname}${check.search}`}>
      {page.t.check}
    </a>
  )
  return sendPayPage(reply, 200, messagePage(page, page.t.waitingTitle, page.t.approveStill, button))
}

/** Aborts when the customer's connection closes before the answer, or the server stops. */
function customerGone(tools: PayTools, reply: FastifyReply): AbortSignal {
  const wait = new AbortController()
  tools.held.add(wait)
  reply.raw.once('close', () => {
    tools.held.delete(wait)
    wait.abort()
  })
  return wait.signal
}

/** The link's page: its form while it takes payments, otherwise what became of it. */
async function showLink(
  tools: PayTools,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const view = await loadPaymentPage(tools.context, (request.params as { token: string }).token)
  if (!view) return notFound(tools, request, reply)
  const page = tools.pageOf(request, reply, view.link.mode === 'sandbox')
  const unavailable = refusalPage(page, view)
  if (unavailable) return sendPayPage(reply, 200, unavailable)
  const csrf = tools.issueCsrf(reply, view.link.token)
  return sendPayPage(reply, 200, paymentFormPage(page, view, { csrf }), view)
}

/** The form's POST: a collect through the link, then where the customer goes next; a refusal creates nothing. */
async function pay(tools: PayTools, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const view = await loadPaymentPage(tools.context, (request.params as { token: string }).token)
  if (!view) return notFound(tools, request, reply)
  const page = tools.pageOf(request, reply, view.link.mode === 'sandbox')
  const { token } = view.link
  if (!tools.checkCsrf(request, token))
    return sendPayPage(
      reply,
      403,
      messagePage(page, page.t.errorTitle, page.t.errors.csrf, retryLink(page, token)),
    )
  const unavailable = refusalPage(page, view)
  if (unavailable) return sendPayPage(reply, 422, unavailable)
  const form = (request.body as Record<string, string> | undefined) ?? {}
  const typed: PaymentRequest = {
    channel: form.channel ?? '',
    phoneNumber: form.phoneNumber ?? '',
    ...(form.amount !== undefined ? { amount: form.amount } : {}),
    ...(form.fullName ? { fullName: form.fullName.slice(0, 100) } : {}),
  }
  const result = await payThroughLink(tools.context, view, typed)
  if ('operation' in result) {
    const query = new URLSearchParams({ token: result.operation.token, lang: page.locale, next: 'operator' })
    return reply.code(303).header('location', `/pay/${token}/done?${query}`).send()
  }
  return sendRefusal(tools, { request, reply, page, view, typed, result })
}

function retryLink(page: PayPageContext, token: string) {
  return (
    <a class="button" href={`/pay/${token}`}>
      {page.t.retry}
    </a>
  )
}

/** A refused payment: the page of a link that takes none, or the form again with what to fix. */
function sendRefusal(
  tools: PayTools,
  refused: {
    request: FastifyRequest
    reply: FastifyReply
    page: PayPageContext
    view: PaymentPageView
    typed: PaymentRequest
    result: PaymentRefusal
  },
): FastifyReply {
  const { request, reply, page, view, typed, result } = refused
  if (result.refused === 'unavailable' || result.refused === 'suspended') {
    const shown = { ...view, status: result.refused === 'unavailable' ? result.status : view.status }
    return sendPayPage(reply, result.refused === 'suspended' ? 403 : 422, refusalPage(page, shown) ?? '')
  }
  const { status, error } = formErrorOf(page, view, result)
  const csrf = tools.csrfOf(request, view.link.token) ?? tools.issueCsrf(reply, view.link.token)
  return sendPayPage(reply, status, paymentFormPage(page, view, { csrf, typed, error }), view)
}
