import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../../app/context.ts'
import { dashboardAccounts } from '../../../app/dashboard/accounts.ts'
import { accountRoutesOf } from '../../pages/account-routes.tsx'
import type { Guard } from '../guard.tsx'
import { memberPage } from '../layout.tsx'

/** The member's own account: every role has one (the page and its forms are pages/account-routes.tsx). */
export function accountRoutes(app: FastifyInstance, context: AppContext, guard: Guard): void {
  accountRoutesOf(app, context, {
    base: '/dashboard',
    home: '/dashboard/sandbox',
    guard,
    permission: 'read',
    book: dashboardAccounts,
    frame: memberPage,
    roleName: (page, role) => page.t.roles[role],
  })
}
