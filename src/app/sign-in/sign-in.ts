import type { AppContext } from '../context.ts'
import { type DashboardRefusal, refusal } from '../dashboard/refusals.ts'
import { attemptSecret, startCountAgain } from '../mechanisms/secret-attempts.ts'
import {
  type AccountBook,
  type AccountInvitationRow,
  type AccountRow,
  type AccountSessionRow,
  actorOf,
  type LiveSessionOf,
} from './account-book.ts'
import { passwordMatches } from './passwords.ts'
import {
  looksLikeRecoveryCode,
  newRecoveryCodes,
  newTotpSecret,
  recoveryCodeHash,
  totpUri,
} from './second-factor.ts'
import { claimTotpCodeOf, confirmCodeOf, refusalOfAttempt } from './secrets.ts'
import { type OpenedSessionOf, openAccountSession, type SessionClient } from './sessions.ts'
import { tokenHashOf } from './tokens.ts'

/**
 * The password step. An unknown email and a wrong password get the same refusal, after the same
 * work; an unknown email's attempts are counted as a member's are (under its hash), so it locks
 * alike and the lock says nothing either. A right password gives its attempt back and resets no
 * count: only a whole sign-in does, so the code step cannot be guessed at by signing in with the
 * password again and again. The hash runs in a place of the instance's password work, taken
 * before anything is counted: a sign-in refused for want of one has cost a comparison.
 */
export async function signInWithPasswordOf<
  A extends AccountRow,
  S extends AccountSessionRow,
  I extends AccountInvitationRow,
>(
  context: AppContext,
  book: AccountBook<A, S, I>,
  input: { email: string; password: string },
  client: SessionClient,
): Promise<OpenedSessionOf<A, S> | DashboardRefusal> {
  const turn = context.passwordWork.take(client.address)
  if (!turn) return refusal('password_checks_busy')
  try {
    const email = input.email.trim().toLowerCase()
    const member = await book.members(context.store).findActiveMemberByEmail(email)
    const subject = member
      ? book.subjectOf(member.id)
      : book.unknownEmailSubject(tokenHashOf(`email:${email}`))
    const outcome = await attemptSecret(context, { subject, address: client.address }, () =>
      turn.run(() => passwordMatches(member?.passwordHash ?? null, input.password)),
    )
    if (outcome !== 'right') return refusalOfAttempt(outcome, 'sign_in_failed')
    // Never so: an unknown email's password is checked against a hash no password matches.
    if (!member) return refusal('sign_in_failed')
    const stage = member.totpSealed === null || member.totpLastStep === 0 ? 'enrolment' : 'second-factor'
    return await openAccountSession(context, book, member, stage, client)
  } finally {
    turn.release()
  }
}

/**
 * The second step: a 6-digit code from the authenticator, never the same one twice, or a recovery
 * code once. It counts with the password's attempts; the attempt that finds the account locked
 * ends the code step's session.
 */
export async function signInWithCodeOf<
  A extends AccountRow,
  S extends AccountSessionRow,
  I extends AccountInvitationRow,
>(
  context: AppContext,
  book: AccountBook<A, S, I>,
  live: LiveSessionOf<A, S>,
  code: string,
  client: SessionClient,
): Promise<OpenedSessionOf<A, S> | DashboardRefusal> {
  const { session } = live
  const sessions = book.sessions(context.store)
  const nowUs = context.clock.nowUs()
  const member = await book.members(context.store).findMember(live.member.id)
  if (!member) {
    await sessions.endSession(session.id, 'locked', nowUs)
    return refusal('account_locked')
  }
  const subject = book.subjectOf(member.id)
  const outcome = await attemptSecret(context, { subject, address: client.address }, () =>
    looksLikeRecoveryCode(code)
      ? useRecoveryCode(context, book, member, code, client)
      : claimTotpCodeOf(context, book, member, code),
  )
  if (outcome !== 'right') {
    if (outcome === 'locked') await sessions.endSession(session.id, 'locked', nowUs)
    return refusalOfAttempt(outcome, 'code_wrong')
  }
  await startCountAgain(context, subject)
  // A fresh session once both factors are proven: the token the password step handed out ends.
  await sessions.endSession(session.id, 'second factor passed', nowUs)
  return openAccountSession(context, book, member, 'signed-in', client)
}

async function useRecoveryCode<A extends AccountRow>(
  context: AppContext,
  book: AccountBook<A, AccountSessionRow, AccountInvitationRow>,
  member: A,
  code: string,
  client: SessionClient,
): Promise<boolean> {
  const nowUs = context.clock.nowUs()
  const used = await book.members(context.store).useRecoveryCode(member.id, recoveryCodeHash(code), nowUs)
  if (used) {
    const change = { action: 'recovery_code.used', target: member.email, member }
    await book.audit(context, actorOf(member, client.address), change, context.store)
  }
  return used
}

export interface Enrolment {
  secret: string
  uri: string
}

/**
 * The authenticator being enrolled: a secret made for this member, sealed in the store until the
 * first code confirms it. The page shows it again until then.
 */
export async function beginEnrolmentOf<A extends AccountRow>(
  context: AppContext,
  book: AccountBook<A, AccountSessionRow, AccountInvitationRow>,
  live: { member: A },
): Promise<Enrolment> {
  const { member } = live
  let secret: string
  if (member.totpSealed !== null && member.totpLastStep === 0)
    secret = context.secrets.open(member.totpSealed)
  else {
    secret = newTotpSecret()
    const sealed = context.secrets.seal(secret)
    await book
      .members(context.store)
      .updateMember(member.id, { totpSealed: sealed, totpLastStep: 0 }, context.clock.nowUs())
    member.totpSealed = sealed
  }
  return { secret, uri: totpUri(secret, member.email) }
}

/**
 * The first code confirms the authenticator: the session is signed in, and ten recovery codes are
 * shown once. The code counts with the member's other attempts, and confirming it is a whole
 * sign-in.
 */
export async function confirmEnrolmentOf<
  A extends AccountRow,
  S extends AccountSessionRow,
  I extends AccountInvitationRow,
>(
  context: AppContext,
  book: AccountBook<A, S, I>,
  live: LiveSessionOf<A, S>,
  code: string,
  client: SessionClient,
): Promise<{ opened: OpenedSessionOf<A, S>; recoveryCodes: string[] } | DashboardRefusal> {
  const { member, session } = live
  const holder = { memberId: member.id, sessionId: session.id, address: client.address }
  const confirmed = await confirmCodeOf(context, book, holder, code)
  if (confirmed !== true) return confirmed
  await startCountAgain(context, book.subjectOf(member.id))
  const recoveryCodes = newRecoveryCodes()
  const nowUs = context.clock.nowUs()
  await context.store.transaction(async (tx) => {
    await book.members(tx).replaceRecoveryCodes(member.id, recoveryCodes.map(recoveryCodeHash), nowUs)
    const enrolled = { action: 'authenticator.enrolled', target: member.email, member }
    await book.audit(context, actorOf(member, client.address), enrolled, tx)
    await book.sessions(tx).endSession(session.id, 'enrolled', nowUs)
  })
  const opened = await openAccountSession(context, book, member, 'signed-in', client)
  return { opened, recoveryCodes }
}
