import { isRole, type Role } from '../../domain/roles.ts'
import type { InvitationRow } from '../../store/repositories/members.ts'
import type { AppContext } from '../context.ts'
import {
  acceptInvitationOf,
  invitationLifetimeUs,
  normalEmail,
  openInvitationOf,
} from '../sign-in/invitations.ts'
import { newBearerToken, newId } from '../sign-in/tokens.ts'
import { dashboardAccounts } from './accounts.ts'
import { type Actor, audit } from './audit.ts'
import { type DashboardRefusal, refusal } from './refusals.ts'
import type { OpenedSession, SessionClient } from './sessions.ts'

export interface IssuedInvitation {
  id: string
  email: string
  role: Role
  expiresAtUs: number
  /** The page the invited person opens; the token in it is shown only here. */
  invitationUrl: string
}

export { normalEmail }

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
  const { row: invitation, issued } = newInvitation(context, actor, merchantId, email, input.role)
  await context.store.transaction(async (tx) => {
    await tx.members.insertInvitation(invitation)
    await audit(
      context,
      actor,
      { merchantId, action: 'member.invited', target: email, after: { role: input.role } },
      tx,
    )
  })
  return issued
}

/** A one-use invitation of 72 hours, its row to insert, and what the inviter is shown once (its URL). */
export function newInvitation(
  context: AppContext,
  actor: Actor,
  merchantId: string,
  email: string,
  role: Role,
): { row: InvitationRow; issued: IssuedInvitation } {
  const { token, tokenHash } = newBearerToken()
  const nowUs = context.clock.nowUs()
  const row: InvitationRow = {
    id: newId('inv'),
    merchantId,
    email,
    role,
    tokenHash,
    invitedBy: actor.kind === 'member' ? actor.memberId : actor.kind,
    createdAtUs: nowUs,
    expiresAtUs: nowUs + invitationLifetimeUs,
    acceptedAtUs: null,
    revokedAtUs: null,
    memberId: null,
  }
  const invitationUrl = `${context.config.publicBaseUrl}/dashboard/invitations/${token}`
  return { row, issued: { id: row.id, email, role, expiresAtUs: row.expiresAtUs, invitationUrl } }
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
export function openInvitation(context: AppContext, token: string): Promise<InvitationRow | undefined> {
  return openInvitationOf(context, dashboardAccounts, token)
}

/** Accepting: the shared acceptance of sign-in/, on the merchants' members. */
export function acceptInvitation(
  context: AppContext,
  token: string,
  input: { name: string; password: string },
  client: SessionClient,
): Promise<OpenedSession | DashboardRefusal> {
  return acceptInvitationOf(context, dashboardAccounts, token, input, client)
}
