import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../app/context.ts'
import { ApiError } from '../../errors.ts'
import { plainPage } from '../dashboard/layout.tsx'
import { areaPath, redirect, sendPage } from '../dashboard/respond.ts'
import { bodyIsSmall } from '../pages/session-guard.tsx'
import { type ConsoleGuard, createConsoleGuard } from './guard.ts'
import { consoleAuditRoutes } from './routes/audit.tsx'
import { consoleHomeRoutes } from './routes/home.tsx'
import { consoleOperatorAccountsRoutes } from './routes/operator-accounts.tsx'
import { consoleReconciliationRoutes } from './routes/reconciliation.tsx'
import { consoleSignInRoutes } from './routes/sign-in.tsx'
import { consoleTeamRoutes } from './routes/team.tsx'

/** Each area of the console registers its pages here, with the guard that checks the platform's members. */
const areas: ((app: FastifyInstance, context: AppContext, guard: ConsoleGuard) => void)[] = [
  consoleSignInRoutes,
  consoleHomeRoutes,
  consoleTeamRoutes,
  consoleAuditRoutes,
  consoleOperatorAccountsRoutes,
  consoleReconciliationRoutes,
]

/**
 * The platform console (CONTRACT.md, Platform console): server-rendered pages under /console for
 * the platform's own staff, in their own scope, with the dashboard's headers, escaping, sign-in
 * and guard, and sessions and cookies of their own.
 */
export async function consoleRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const guard = createConsoleGuard(context)
  // Pages for people, not the API: none of them is part of the OpenAPI document.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true }
  })
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 64 * 1024 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  )
  app.setErrorHandler((error, request, reply) => {
    const status =
      error instanceof ApiError ? error.status : ((error as { statusCode?: number }).statusCode ?? 500)
    if (status >= 500) request.log.error({ err: error }, 'console page failed')
    if ((status === 413 || status === 415) && !bodyIsSmall(request)) reply.header('connection', 'close')
    const page = guard.pageOf(request)
    const [title, text] =
      status === 404
        ? [page.t.errors.notFoundTitle, page.t.errors.notFound]
        : [page.t.errors.failedTitle, page.t.errors.failed]
    return sendPage(reply, status >= 400 ? status : 500, plainPage(page, title, <p class="error">{text}</p>))
  })
  app.get('/console/language', async (request, reply) => {
    const { lang, back } = request.query as { lang?: string; back?: string }
    reply.header('set-cookie', guard.languageCookie(lang === 'fr' ? 'fr' : 'en'))
    return redirect(reply, areaPath('/console', back, '/console'))
  })
  for (const area of areas) area(app, context, guard)
  // Declared last: any other path under /console is a page that says nothing is there.
  app.all('/console/*', async (request, reply) => {
    const page = guard.pageOf(request)
    return sendPage(
      reply,
      404,
      plainPage(page, page.t.errors.notFoundTitle, <p class="error">{page.t.errors.notFound}</p>),
    )
  })
}
