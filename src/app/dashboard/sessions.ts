import type { SessionRow } from '../../store/repositories/dashboard-sessions.ts'
import type { MemberRow } from '../../store/repositories/members.ts'
import type { AppContext } from '../context.ts'
import { hourUs, minuteUs, newBearerToken, newId, tokenHashOf } from './tokens.ts'

/** A session ends after 30 minutes without a request, and 12 hours after it began in any case. */
export const sessionIdleUs = 30 * minuteUs
export const sessionLifetimeUs = 12 * hourUs
/** A request writes the session's last use at most this often: reading a page stays one read. */
const touchEveryUs = minuteUs

/** Where the request comes from, as the session records it. */
export interface SessionClient {
  address: string
  userAgent: string
}

export interface OpenedSession {
  /** The cookie's value: the store holds only its hash. */
  token: string
  session: SessionRow
  member: MemberRow
}

export interface LiveSession {
  session: SessionRow
  member: MemberRow
}

export async function openSession(
  context: AppContext,
  member: MemberRow,
  stage: SessionRow['stage'],
  client: SessionClient,
): Promise<OpenedSession> {
  const { token, tokenHash } = newBearerToken()
  const nowUs = context.clock.nowUs()
  const session: SessionRow = {
    id: newId('ses'),
    tokenHash,
    memberId: member.id,
    merchantId: member.merchantId,
    stage,
    createdAtUs: nowUs,
    lastSeenAtUs: nowUs,
    absoluteEndsAtUs: nowUs + sessionLifetimeUs,
    endedAtUs: null,
    endedReason: null,
    address: client.address.slice(0, 64),
    userAgent: client.userAgent.slice(0, 256),
  }
  await context.store.dashboardSessions.insertSession(session)
  return { token, session, member }
}

/**
 * The session a cookie names, when it has not ended, is not idle or past its lifetime, and its
 * member is still a member. Every instance reads the store, so a session ended on one has ended
 * on all by the next request.
 */
export async function resolveSession(context: AppContext, token: string): Promise<LiveSession | undefined> {
  if (token === '' || token.length > 100) return undefined
  const found = await context.store.dashboardSessions.findLiveSession(tokenHashOf(token))
  if (!found) return undefined
  const { session, member } = found
  const nowUs = context.clock.nowUs()
  const ending =
    member.removedAtUs !== null
      ? 'member removed'
      : nowUs >= session.absoluteEndsAtUs
        ? 'lifetime'
        : nowUs >= session.lastSeenAtUs + sessionIdleUs
          ? 'idle'
          : undefined
  if (ending) {
    await context.store.dashboardSessions.endSession(session.id, ending, nowUs)
    return undefined
  }
  if (nowUs - session.lastSeenAtUs >= touchEveryUs) {
    await context.store.dashboardSessions.touchSession(session.id, nowUs)
    session.lastSeenAtUs = nowUs
  }
  return found
}

export async function endSession(context: AppContext, sessionId: string, reason: string): Promise<boolean> {
  return context.store.dashboardSessions.endSession(sessionId, reason, context.clock.nowUs())
}
