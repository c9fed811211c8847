import type { MemberRow } from '../../store/repositories/members.ts'
import type { AppContext } from '../context.ts'
import { type Actor, audit } from './audit.ts'
import { passwordMatches } from './passwords.ts'
import { type DashboardRefusal, refusal } from './refusals.ts'
import {
  looksLikeRecoveryCode,
  newRecoveryCodes,
  newTotpSecret,
  recoveryCodeHash,
  totpStepOf,
  totpUri,
} from './second-factor.ts'
import { type LiveSession, type OpenedSession, openSession, type SessionClient } from './sessions.ts'
import { minuteUs, tokenHashOf } from './tokens.ts'

/** Five failed sign-ins of one account lock it for 15 minutes. */
const failuresBeforeLock = 5
const lockUs = 15 * minuteUs
/** An address may fail this many sign-ins in a window, whichever accounts it tries. */
const addressFailuresPerWindow = 20
const addressWindowUs = 15 * minuteUs

function addressWindowStartUs(nowUs: number): number {
  return nowUs - (nowUs % addressWindowUs)
}

/**
 * The password step. An unknown email and a wrong password get the same refusal, after the same
 * work; an unknown email's failures are counted as a member's are (under its hash), so it locks
 * alike and the lock says nothing either. A right password resets no count: only a whole sign-in
 * does, so the code step cannot be guessed at by signing in with the password again and again.
 */
export async function signInWithPassword(
  context: AppContext,
  input: { email: string; password: string },
  client: SessionClient,
): Promise<OpenedSession | DashboardRefusal> {
  const nowUs = context.clock.nowUs()
  const { members } = context.store
  if (
    (await members.addressFailures(client.address, addressWindowStartUs(nowUs))) >= addressFailuresPerWindow
  )
    return refusal('address_throttled', { minutes: 15 })
  const email = input.email.trim().toLowerCase()
  const emailHash = tokenHashOf(`email:${email}`)
  const member = await members.findActiveMemberByEmail(email)
  const lockedUntilUs = member ? member.lockedUntilUs : await members.unknownEmailLock(emailHash)
  if (lockedUntilUs !== null && lockedUntilUs > nowUs) return refusal('account_locked')
  if (member && (await passwordMatches(member.passwordHash, input.password))) {
    const stage = member.totpSealed === null || member.totpLastStep === 0 ? 'enrolment' : 'second-factor'
    return openSession(context, member, stage, client)
  }
  if (!member) await passwordMatches(null, input.password)
  return failedAttempt(context, { member, emailHash }, client)
}

/** A failed password or code: counted for the account (or the unknown email) and the address. */
async function failedAttempt(
  context: AppContext,
  who: { member: MemberRow | undefined; emailHash?: string },
  client: SessionClient,
): Promise<DashboardRefusal> {
  const nowUs = context.clock.nowUs()
  const { members } = context.store
  await members.countAddressFailure(client.address, addressWindowStartUs(nowUs))
  const { lockedUntilUs } = who.member
    ? await members.recordFailedSignIn(who.member.id, failuresBeforeLock, nowUs + lockUs, nowUs)
    : await members.recordUnknownEmailFailure(who.emailHash ?? '', failuresBeforeLock, nowUs + lockUs)
  return lockedUntilUs !== null && lockedUntilUs > nowUs
    ? refusal('account_locked')
    : refusal('sign_in_failed')
}

/**
 * The second step: a 6-digit code from the authenticator, never the same one twice, or a recovery
 * code once. Its failures count toward the account's lock as the password's do, and a locked
 * account's code step ends.
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
  const locked = !member || (member.lockedUntilUs !== null && member.lockedUntilUs > nowUs)
  const accepted =
    !locked &&
    (looksLikeRecoveryCode(code)
      ? await useRecoveryCode(context, member, code, client)
      : await claimTotpCode(context, member, code))
  if (!accepted) {
    const refused = locked ? refusal('account_locked') : await failedAttempt(context, { member }, client)
    if (refused.refused !== 'account_locked') return refusal('code_wrong')
    await context.store.dashboardSessions.endSession(session.id, 'locked', nowUs)
    return refused
  }
  if (member.failedSignIns > 0)
    await context.store.members.updateMember(member.id, { failedSignIns: 0 }, nowUs)
  // A fresh session once both factors are proven: the token the password step handed out ends.
  await context.store.dashboardSessions.endSession(session.id, 'second factor passed', nowUs)
  return openSession(context, member, 'signed-in', client)
}

/** True when the code is right now and its time step is later than any this member used. */
export async function claimTotpCode(context: AppContext, member: MemberRow, code: string): Promise<boolean> {
  if (member.totpSealed === null) return false
  const step = await totpStepOf(
    context.secrets.open(member.totpSealed),
    code.trim(),
    context.clock.nowUs() / 1000,
  )
  return step !== undefined && (await context.store.members.claimTotpStep(member.id, step))
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

/** The first code confirms the authenticator: the session is signed in, and ten recovery codes are shown once. */
export async function confirmEnrolment(
  context: AppContext,
  live: LiveSession,
  code: string,
  client: SessionClient,
): Promise<{ opened: OpenedSession; recoveryCodes: string[] } | DashboardRefusal> {
  const fresh = await context.store.members.findMember(live.member.id)
  if (!fresh || !(await claimTotpCode(context, fresh, code))) return refusal('code_wrong')
  const recoveryCodes = newRecoveryCodes()
  const nowUs = context.clock.nowUs()
  const actor: Actor = { kind: 'member', memberId: fresh.id, email: fresh.email, address: client.address }
  await context.store.transaction(async (tx) => {
    await tx.members.replaceRecoveryCodes(fresh.id, recoveryCodes.map(recoveryCodeHash), nowUs)
    const enrolled = { merchantId: fresh.merchantId, action: 'authenticator.enrolled', target: fresh.email }
    await audit(context, actor, enrolled, tx)
    await tx.dashboardSessions.endSession(live.session.id, 'enrolled', nowUs)
  })
  const opened = await openSession(context, fresh, 'signed-in', client)
  return { opened, recoveryCodes }
}
