import type { FastifyRequest } from 'fastify'
import type { PlatformActor } from '../../app/console/platform-audit.ts'
import { type PlatformLiveSession, resolvePlatformSession } from '../../app/console/platform-sign-in.ts'
import type { AppContext } from '../../app/context.ts'
import { type PlatformPermission, type PlatformRole, platformMay } from '../../domain/platform-roles.ts'
import { type AreaGuard, createAreaGuard, type SignedInOf } from '../pages/session-guard.tsx'
import { consoleSharedMessagesOf } from './messages/catalogue.ts'

export const consoleSessionCookie = 'sika_console_session'

export type ConsoleGuard = AreaGuard<PlatformRole, PlatformPermission, PlatformLiveSession>
export type ConsoleSignedIn = SignedInOf<PlatformRole, PlatformLiveSession>

/**
 * The console's guard: the dashboard's, on the platform's members and roles, with cookies of its
 * own scoped to /console and a CSRF key of its own.
 */
export function createConsoleGuard(context: AppContext): ConsoleGuard {
  return createAreaGuard(context, {
    base: '/console',
    sessionCookie: consoleSessionCookie,
    formCookie: 'sika_console_form',
    languageCookie: 'sika_console_lang',
    csrfKeyName: 'console-csrf',
    resolve: resolvePlatformSession,
    may: platformMay,
    messages: consoleSharedMessagesOf,
  })
}

/**
 * The member acting in a console request, as the platform audit log records them: with the
 * request's own address, not the one they signed in from, so a session used from elsewhere shows.
 */
export function consoleActorOf(
  signedIn: ConsoleSignedIn,
  request: FastifyRequest,
): Extract<PlatformActor, { kind: 'member' }> {
  const { member } = signedIn.live
  return { kind: 'member', memberId: member.id, email: member.email, address: request.ip }
}
