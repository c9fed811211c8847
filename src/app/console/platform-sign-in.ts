import type { PlatformMemberRow } from '../../store/repositories/platform-members.ts'
import type { PlatformSessionRow } from '../../store/repositories/platform-sessions.ts'
import type { AppContext } from '../context.ts'
import type { LiveSessionOf } from '../sign-in/account-book.ts'
import { openInvitationOf } from '../sign-in/invitations.ts'
import { resolveAccountSession } from '../sign-in/sessions.ts'
import { platformAccounts } from './platform-accounts.ts'

/** A live console session, with its platform member. */
export type PlatformLiveSession = LiveSessionOf<PlatformMemberRow, PlatformSessionRow>

/** The console session a cookie names: only the platform's sessions are read, never a merchant's. */
export function resolvePlatformSession(
  context: AppContext,
  token: string,
): Promise<PlatformLiveSession | undefined> {
  return resolveAccountSession(context, platformAccounts, token)
}

export function openPlatformInvitation(context: AppContext, token: string) {
  return openInvitationOf(context, platformAccounts, token)
}

export async function endPlatformSession(
  context: AppContext,
  sessionId: string,
  reason: string,
): Promise<boolean> {
  return context.store.platformSessions.endSession(sessionId, reason, context.clock.nowUs())
}
