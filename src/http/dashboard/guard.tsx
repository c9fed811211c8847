import type { AppContext } from '../../app/context.ts'
import { type LiveSession, resolveSession } from '../../app/dashboard/sessions.ts'
import { may, type Permission, type Role } from '../../domain/roles.ts'
import { type AreaGuard, createAreaGuard, type SignedInOf } from '../pages/session-guard.tsx'
import { messagesOf } from './messages/catalogue.ts'

export const sessionCookie = 'sika_session'
export const languageCookie = 'sika_lang'

/** What a guarded route has: the live session, and the page context built from it. */
export type SignedIn = SignedInOf<Role, LiveSession>

/** The dashboard's guard: the shared one of pages/, on the merchants' members and their roles. */
export type Guard = AreaGuard<Role, Permission, LiveSession>

export function createGuard(context: AppContext): Guard {
  return createAreaGuard(context, {
    base: '/dashboard',
    sessionCookie,
    formCookie: 'sika_form',
    languageCookie,
    csrfKeyName: 'dashboard-csrf',
    resolve: resolveSession,
    may,
    messages: messagesOf,
  })
}
