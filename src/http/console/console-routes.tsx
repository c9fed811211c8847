import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../app/context.ts'
import { registerPageArea } from '../pages/page-area.tsx'
import { type ConsoleGuard, createConsoleGuard } from './guard.ts'
import { consoleAccountRoutes } from './routes/account.tsx'
import { consoleAuditRoutes } from './routes/audit.tsx'
import { consoleHomeRoutes } from './routes/home.tsx'
import { consoleMerchantsRoutes } from './routes/merchants.tsx'
import { consoleOperationsRoutes } from './routes/operations.tsx'
import { consoleOperatorAccountsRoutes } from './routes/operator-accounts.tsx'
import { consoleReconciliationRoutes } from './routes/reconciliation.tsx'
import { consoleSignInRoutes } from './routes/sign-in.tsx'
import { consoleTeamRoutes } from './routes/team.tsx'

/** Each area of the console registers its pages here, with the guard that checks the platform's members. */
const areas: ((app: FastifyInstance, context: AppContext, guard: ConsoleGuard) => void)[] = [
  consoleSignInRoutes,
  consoleHomeRoutes,
  consoleMerchantsRoutes,
  consoleOperationsRoutes,
  consoleTeamRoutes,
  consoleAuditRoutes,
  consoleAccountRoutes,
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
  registerPageArea(app, { base: '/console', name: 'console', guard }, () => {
    for (const area of areas) area(app, context, guard)
  })
}
