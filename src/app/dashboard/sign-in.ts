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
 * work; an unknown email's failures are counted under its hash, so it locks like an account does
 * and the lock says nothing either.
 */
export async function signInWithPassword(
  context: AppContext,
  input: { email: string; password: string },
  client: SessionClient,
): Promise<OpenedSession | DashboardRefusal> {
  const nowUs = context.clock.nowUs()
  const { members } = context.store
  const windowStartUs = addressWindowStartUs(nowUs)
  if ((await members.addressFailures(client.address, windowStartUs)) >= addressFailuresPerWindow)
    return refusal('address_throttled', { minutes: 15 })
  const email = input.email.trim().toLowerCase()
  const member = await members.findActiveMemberByEmail(email)
  const lockedUntilUs = member
    ? member.lockedUntilUs
    : await unknownEmailLock(context, email, windowStartUs, false)
  if (lockedUntilUs !== null && lockedUntilUs > nowUs)
    return refusal('account_locked', { untilUs: lockedUntilUs })
  if (member && (await passwordMatches(member.passwordHash, input.password))) {
    if (member.failedSignIns > 0) await members.updateMember(member.id, { failedSignIns: 0 }, nowUs)
    const stage = member.totpSealed === null || member.totpLastStep === 0 ? 'enrolment' : 'second-factor'
    return openSession(context, member, stage, client)
  }
  if (!member) await passwordMatches(null, input.password)
  await members.countAddressFailure(client.address, windowStartUs)
  const lock = member
    ? (await members.recordFailedSignIn(member.id, failuresBeforeLock, nowUs + lockUs, nowUs)).lockedUntilUs
    : await unknownEmailLock(context, email, windowStartUs, true)
  return lock !== null && lock > nowUs
    ? refusal('account_locked', { untilUs: lock })
    : refusal('sign_in_failed')
}

/** An unknown email's lock, counted per window under the hash of the email. */
async function unknownEmailLock(
  context: AppContext,
  email: string,
  windowStartUs: number,
  failed: boolean,
): Promise<number | null> {
  const key = `email:${tokenHashOf(email)}`
  const { members } = context.store
  const failures = failed
    ? await members.countAddressFailure(key, windowStartUs)
    : await members.addressFailures(key, windowStartUs)
  return failures >= failuresBeforeLock ? windowStartUs + addressWindowUs : null
}

/** The second step: a 6-digit code from the authenticator, never the same one twice, or a recovery code once. */
export async function signInWithCode(
  context: AppContext,
  live: LiveSession,
  code: string,
  client: SessionClient,
): Promise<OpenedSession | DashboardRefusal> {
  const { member, session } = live
  const accepted = looksLikeRecoveryCode(code)
    ? await useRecoveryCode(context, member, code, client)
    : await claimTotpCode(context, member, code)
  if (!accepted) {
    const nowUs = context.clock.nowUs()
    const { lockedUntilUs } = await context.store.members.recordFailedSignIn(
      member.id,
      failuresBeforeLock,
      nowUs + lockUs,
      nowUs,
    )
    if (lockedUntilUs !== null && lockedUntilUs > nowUs) {
      await context.store.dashboardSessions.endSession(session.id, 'locked', nowUs)
      return refusal('account_locked', { untilUs: lockedUntilUs })
    }
    return refusal('code_wrong')
  }
  // A fresh session once both factors are proven: the token the password step handed out ends.
  await context.store.dashboardSessions.endSession(session.id, 'second factor passed', context.clock.nowUs())
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
  await context.store.members.replaceRecoveryCodes(fresh.id, recoveryCodes.map(recoveryCodeHash), nowUs)
  const actor: Actor = { kind: 'member', memberId: fresh.id, email: fresh.email, address: client.address }
  await audit(context, actor, {
    merchantId: fresh.merchantId,
    action: 'authenticator.enrolled',
    target: fresh.email,
  })
  await context.store.dashboardSessions.endSession(live.session.id, 'enrolled', nowUs)
  const opened = await openSession(context, fresh, 'signed-in', client)
  return { opened, recoveryCodes }
}
