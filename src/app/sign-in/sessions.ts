import type { AppContext } from '../context.ts'
import type {
  AccountBook,
  AccountInvitationRow,
  AccountRow,
  AccountSessionRow,
  LiveSessionOf,
} from './account-book.ts'
import { hourUs, minuteUs, newBearerToken, newId, tokenHashOf } from './tokens.ts'

/** A session ends after 30 minutes without a request, and 12 hours after it began in any case. */
export const sessionIdleUs = 30 * minuteUs
export const sessionLifetimeUs = 12 * hourUs
/** A request writes the session's last use at most this often: reading a page stays one read. */
const touchEveryUs = minuteUs

/** A session a member could still use now: signed in, neither idle nor past its lifetime. */
export function isInUse(session: AccountSessionRow, nowUs: number): boolean {
  return (
    session.stage === 'signed-in' &&
    nowUs < session.absoluteEndsAtUs &&
    nowUs < session.lastSeenAtUs + sessionIdleUs
  )
}

/** Where the request comes from, as the session records it. */
export interface SessionClient {
  address: string
  userAgent: string
}

export interface OpenedSessionOf<A extends AccountRow, S extends AccountSessionRow> {
  /** The cookie's value: the store holds only its hash. */
  token: string
  session: S
  member: A
}

export async function openAccountSession<
  A extends AccountRow,
  S extends AccountSessionRow,
  I extends AccountInvitationRow,
>(
  context: AppContext,
  book: AccountBook<A, S, I>,
  member: A,
  stage: AccountSessionRow['stage'],
  client: SessionClient,
): Promise<OpenedSessionOf<A, S>> {
  const { token, tokenHash } = newBearerToken()
  const nowUs = context.clock.nowUs()
  const session = book.sessionRow(member, {
    id: newId('ses'),
    tokenHash,
    memberId: member.id,
    stage,
    createdAtUs: nowUs,
    lastSeenAtUs: nowUs,
    absoluteEndsAtUs: nowUs + sessionLifetimeUs,
    endedAtUs: null,
    endedReason: null,
    address: client.address.slice(0, 64),
    userAgent: client.userAgent.slice(0, 256),
  })
  await book.sessions(context.store).insertSession(session)
  return { token, session, member }
}

/**
 * The session a cookie names, when it has not ended, is not idle or past its lifetime, and its
 * member is still a member. Every instance reads the store, so a session ended on one has ended
 * on all by the next request. Each kind of account has its own sessions: a token of one is
 * nothing to another.
 */
export async function resolveAccountSession<
  A extends AccountRow,
  S extends AccountSessionRow,
  I extends AccountInvitationRow,
>(context: AppContext, book: AccountBook<A, S, I>, token: string): Promise<LiveSessionOf<A, S> | undefined> {
  if (token === '' || token.length > 100) return undefined
  const sessions = book.sessions(context.store)
  const found = await sessions.findLiveSession(tokenHashOf(token))
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
    await sessions.endSession(session.id, ending, nowUs)
    return undefined
  }
  if (nowUs - session.lastSeenAtUs >= touchEveryUs) {
    await sessions.touchSession(session.id, nowUs)
    session.lastSeenAtUs = nowUs
  }
  return found
}
