import { isPlatformRole, type PlatformRole } from '../../domain/platform-roles.ts'
import type { PlatformInvitationRow, PlatformMemberRow } from '../../store/repositories/platform-members.ts'
import type { PlatformSessionRow } from '../../store/repositories/platform-sessions.ts'
import type { AppContext } from '../context.ts'
import { type DashboardRefusal, refusal } from '../dashboard/refusals.ts'
import { invitationLifetimeUs, normalEmail } from '../sign-in/invitations.ts'
import { isInUse } from '../sign-in/sessions.ts'
import { newBearerToken, newId } from '../sign-in/tokens.ts'
import { type PlatformActor, recordPlatformChange } from './platform-audit.ts'

export interface IssuedPlatformInvitation {
  id: string
  email: string
  role: PlatformRole
  expiresAtUs: number
  /** The page the invited person opens; the token in it is shown only here. */
  invitationUrl: string
}

/** An invitation to the console, from an admin or the CLI: one use, 72 hours. */
export async function invitePlatformMember(
  context: AppContext,
  actor: PlatformActor,
  input: { email: string; role: string },
): Promise<IssuedPlatformInvitation | DashboardRefusal> {
  const email = normalEmail(input.email)
  if (!email) return refusal('email_invalid')
  if (!isPlatformRole(input.role)) return refusal('role_invalid')
  if (await context.store.platformMembers.findActiveMemberByEmail(email)) return refusal('member_exists')
  const { token, tokenHash } = newBearerToken()
  const nowUs = context.clock.nowUs()
  const invitation: PlatformInvitationRow = {
    id: newId('pin'),
    email,
    role: input.role,
    tokenHash,
    invitedBy: actor.kind === 'member' ? actor.memberId : 'cli',
    createdAtUs: nowUs,
    expiresAtUs: nowUs + invitationLifetimeUs,
    acceptedAtUs: null,
    revokedAtUs: null,
    memberId: null,
  }
  await context.store.transaction(async (tx) => {
    await tx.platformMembers.insertInvitation(invitation)
    const change = { action: 'member.invited', target: email, after: { role: input.role } }
    await recordPlatformChange(context, actor, change, tx)
  })
  const invitationUrl = `${context.config.publicBaseUrl}/console/invitations/${token}`
  return { id: invitation.id, email, role: input.role, expiresAtUs: invitation.expiresAtUs, invitationUrl }
}

export interface PlatformTeamView {
  members: PlatformMemberRow[]
  invitations: PlatformInvitationRow[]
  /** Signed-in sessions still in use, with their member. */
  sessions: { session: PlatformSessionRow; member: PlatformMemberRow }[]
}

export async function platformTeamOf(context: AppContext): Promise<PlatformTeamView> {
  const nowUs = context.clock.nowUs()
  const [members, invitations, sessions] = await Promise.all([
    context.store.platformMembers.listMembers(),
    context.store.platformMembers.listOpenInvitations(nowUs),
    context.store.platformSessions.listLiveSessions(),
  ])
  const byId = new Map(members.map((member) => [member.id, member]))
  return {
    members,
    invitations,
    sessions: sessions.flatMap((session) => {
      const member = byId.get(session.memberId)
      return member && isInUse(session, nowUs) ? [{ session, member }] : []
    }),
  }
}

async function activeMember(
  context: AppContext,
  which: { memberId?: string; email?: string },
): Promise<PlatformMemberRow | undefined> {
  const members = context.store.platformMembers
  const email = which.email === undefined ? undefined : normalEmail(which.email)
  const found = which.memberId
    ? await members.findMember(which.memberId)
    : email
      ? await members.findActiveMemberByEmail(email)
      : undefined
  return found?.removedAtUs === null ? found : undefined
}

/** A new role ends the member's sessions: their next request signs in again under it. */
export async function changePlatformRole(
  context: AppContext,
  actor: PlatformActor,
  memberId: string,
  role: string,
): Promise<PlatformMemberRow | DashboardRefusal> {
  if (!isPlatformRole(role)) return refusal('role_invalid')
  const target = await activeMember(context, { memberId })
  if (!target) return refusal('member_unknown')
  if (target.role === role) return target
  return changeMember(context, actor, target, { role }, 'member.role_changed')
}

export async function removePlatformMember(
  context: AppContext,
  actor: PlatformActor,
  which: { memberId?: string; email?: string },
): Promise<PlatformMemberRow | DashboardRefusal> {
  const target = await activeMember(context, which)
  if (!target) return refusal('member_unknown')
  return changeMember(context, actor, target, { removedAtUs: context.clock.nowUs() }, 'member.removed')
}

/** One transaction: the change, the member's sessions ended, the audit row; the last admin refused inside it. */
async function changeMember(
  context: AppContext,
  actor: PlatformActor,
  target: PlatformMemberRow,
  change: { role: PlatformRole } | { removedAtUs: number },
  action: string,
): Promise<PlatformMemberRow | DashboardRefusal> {
  const nowUs = context.clock.nowUs()
  const losesAdmin = target.role === 'admin' && !('role' in change && change.role === 'admin')
  return context.store.transaction(async (tx) => {
    if (losesAdmin && (await tx.platformMembers.countAdmins()) <= 1) return refusal('last_admin')
    await tx.platformMembers.updateMember(target.id, change, nowUs)
    await tx.platformSessions.endSessionsOfMember(target.id, action, nowUs)
    const before = 'role' in change ? { role: target.role } : { role: target.role, name: target.name }
    const after = 'role' in change ? { role: change.role } : { removed: true }
    await recordPlatformChange(context, actor, { action, target: target.email, before, after }, tx)
    return { ...target, ...change }
  })
}

/** An admin ends every console session of a member. */
export async function endPlatformMemberSessions(
  context: AppContext,
  actor: PlatformActor,
  memberId: string,
): Promise<number | DashboardRefusal> {
  const target = await activeMember(context, { memberId })
  if (!target) return refusal('member_unknown')
  const nowUs = context.clock.nowUs()
  return context.store.transaction(async (tx) => {
    const ended = await tx.platformSessions.endSessionsOfMember(target.id, 'ended by an admin', nowUs)
    const change = { action: 'member.sessions_ended', target: target.email, after: { sessionsEnded: ended } }
    await recordPlatformChange(context, actor, change, tx)
    return ended
  })
}
