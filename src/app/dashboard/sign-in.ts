import type { MemberRow } from '../../store/repositories/members.ts'
import type { AppContext } from '../context.ts'
import { attemptSecret, startCountAgain } from '../mechanisms/secret-attempts.ts'
import { type Actor, audit } from './audit.ts'
import { claimTotpCode, confirmCode, memberSubject, refusalOfAttempt } from './member-secrets.ts'
import { passwordMatches } from './passwords.ts'
import { type DashboardRefusal, refusal } from './refusals.ts'
import {
  looksLikeRecoveryCode,
  newRecoveryCodes,
  newTotpSecret,
  recoveryCodeHash,
  totpUri,
} from './second-factor.ts'
import { type LiveSession, type OpenedSession, openSession, type SessionClient } from './sessions.ts'
import { tokenHashOf } from './tokens.ts'

/**
 * The password step. An unknown email and a wrong password get the same refusal, after the same
 * work; an unknown email's attempts are counted as a member's are (under its hash), so it locks
 * alike and the lock says nothing either. A right password gives its attempt back and resets no
 * count: only a whole sign-in does, so the code step cannot be guessed at by signing in with the
 * password again and again. The hash runs in a place of the instance's password work, taken
 * before anything is counted: a sign-in refused for want of one has cost a comparison.
 */
export async function signInWithPassword(
  context: AppContext,
  input: { email: string; password: string },
  client: SessionClient,
): Promise<OpenedSession | DashboardRefusal> {
  const turn = context.passwordWork.take(client.address)
  if (!turn) return refusal('password_checks_busy')
  try {
    const email = input.email.trim().toLowerCase()
    const member = await context.store.members.findActiveMemberByEmail(email)
    const subject = member ? memberSubject(member.id) : `email:${tokenHashOf(`email:${email}`)}`
    const outcome = await attemptSecret(context, { subject, address: client.address }, () =>
      turn.run(() => passwordMatches(member?.passwordHash ?? null, input.password)),
    )
    if (outcome !== 'right') return refusalOfAttempt(outcome, 'sign_in_failed')
    // Never so: an unknown email's password is checked against a hash no password matches.
    if (!member) return refusal('sign_in_failed')
    const stage = member.totpSealed === null || member.totpLastStep === 0 ? 'enrolment' : 'second-factor'
    return await openSession(context, member, stage, client)
  } finally {
    turn.release()
  }
}

/**
 * The second step: a 6-digit code from the authenticator, never the same one twice, or a recovery
 * code once. It counts with the password's attempts; the attempt that finds the account locked
 * ends the code step's session.
 */
export async function signInWithCode(
  context: AppContext,
  live: LiveSession,
  code: string,
  client: SessionClient,
): Promise<OpenedSession | DashboardRefusal> {
  const { session } = live
  const nowUs = context.clock.nowUs()
  const member = await context.store.members.findMember(live.member.id)
  if (!member) {
    await context.store.dashboardSessions.endSession(session.id, 'locked', nowUs)
    return refusal('account_locked')
  }
  const subject = memberSubject(member.id)
  const outcome = await attemptSecret(context, { subject, address: client.address }, () =>
    looksLikeRecoveryCode(code)
      ? useRecoveryCode(context, member, code, client)
      : claimTotpCode(context, member, code),
  )
  if (outcome !== 'right') {
    if (outcome === 'locked') await context.store.dashboardSessions.endSession(session.id, 'locked', nowUs)
    return refusalOfAttempt(outcome, 'code_wrong')
  }
  await startCountAgain(context, subject)
  // A fresh session once both factors are proven: the token the password step handed out ends.
  await context.store.dashboardSessions.endSession(session.id, 'second factor passed', nowUs)
  return openSession(context, member, 'signed-in', client)
}

async function useRecoveryCode(
  context: AppContext,
  member: MemberRow,
  code: string,
  client: SessionClient,
): Promise<boolean> {
  const used = await context.store.members.useRecoveryCode(
    member.id,
    recoveryCodeHash(code),
    context.clock.nowUs(),
  )
  if (used) {
    const actor: Actor = { kind: 'member', memberId: member.id, email: member.email, address: client.address }
    await audit(context, actor, {
      merchantId: member.merchantId,
      action: 'recovery_code.used',
      target: member.email,
    })
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
export async function beginEnrolment(context: AppContext, live: LiveSession): Promise<Enrolment> {
  const { member } = live
  let secret: string
  if (member.totpSealed !== null && member.totpLastStep === 0)
    secret = context.secrets.open(member.totpSealed)
  else {
    secret = newTotpSecret()
    await context.store.members.updateMember(
      member.id,
      { totpSealed: context.secrets.seal(secret), totpLastStep: 0 },
      context.clock.nowUs(),
    )
    member.totpSealed = context.secrets.seal(secret)
  }
  return { secret, uri: totpUri(secret, member.email) }
}

/**
 * The first code confirms the authenticator: the session is signed in, and ten recovery codes are
 * shown once. The code counts with the member's other attempts, and confirming it is a whole
 * sign-in.
 */
export async function confirmEnrolment(
  context: AppContext,
  live: LiveSession,
  code: string,
  client: SessionClient,
): Promise<{ opened: OpenedSession; recoveryCodes: string[] } | DashboardRefusal> {
  const { member, session } = live
  const holder = { memberId: member.id, sessionId: session.id, address: client.address }
  const confirmed = await confirmCode(context, holder, code)
  if (confirmed !== true) return confirmed
  await startCountAgain(context, memberSubject(member.id))
  const recoveryCodes = newRecoveryCodes()
  const nowUs = context.clock.nowUs()
  const actor: Actor = { kind: 'member', memberId: member.id, email: member.email, address: client.address }
  await context.store.transaction(async (tx) => {
    await tx.members.replaceRecoveryCodes(member.id, recoveryCodes.map(recoveryCodeHash), nowUs)
    const enrolled = { merchantId: member.merchantId, action: 'authenticator.enrolled', target: member.email }
    await audit(context, actor, enrolled, tx)
    await tx.dashboardSessions.endSession(session.id, 'enrolled', nowUs)
  })
  const opened = await openSession(context, member, 'signed-in', client)
  return { opened, recoveryCodes }
}
