import type { SessionRow } from '../../store/repositories/dashboard-sessions.ts'
import type { MemberRow } from '../../store/repositories/members.ts'
import type { AppContext } from '../context.ts'
import type { LiveSessionOf } from '../sign-in/account-book.ts'
import {
  type OpenedSessionOf,
  openAccountSession,
  resolveAccountSession,
  type SessionClient,
} from '../sign-in/sessions.ts'
import { dashboardAccounts } from './accounts.ts'

export { type SessionClient, sessionIdleUs, sessionLifetimeUs } from '../sign-in/sessions.ts'

/** The dashboard's sessions: the shared sessions of sign-in/, on the merchants' members' tables. */
export type OpenedSession = OpenedSessionOf<MemberRow, SessionRow>
export type LiveSession = LiveSessionOf<MemberRow, SessionRow>

export function openSession(
  context: AppContext,
  member: MemberRow,
  stage: SessionRow['stage'],
  client: SessionClient,
): Promise<OpenedSession> {
  return openAccountSession(context, dashboardAccounts, member, stage, client)
}

export function resolveSession(context: AppContext, token: string): Promise<LiveSession | undefined> {
  return resolveAccountSession(context, dashboardAccounts, token)
}

export async function endSession(context: AppContext, sessionId: string, reason: string): Promise<boolean> {
  return context.store.dashboardSessions.endSession(sessionId, reason, context.clock.nowUs())
}
