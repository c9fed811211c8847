import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../app/context.ts'
import { ApiError } from '../../errors.ts'
import { bodyIsSmall, createGuard, type Guard, languageCookie } from './guard.tsx'
import { plainPage } from './layout.tsx'
import { dashboardPath, redirect, sendPage } from './respond.ts'
import { accountRoutes } from './routes/account.tsx'
import { auditRoutes } from './routes/audit.tsx'
import { balanceRoutes } from './routes/balance.tsx'
import { developersRoutes } from './routes/developers.tsx'
import { homeRoutes } from './routes/home.tsx'
import { operationsRoutes } from './routes/operations.tsx'
import { paymentLinkRoutes } from './routes/payment-links.tsx'
import { payoutBatchRoutes } from './routes/payout-batches.tsx'
import { settingsRoutes } from './routes/settings.tsx'
import { signInRoutes } from './routes/sign-in.tsx'
import { teamRoutes } from './routes/team.tsx'
import { dashboardCss } from './stylesheet.ts'

/** Each area of the dashboard registers its pages here, with the guard that checks its members. */
const areas: ((app: FastifyInstance, context: AppContext, guard: Guard) => void)[] = [
  signInRoutes,
  homeRoutes,
  operationsRoutes,
  developersRoutes,
  balanceRoutes,
  payoutBatchRoutes,
  paymentLinkRoutes,
  settingsRoutes,
  teamRoutes,
  auditRoutes,
  accountRoutes,
]

/**
 * The merchants' dashboard (CONTRACT.md, Dashboard): server-rendered pages under /dashboard that
 * call the application layer directly, in their own scope, so the form parser and the HTML error
 * pages never reach the API.
 */
export async function dashboardRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const guard = createGuard(context)
  // Pages for people, not the API: none of them is part of the OpenAPI document.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true }
  })
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 64 * 1024 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  )
  // Multipart bodies only on the uploads, in a scope of their own (uploads.ts).
  app.setErrorHandler((error, request, reply) => {
    const status =
      error instanceof ApiError ? error.status : ((error as { statusCode?: number }).statusCode ?? 500)
    if (status >= 500) request.log.error({ err: error }, 'dashboard page failed')
    // A large body refused unread (415: no form here takes it; 413): the connection ends with the
    // answer rather than read it all to reach the next request; a small one is drained.
    if ((status === 413 || status === 415) && !bodyIsSmall(request)) reply.header('connection', 'close')
    const page = guard.pageOf(request)
    const [title, text] =
      status === 404
        ? [page.t.errors.notFoundTitle, page.t.errors.notFound]
        : [page.t.errors.failedTitle, page.t.errors.failed]
    return sendPage(reply, status >= 400 ? status : 500, plainPage(page, title, <p class="error">{text}</p>))
  })
  app.get('/dashboard/assets/dashboard.css', async (_request, reply) =>
    reply
      .header('content-type', 'text/css; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .header('x-content-type-options', 'nosniff')
      .send(dashboardCss),
  )
  app.get('/dashboard', async (_request, reply) => redirect(reply, '/dashboard/sandbox'))
  app.get('/dashboard/language', async (request, reply) => {
    const { lang, back } = request.query as { lang?: string; back?: string }
    const locale = lang === 'fr' ? 'fr' : 'en'
    reply.header('set-cookie', `${languageCookie}=${locale}; Path=/dashboard; SameSite=Lax; Max-Age=31536000`)
    return redirect(reply, dashboardPath(back, '/dashboard'))
  })
  for (const area of areas) area(app, context, guard)
  // Declared last: any other path under /dashboard is a page that says nothing is there.
  app.all('/dashboard/*', async (request, reply) => {
    const page = guard.pageOf(request)
    return sendPage(
      reply,
      404,
      plainPage(page, page.t.errors.notFoundTitle, <p class="error">{page.t.errors.notFound}</p>),
    )
  })
}
