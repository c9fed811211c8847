import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../app/context.ts'
import { registerPageArea } from '../pages/page-area.tsx'
import { createGuard, type Guard } from './guard.tsx'
import { redirect } from './respond.ts'
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
  // Multipart bodies only on the uploads, in a scope of their own (uploads.ts).
  registerPageArea(app, { base: '/dashboard', name: 'dashboard', guard }, () => {
    app.get('/dashboard/assets/dashboard.css', async (_request, reply) =>
      reply
        .header('content-type', 'text/css; charset=utf-8')
        .header('cache-control', 'public, max-age=3600')
        .header('x-content-type-options', 'nosniff')
        .send(dashboardCss),
    )
    app.get('/dashboard', async (_request, reply) => redirect(reply, '/dashboard/sandbox'))
    for (const area of areas) area(app, context, guard)
  })
}
