import type { FastifyInstance } from 'fastify'
import { platformAccounts } from '../../../app/console/platform-accounts.ts'
import type { PlatformLiveSession } from '../../../app/console/platform-sign-in.ts'
import { endPlatformSession, openPlatformInvitation } from '../../../app/console/platform-sign-in.ts'
import type { AppContext } from '../../../app/context.ts'
import { acceptInvitationOf } from '../../../app/sign-in/invitations.ts'
import {
  beginEnrolmentOf,
  confirmEnrolmentOf,
  signInWithCodeOf,
  signInWithPasswordOf,
} from '../../../app/sign-in/sign-in.ts'
import { type SignInFlow, signInPages } from '../../pages/sign-in-routes.tsx'
import type { ConsoleGuard } from '../guard.ts'
import { consoleMessagesOf } from '../messages/catalogue.ts'

/** The console's sign-in: the dashboard's own pages and steps, on the platform's members. */
const consoleFlow: SignInFlow<PlatformLiveSession> = {
  base: '/console',
  home: '/console',
  signInWithPassword: (context, input, client) =>
    signInWithPasswordOf(context, platformAccounts, input, client),
  signInWithCode: (context, live, code, client) =>
    signInWithCodeOf(context, platformAccounts, live, code, client),
  beginEnrolment: (context, live) => beginEnrolmentOf(context, platformAccounts, live),
  confirmEnrolment: (context, live, code, client) =>
    confirmEnrolmentOf(context, platformAccounts, live, code, client),
  acceptInvitation: (context, token, input, client) =>
    acceptInvitationOf(context, platformAccounts, token, input, client),
  async invitationIntro(context, page, token) {
    const invitation = await openPlatformInvitation(context, token)
    if (!invitation) return undefined
    const words = consoleMessagesOf(page.locale)
    return page.t.invitation.intro(words.product, invitation.email, words.roles[invitation.role])
  },
  endSession: endPlatformSession,
}

export function consoleSignInRoutes(app: FastifyInstance, context: AppContext, guard: ConsoleGuard): void {
  signInPages(app, context, guard, consoleFlow)
}
