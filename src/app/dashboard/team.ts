import { isRole, type Role } from '../../domain/roles.ts'
import type { SessionRow } from '../../store/repositories/dashboard-sessions.ts'
import type { InvitationRow, MemberRow } from '../../store/repositories/members.ts'
import type { Repositories } from '../../store/store.ts'
import { auditMerchantChange, type PlatformActor } from '../console/platform-audit.ts'
import type { AppContext } from '../context.ts'
import { isInUse } from '../sign-in/sessions.ts'
import { type Actor, type AuditedChange, audit } from './audit.ts'
import { type IssuedInvitation, inviteMember, newInvitation, normalEmail } from './invitations.ts'
import { type DashboardRefusal, refusal } from './refusals.ts'

/**
 * Who changes the team: a member of the merchant (an admin or an owner), or the CLI, which
 * stands for the operator and may do what an owner may.
 */
export interface TeamChanger {
  actor: Actor
  merchantId: string
  /** Owners and the CLI: only they give or take the owner role. */
  actsAsOwner: boolean
  /** A platform member in the console: the change is in the platform audit log too. */
  platform?: boolean
}

export function memberChanger(member: MemberRow, address: string): TeamChanger {
  return {
    actor: { kind: 'member', memberId: member.id, email: member.email, address },
    merchantId: member.merchantId,
    actsAsOwner: member.role === 'owner',
  }
}

export function cliChanger(merchantId: string): TeamChanger {
  return { actor: { kind: 'cli' }, merchantId, actsAsOwner: true }
}

/** A platform member helping a merchant's member from the console: as the CLI may, and audited by the platform too. */
export function platformChanger(
  actor: Extract<PlatformActor, { kind: 'member' }>,
  merchantId: string,
): TeamChanger {
  return { actor, merchantId, actsAsOwner: true, platform: true }
}

/** A team change's audit row, in the merchant's log, and in the platform's when the platform made it. */
function auditTeam(
  context: AppContext,
  by: TeamChanger,
  change: AuditedChange,
  tx: Repositories,
): Promise<void> {
  if (by.platform && by.actor.kind !== 'api')
    return auditMerchantChange(context, by.actor, change, change.action, tx)
  return audit(context, by.actor, change, tx)
}

export interface LiveSessionView {
  session: SessionRow
  memberEmail: string
  memberName: string
}

export interface TeamView {
  members: MemberRow[]
  /** Not accepted, not revoked, not expired. */
  invitations: InvitationRow[]
  sessions: LiveSessionView[]
}

export async function teamOf(context: AppContext, merchantId: string): Promise<TeamView> {
  const nowUs = context.clock.nowUs()
  const [members, invitations, sessions] = await Promise.all([
    context.store.members.listMembers(merchantId),
    context.store.members.listInvitations(merchantId),
    liveSessionsOf(context, merchantId),
  ])
  const byId = new Map(members.map((member) => [member.id, member]))
  return {
    members,
    invitations: invitations.filter(
      (row) => row.acceptedAtUs === null && row.revokedAtUs === null && row.expiresAtUs > nowUs,
    ),
    sessions: sessions.flatMap((session) => {
      const member = byId.get(session.memberId)
      return member ? [{ session, memberEmail: member.email, memberName: member.name }] : []
    }),
  }
}

/** Signed-in sessions still in use: an idle or outlived one is ended at its next request, and is not shown. */
export async function liveSessionsOf(
  context: AppContext,
  merchantId: string,
  memberId?: string,
): Promise<SessionRow[]> {
  const nowUs = context.clock.nowUs()
  const rows = await context.store.dashboardSessions.listLiveSessions(merchantId, memberId)
  return rows.filter((row) => isInUse(row, nowUs))
}

/** An invitation from the dashboard or the CLI: only an owner invites an owner. */
export function inviteToTeam(
  context: AppContext,
  by: TeamChanger,
  input: { email: string; role: string },
): Promise<IssuedInvitation | DashboardRefusal> {
  if (input.role === 'owner' && !by.actsAsOwner) return Promise.resolve(refusal('not_allowed'))
  return inviteMember(context, by.actor, by.merchantId, input)
}

export async function revokeTeamInvitation(
  context: AppContext,
  by: TeamChanger,
  invitationId: string,
): Promise<true | DashboardRefusal> {
  const invitations = await context.store.members.listInvitations(by.merchantId)
  const invitation = invitations.find((row) => row.id === invitationId)
  if (!invitation) return refusal('member_unknown')
  if (invitation.role === 'owner' && !by.actsAsOwner) return refusal('not_allowed')
  const nowUs = context.clock.nowUs()
  return context.store.transaction(async (tx) => {
    if (!(await tx.members.revokeInvitation(by.merchantId, invitationId, nowUs)))
      return refusal('member_unknown')
    await audit(
      context,
      by.actor,
      {
        merchantId: by.merchantId,
        action: 'invitation.revoked',
        target: invitation.email,
        before: { role: invitation.role },
      },
      tx,
    )
    return true as const
  })
}

/** The active member of this merchant, by id or email. */
export async function teamMember(
  context: AppContext,
  merchantId: string,
  which: { memberId?: string; email?: string },
): Promise<MemberRow | undefined> {
  const { members } = context.store
  const email = which.email === undefined ? undefined : normalEmail(which.email)
  const found = which.memberId
    ? await members.findMember(which.memberId)
    : email
      ? await members.findActiveMemberByEmail(email)
      : undefined
  return found && found.merchantId === merchantId && found.removedAtUs === null ? found : undefined
}

/**
 * A new role ends the member's sessions (CONTRACT.md, Dashboard): their next request signs in
 * again under it. Only an owner gives or takes the owner role, and the last owner keeps it.
 */
export async function changeRole(
  context: AppContext,
  by: TeamChanger,
  memberId: string,
  role: string,
): Promise<MemberRow | DashboardRefusal> {
  if (!isRole(role)) return refusal('role_invalid')
  const target = await teamMember(context, by.merchantId, { memberId })
  if (!target) return refusal('member_unknown')
  if ((role === 'owner' || target.role === 'owner') && !by.actsAsOwner) return refusal('not_allowed')
  if (target.role === role) return target
  return changeMember(context, by, target, { role }, 'member.role_changed')
}

export async function removeMember(
  context: AppContext,
  by: TeamChanger,
  which: { memberId?: string; email?: string },
): Promise<MemberRow | DashboardRefusal> {
  const target = await teamMember(context, by.merchantId, which)
  if (!target) return refusal('member_unknown')
  if (target.role === 'owner' && !by.actsAsOwner) return refusal('not_allowed')
  return changeMember(context, by, target, { removedAtUs: context.clock.nowUs() }, 'member.removed')
}

type TeamChange = { role: Role } | { removedAtUs: number }

/** One transaction: the change, the member's sessions ended, the audit row; the last owner refused inside it. */
async function changeMember(
  context: AppContext,
  by: TeamChanger,
  target: MemberRow,
  change: TeamChange,
  action: string,
): Promise<MemberRow | DashboardRefusal> {
  const nowUs = context.clock.nowUs()
  const losesOwner = target.role === 'owner' && !('role' in change && change.role === 'owner')
  return context.store.transaction(async (tx) => {
    if (losesOwner && (await tx.members.countOwners(by.merchantId)) <= 1) return refusal('last_owner')
    await tx.members.updateMember(target.id, change, nowUs)
    await tx.dashboardSessions.endSessionsOfMember(target.id, action, nowUs)
    const before = 'role' in change ? { role: target.role } : { role: target.role, name: target.name }
    const after = 'role' in change ? { role: change.role } : { removed: true }
    await audit(
      context,
      by.actor,
      { merchantId: by.merchantId, action, target: target.email, before, after },
      tx,
    )
    return { ...target, ...change }
  })
}

/** The authenticator and recovery codes cleared: the next sign-in with the password goes to the enrolment. */
export async function resetAuthenticator(
  context: AppContext,
  by: TeamChanger,
  email: string,
): Promise<MemberRow | DashboardRefusal> {
  const target = await teamMember(context, by.merchantId, { email })
  if (!target) return refusal('member_unknown')
  const nowUs = context.clock.nowUs()
  await context.store.transaction(async (tx) => {
    await tx.members.updateMember(target.id, { totpSealed: null, totpLastStep: 0 }, nowUs)
    await tx.members.replaceRecoveryCodes(target.id, [], nowUs)
    await tx.dashboardSessions.endSessionsOfMember(target.id, 'authenticator reset', nowUs)
    await auditTeam(
      context,
      by,
      {
        merchantId: by.merchantId,
        action: 'authenticator.reset',
        target: target.email,
        before: { enrolled: target.totpSealed !== null },
        after: { enrolled: false },
      },
      tx,
    )
  })
  return target
}

/**
 * A new one-use invitation of 72 hours for someone who cannot get in: an invitation not accepted
 * (expired or not), or a member who lost their password, whose account is closed (their sessions
 * ended) for the invitation to make it again, with the same role. Never the merchant's only owner:
 * the merchant would have no owner until someone accepted. The member and the invitations are read
 * in the transaction that replaces them, so two at once leave one invitation open. The email's
 * earlier open invitations stop working; the new URL is shown once.
 */
export async function inviteAgain(
  context: AppContext,
  by: TeamChanger,
  emailText: string,
): Promise<IssuedInvitation | DashboardRefusal> {
  const email = normalEmail(emailText)
  if (!email) return refusal('email_invalid')
  return context.store.transaction(async (tx) => {
    const holder = await tx.members.findActiveMemberByEmail(email)
    const member = holder?.merchantId === by.merchantId ? holder : undefined
    const earlier = (await tx.members.listInvitations(by.merchantId)).filter(
      (row) => row.email === email && row.acceptedAtUs === null && row.revokedAtUs === null,
    )
    const role = member?.role ?? earlier[0]?.role
    if (!role) return refusal('member_unknown')
    if (role === 'owner' && !by.actsAsOwner) return refusal('not_allowed')
    if (member?.role === 'owner' && (await tx.members.countOwners(by.merchantId)) <= 1)
      return refusal('last_owner')
    const { row, issued } = newInvitation(context, by.actor, by.merchantId, email, role)
    const nowUs = context.clock.nowUs()
    for (const invitation of earlier) await tx.members.revokeInvitation(by.merchantId, invitation.id, nowUs)
    if (member) {
      await tx.members.updateMember(member.id, { removedAtUs: nowUs }, nowUs)
      await tx.dashboardSessions.endSessionsOfMember(member.id, 'invited again', nowUs)
    }
    await tx.members.insertInvitation(row)
    const before = member
      ? { role, member: member.id, enrolled: member.totpSealed !== null }
      : { role, invitations: earlier.map((invitation) => invitation.id) }
    const after = { role, invitation: row.id, expiresAtUs: row.expiresAtUs }
    const change = { merchantId: by.merchantId, action: 'member.invited_again', target: email, before, after }
    await auditTeam(context, by, change, tx)
    return issued
  })
}

/** An admin or owner ends one of the merchant's sessions. */
export async function endTeamSession(
  context: AppContext,
  by: TeamChanger,
  sessionId: string,
): Promise<true | DashboardRefusal> {
  const sessions = await context.store.dashboardSessions.listLiveSessions(by.merchantId)
  const session = sessions.find((row) => row.id === sessionId)
  const member = session && (await context.store.members.findMember(session.memberId))
  if (!session || !member) return refusal('member_unknown')
  const nowUs = context.clock.nowUs()
  await context.store.transaction(async (tx) => {
    await tx.dashboardSessions.endSession(session.id, 'ended by a member', nowUs)
    await audit(
      context,
      by.actor,
      {
        merchantId: by.merchantId,
        action: 'session.ended',
        target: member.email,
        before: { session: session.id, address: session.address },
      },
      tx,
    )
  })
  return true
}
