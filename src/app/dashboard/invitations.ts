import { isRole, type Role } from '../../domain/roles.ts'
import type { InvitationRow, MemberRow } from '../../store/repositories/members.ts'
import type { AppContext } from '../context.ts'
import { type Actor, audit } from './audit.ts'
import { hashPassword, minimumPasswordLength } from './passwords.ts'
import { type DashboardRefusal, refusal } from './refusals.ts'
import { type OpenedSession, openSession, type SessionClient } from './sessions.ts'
import { hourUs, newBearerToken, newId, tokenHashOf } from './tokens.ts'

/** An invitation is used once, within 72 hours. */
const lostRace = new Error('the invitation was accepted by another request')
const invitationLifetimeUs = 72 * hourUs

export interface IssuedInvitation {
  id: string
  email: string
  role: Role
  expiresAtUs: number
  /** The page the invited person opens; the token in it is shown only here. */
  invitationUrl: string
}

export function normalEmail(text: string): string | undefined {
  const email = text.trim().toLowerCase()
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) && email.length <= 254 ? email : undefined
}

export async function inviteMember(
  context: AppContext,
  actor: Actor,
  merchantId: string,
  input: { email: string; role: string },
): Promise<IssuedInvitation | DashboardRefusal> {
  const email = normalEmail(input.email)
  if (!email) return refusal('email_invalid')
  if (!isRole(input.role)) return refusal('role_invalid')
  // One active member per email, whatever the merchant. Only the merchant's own members (and, to
  // the CLI, any) are named: an email of another merchant's member is invited as a new one would
  // be, and its acceptance is refused as an unusable invitation.
  const holder = await context.store.members.findActiveMemberByEmail(email)
  if (holder && (holder.merchantId === merchantId || actor.kind === 'cli')) return refusal('member_exists')
  const { token, tokenHash } = newBearerToken()
  const nowUs = context.clock.nowUs()
  const invitation: InvitationRow = {
    id: newId('inv'),
    merchantId,
    email,
    role: input.role,
    tokenHash,
    invitedBy: actor.kind === 'member' ? actor.memberId : actor.kind,
    createdAtUs: nowUs,
    expiresAtUs: nowUs + invitationLifetimeUs,
    acceptedAtUs: null,
    revokedAtUs: null,
    memberId: null,
  }
  await context.store.transaction(async (tx) => {
    await tx.members.insertInvitation(invitation)
    await audit(
      context,
      actor,
      { merchantId, action: 'member.invited', target: email, after: { role: input.role } },
      tx,
    )
  })
  const invitationUrl = `${context.config.publicBaseUrl}/dashboard/invitations/${token}`
  return { id: invitation.id, email, role: input.role, expiresAtUs: invitation.expiresAtUs, invitationUrl }
}

/** What the invitation's page shows: the invitation, and the name of the merchant it is to. */
export async function invitationPageOf(
  context: AppContext,
  token: string,
): Promise<{ invitation: InvitationRow; merchantName: string } | undefined> {
  const invitation = await openInvitation(context, token)
  if (!invitation) return undefined
  return { invitation, merchantName: (await context.store.merchants.nameOf(invitation.merchantId)) ?? '' }
}

/** The invitation a token opens, while it may still be accepted. */
export async function openInvitation(context: AppContext, token: string): Promise<InvitationRow | undefined> {
  const invitation = await context.store.members.findInvitationByTokenHash(tokenHashOf(token))
  const usable =
    invitation &&
    invitation.acceptedAtUs === null &&
    invitation.revokedAtUs === null &&
    invitation.expiresAtUs > context.clock.nowUs()
  return usable ? invitation : undefined
}

/**
 * Accepting makes the member, with a name and a password, and opens a session whose only page is
 * the authenticator's enrolment: nothing else is reachable until a first code is confirmed.
 */
export async function acceptInvitation(
  context: AppContext,
  token: string,
  input: { name: string; password: string },
  client: SessionClient,
): Promise<OpenedSession | DashboardRefusal> {
  const invitation = await openInvitation(context, token)
  if (!invitation) return refusal('invitation_unusable')
  const name = input.name.trim()
  if (name === '' || name.length > 100) return refusal('name_missing')
  if (input.password.length < minimumPasswordLength)
    return refusal('password_too_short', { minimum: minimumPasswordLength })
  const turn = context.passwordWork.take(client.address)
  if (!turn) return refusal('password_checks_busy')
  const passwordHash = await turn.run(() => hashPassword(input.password)).finally(turn.release)
  const nowUs = context.clock.nowUs()
  const member: MemberRow = {
    id: newId('mem'),
    merchantId: invitation.merchantId,
    email: invitation.email,
    name,
    role: invitation.role,
    passwordHash,
    totpSealed: null,
    totpLastStep: 0,
    timeZone: 'UTC',
    createdAtUs: nowUs,
    updatedAtUs: nowUs,
    removedAtUs: null,
  }
  // The member first: the invitation names it. A lost race (another acceptance, the email taken
  // meanwhile) rolls both back.
  const accepted = await context.store
    .transaction(async (tx) => {
      await tx.members.insertMember(member)
      if (!(await tx.members.markInvitationAccepted(invitation.id, member.id, nowUs))) throw lostRace
      const actor: Actor = {
        kind: 'member',
        memberId: member.id,
        email: member.email,
        address: client.address,
      }
      const joined = { role: member.role, name }
      await audit(
        context,
        actor,
        { merchantId: member.merchantId, action: 'member.joined', target: member.email, after: joined },
        tx,
      )
      return true
    })
    .catch((error: unknown) => {
      if (error === lostRace || context.store.isUniqueViolation(error)) return false
      throw error
    })
  if (!accepted) return refusal('invitation_unusable')
  return openSession(context, member, 'enrolment', client)
}
