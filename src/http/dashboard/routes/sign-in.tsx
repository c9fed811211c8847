import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../../../app/context.ts'
import { acceptInvitation, invitationPageOf } from '../../../app/dashboard/invitations.ts'
import { endSession, type LiveSession } from '../../../app/dashboard/sessions.ts'
import {
  beginEnrolment,
  confirmEnrolment,
  signInWithCode,
  signInWithPassword,
} from '../../../app/dashboard/sign-in.ts'
import { type SignInFlow, sendLockedOutOf, signInPages } from '../../pages/sign-in-routes.tsx'
import type { Guard } from '../guard.tsx'

/** The dashboard's sign-in: the shared pages of pages/sign-in-routes.tsx, on the merchants' members. */
const dashboardFlow: SignInFlow<LiveSession> = {
  base: '/dashboard',
  home: '/dashboard/sandbox',
  signInWithPassword,
  signInWithCode,
  beginEnrolment,
  confirmEnrolment,
  acceptInvitation,
  async invitationIntro(context, page, token) {
    const shown = await invitationPageOf(context, token)
    if (!shown) return undefined
    const { invitation, merchantName } = shown
    return page.t.invitation.intro(merchantName, invitation.email, page.t.roles[invitation.role])
  },
  endSession,
}

/**
 * The answer to an attempt that found the member locked, wherever a secret was asked: the session
 * that made it has ended, and the sign-in page says why.
 */
export function sendLockedOut(
  guard: Guard,
  request: FastifyRequest,
  reply: FastifyReply,
  next = '/dashboard/sandbox',
): FastifyReply {
  return sendLockedOutOf(guard, request, reply, next, '/dashboard')
}

/** Signing in, out, accepting an invitation and enrolling the authenticator. */
export function signInRoutes(app: FastifyInstance, context: AppContext, guard: Guard): void {
  signInPages(app, context, guard, dashboardFlow)
}
