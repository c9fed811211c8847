import type { FastifyInstance } from 'fastify'
import { platformAccounts } from '../../../app/console/platform-accounts.ts'
import type { AppContext } from '../../../app/context.ts'
import { accountRoutesOf } from '../../pages/account-routes.tsx'
import type { ConsoleGuard } from '../guard.ts'
import { consolePage } from '../layout.tsx'
import { consoleMessagesOf } from '../messages/catalogue.ts'

/**
 * A platform member's own account, for every platform role: the dashboard's page and forms
 * (pages/account-routes.tsx) on the platform's book, so its changes go to the platform audit log.
 */
export function consoleAccountRoutes(app: FastifyInstance, context: AppContext, guard: ConsoleGuard): void {
  accountRoutesOf(app, context, {
    base: '/console',
    home: '/console',
    guard,
    permission: 'read',
    book: platformAccounts,
    frame: consolePage,
    roleName: (page, role) => consoleMessagesOf(page.locale).roles[role],
    intro: (page) => consoleMessagesOf(page.locale).account.intro,
  })
}
