import type { AccountFields } from '../../store/repositories/account-rows.ts'
import type { Repositories } from '../../store/store.ts'
import type { AppContext } from '../context.ts'

/**
 * One kind of account that signs in with a password and an authenticator: a merchant's member
 * (the dashboard) or a platform member (the console). Sign-in, enrolment, recovery codes, the
 * lockout and sessions are written once against this book; each kind gives its own tables, the
 * subjects its attempts count under, and where its changes are audited.
 */
export type AccountRow = Omit<AccountFields, 'createdAtUs' | 'updatedAtUs'>

export interface AccountSessionRow {
  id: string
  tokenHash: string
  memberId: string
  stage: 'second-factor' | 'enrolment' | 'signed-in'
  createdAtUs: number
  lastSeenAtUs: number
  absoluteEndsAtUs: number
  endedAtUs: number | null
  endedReason: string | null
  address: string
  userAgent: string
}

export interface AccountInvitationRow {
  id: string
  email: string
  role: string
  expiresAtUs: number
  acceptedAtUs: number | null
  revokedAtUs: number | null
}

/** The members' rows of one kind of account, as its repository offers them. */
export interface AccountMembers<A extends AccountRow> {
  findMember(memberId: string): Promise<A | undefined>
  findActiveMemberByEmail(email: string): Promise<A | undefined>
  updateMember(memberId: string, changes: AccountSecretChanges, nowUs: number): Promise<void>
  claimTotpStep(memberId: string, step: number): Promise<boolean>
  replaceRecoveryCodes(memberId: string, codeHashes: string[], nowUs: number): Promise<void>
  useRecoveryCode(memberId: string, codeHash: string, nowUs: number): Promise<boolean>
  countUnusedRecoveryCodes(memberId: string): Promise<number>
}

/** What a member changes of their own account: their secrets and the zone their times are shown in. */
export type AccountSecretChanges = Partial<
  Pick<AccountRow, 'passwordHash' | 'totpSealed' | 'totpLastStep' | 'timeZone'>
>

export interface AccountSessions<A extends AccountRow, S extends AccountSessionRow> {
  insertSession(row: S): Promise<void>
  findLiveSession(tokenHash: string): Promise<{ session: S; member: A } | undefined>
  touchSession(id: string, nowUs: number): Promise<void>
  endSession(id: string, reason: string, nowUs: number): Promise<boolean>
  setStage(id: string, stage: AccountSessionRow['stage']): Promise<void>
  /** Ends the member's live sessions but `exceptSessionId`; returns how many it ended. */
  endSessionsOfMember(
    memberId: string,
    reason: string,
    nowUs: number,
    exceptSessionId?: string,
  ): Promise<number>
}

export interface AccountInvitations<A extends AccountRow, I extends AccountInvitationRow> {
  findInvitationByTokenHash(tokenHash: string): Promise<I | undefined>
  markInvitationAccepted(id: string, memberId: string, nowUs: number): Promise<boolean>
  insertMember(row: A): Promise<void>
}

/** A member acting in a session of theirs, as their kind's audit records them. */
export interface SignedInActor {
  kind: 'member'
  memberId: string
  email: string
  address: string
}

export interface AccountBook<
  A extends AccountRow,
  S extends AccountSessionRow,
  I extends AccountInvitationRow,
> {
  /** The row a member's attempts count in, at sign-in and at every form that checks their secrets. */
  subjectOf(memberId: string): string
  /** The row an email no member has counts in, by a hash of it. */
  unknownEmailSubject(emailHash: string): string
  members(repositories: Repositories): AccountMembers<A>
  sessions(repositories: Repositories): AccountSessions<A, S>
  invitations(repositories: Repositories): AccountInvitations<A, I>
  /** The session row of this kind for a member (the dashboard's names the merchant). */
  sessionRow(member: A, common: AccountSessionRow): S
  /** The member's sessions not ended, newest first (the dashboard's are looked up by merchant). */
  sessionsOf(repositories: Repositories, member: A): Promise<S[]>
  /** The member an accepted invitation makes. */
  memberOf(invitation: I, made: { id: string; name: string; passwordHash: string; nowUs: number }): A
  /** A change of this kind's account, written in `within` (a transaction, or the store). */
  audit(
    context: AppContext,
    actor: SignedInActor,
    change: { action: string; target: string; before?: unknown; after?: unknown; member: A },
    within: Repositories,
  ): Promise<void>
}

/** A session that has not ended, with its member. */
export interface LiveSessionOf<A extends AccountRow, S extends AccountSessionRow> {
  session: S
  member: A
}

export function actorOf(member: AccountRow, address: string): SignedInActor {
  return { kind: 'member', memberId: member.id, email: member.email, address }
}
