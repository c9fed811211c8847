import type { SessionRow } from '../../store/repositories/dashboard-sessions.ts'
import type { AppContext } from '../context.ts'
import { hashPassword, minimumPasswordLength } from '../sign-in/passwords.ts'
import { newRecoveryCodes, recoveryCodeHash } from '../sign-in/second-factor.ts'
import { type Actor, audit } from './audit.ts'
import { confirmCode, confirmPassword, type SecretHolder } from './member-secrets.ts'
import { type DashboardRefusal, refusal } from './refusals.ts'
import type { LiveSession } from './sessions.ts'
import { liveSessionsOf } from './team.ts'

/** The zones a member may show times in: UTC and the places Sika's merchants and their teams are. */
export const timeZones = [
  'UTC',
  'Africa/Abidjan',
  'Africa/Accra',
  'Africa/Bamako',
  'Africa/Conakry',
  'Africa/Dakar',
  'Africa/Douala',
  'Africa/Kampala',
  'Africa/Kigali',
  'Africa/Kinshasa',
  'Africa/Lagos',
  'Africa/Lome',
  'Africa/Lubumbashi',
  'Africa/Nairobi',
  'Africa/Ouagadougou',
  'Africa/Porto-Novo',
  'Africa/Dar_es_Salaam',
  'Africa/Johannesburg',
  'Africa/Casablanca',
  'Africa/Cairo',
  'Europe/London',
  'Europe/Paris',
  'America/New_York',
  'Asia/Dubai',
] as const

export interface AccountView {
  sessions: SessionRow[]
  unusedRecoveryCodes: number
}

export async function accountOf(context: AppContext, live: LiveSession): Promise<AccountView> {
  const { member } = live
  const [sessions, unusedRecoveryCodes] = await Promise.all([
    liveSessionsOf(context, member.merchantId, member.id),
    context.store.members.countUnusedRecoveryCodes(member.id),
  ])
  return { sessions, unusedRecoveryCodes }
}

const actorOf = (live: LiveSession, address: string): Actor => ({
  kind: 'member',
  memberId: live.member.id,
  email: live.member.email,
  address,
})

const holderOf = (live: LiveSession, address: string): SecretHolder => ({
  memberId: live.member.id,
  sessionId: live.session.id,
  address,
})

/**
 * A new password ends every other session of the member: whoever knew the old one is signed out.
 * The current password counts with the sign-in's attempts.
 */
export async function changePassword(
  context: AppContext,
  live: LiveSession,
  address: string,
  input: { current: string; next: string },
): Promise<true | DashboardRefusal> {
  if (input.next.length < minimumPasswordLength)
    return refusal('password_too_short', { minimum: minimumPasswordLength })
  const confirmed = await confirmPassword(context, holderOf(live, address), input.current)
  if (confirmed !== true) return confirmed
  const turn = context.passwordWork.take(address)
  if (!turn) return refusal('password_checks_busy')
  const passwordHash = await turn.run(() => hashPassword(input.next)).finally(turn.release)
  const { member } = live
  const nowUs = context.clock.nowUs()
  await context.store.transaction(async (tx) => {
    await tx.members.updateMember(member.id, { passwordHash }, nowUs)
    await tx.dashboardSessions.endSessionsOfMember(member.id, 'password changed', nowUs, live.session.id)
    await audit(
      context,
      actorOf(live, address),
      { merchantId: member.merchantId, action: 'password.changed', target: member.email },
      tx,
    )
  })
  return true
}

/**
 * Ten new recovery codes, the old ones void, once a fresh code from the authenticator proves the
 * phone is at hand (counted with the sign-in's attempts).
 */
export async function regenerateRecoveryCodes(
  context: AppContext,
  live: LiveSession,
  address: string,
  code: string,
): Promise<string[] | DashboardRefusal> {
  const confirmed = await confirmCode(context, holderOf(live, address), code)
  if (confirmed !== true) return confirmed
  const { member } = live
  const codes = newRecoveryCodes()
  const nowUs = context.clock.nowUs()
  await context.store.transaction(async (tx) => {
    await tx.members.replaceRecoveryCodes(member.id, codes.map(recoveryCodeHash), nowUs)
    await audit(
      context,
      actorOf(live, address),
      { merchantId: member.merchantId, action: 'recovery_codes.regenerated', target: member.email },
      tx,
    )
  })
  return codes
}

/**
 * A new authenticator (a new phone), once a fresh code from the current one proves it is at hand
 * (counted with the sign-in's attempts): the old secret and every other session end, and this
 * session goes back to the enrolment, which shows a new QR code and, once confirmed, new recovery
 * codes.
 */
export async function replaceAuthenticator(
  context: AppContext,
  live: LiveSession,
  address: string,
  code: string,
): Promise<true | DashboardRefusal> {
  const confirmed = await confirmCode(context, holderOf(live, address), code)
  if (confirmed !== true) return confirmed
  const { member } = live
  const nowUs = context.clock.nowUs()
  await context.store.transaction(async (tx) => {
    await tx.members.updateMember(member.id, { totpSealed: null, totpLastStep: 0 }, nowUs)
    await tx.dashboardSessions.endSessionsOfMember(
      member.id,
      'authenticator replaced',
      nowUs,
      live.session.id,
    )
    await tx.dashboardSessions.setStage(live.session.id, 'enrolment')
    const replaced = { merchantId: member.merchantId, action: 'authenticator.replaced', target: member.email }
    await audit(context, actorOf(live, address), replaced, tx)
  })
  return true
}

export async function setTimeZone(
  context: AppContext,
  live: LiveSession,
  address: string,
  zone: string,
): Promise<true | 'invalid'> {
  if (!(timeZones as readonly string[]).includes(zone)) return 'invalid'
  const { member } = live
  if (member.timeZone === zone) return true
  const nowUs = context.clock.nowUs()
  await context.store.transaction(async (tx) => {
    await tx.members.updateMember(member.id, { timeZone: zone }, nowUs)
    await audit(
      context,
      actorOf(live, address),
      {
        merchantId: member.merchantId,
        action: 'time_zone.changed',
        target: member.email,
        before: { timeZone: member.timeZone },
        after: { timeZone: zone },
      },
      tx,
    )
  })
  member.timeZone = zone
  return true
}

/** A member ends one of their own sessions (a browser left signed in elsewhere). */
export async function endOwnSession(
  context: AppContext,
  live: LiveSession,
  address: string,
  sessionId: string,
): Promise<true | DashboardRefusal> {
  const { member } = live
  const sessions = await context.store.dashboardSessions.listLiveSessions(member.merchantId, member.id)
  const session = sessions.find((row) => row.id === sessionId)
  if (!session) return refusal('member_unknown')
  const nowUs = context.clock.nowUs()
  await context.store.transaction(async (tx) => {
    await tx.dashboardSessions.endSession(session.id, 'ended by its member', nowUs)
    await audit(
      context,
      actorOf(live, address),
      {
        merchantId: member.merchantId,
        action: 'session.ended',
        target: member.email,
        before: { session: session.id, address: session.address },
      },
      tx,
    )
  })
  return true
}
