import type { AppContext } from '../context.ts'
import { isRefusal } from '../dashboard/refusals.ts'
import { inviteAgain, platformChanger, resetAuthenticator, teamMember } from '../dashboard/team.ts'
import type { ConsoleActor } from './merchant-actions.ts'

/**
 * Support helping a merchant's members from the console, with the dashboard's own team use cases
 * (team.ts): the merchant's audit log and the platform's both record it.
 */

/** Who the console helps: a member, or an invitation nobody accepted yet. */
export interface PersonToHelp {
  email: string
  role: string
  /** The member's id; undefined for an invitation not accepted. */
  memberId?: string
  name?: string
  enrolled?: boolean
}

export type MemberHelpRefusal = { refused: 'member_unknown' | 'last_owner' }

/** The member of this merchant, or the latest invitation to it not accepted, that has this email. */
export async function personToHelp(
  context: AppContext,
  merchantId: string,
  email: string,
): Promise<PersonToHelp | undefined> {
  const member = await teamMember(context, merchantId, { email })
  if (member)
    return {
      email: member.email,
      role: member.role,
      memberId: member.id,
      name: member.name,
      enrolled: member.totpSealed !== null,
    }
  const waiting = (await invitationsNotAcceptedOf(context, merchantId)).find((row) => row.email === email)
  return waiting && { email: waiting.email, role: waiting.role }
}

export interface WaitingInvitation {
  email: string
  role: string
  expiresAtUs: number
  expired: boolean
}

/** The merchant's invitations nobody accepted (expired ones too: they may be sent again), newest first. */
export async function invitationsNotAcceptedOf(
  context: AppContext,
  merchantId: string,
): Promise<WaitingInvitation[]> {
  const [rows, active] = await Promise.all([
    context.store.members.listInvitations(merchantId),
    context.store.members.listMembers(merchantId),
  ])
  const members = new Set(active.map((member) => member.email))
  const seen = new Set<string>()
  const nowUs = context.clock.nowUs()
  return rows.flatMap((row) => {
    const waiting = row.acceptedAtUs === null && row.revokedAtUs === null && !members.has(row.email)
    if (!waiting || seen.has(row.email)) return []
    seen.add(row.email)
    const { email, role, expiresAtUs } = row
    return [{ email, role, expiresAtUs, expired: expiresAtUs <= nowUs }]
  })
}

/** The member's authenticator and recovery codes cleared and their sessions ended: they enrol again at their next sign-in. */
export async function resetMemberAuthenticator(
  context: AppContext,
  actor: ConsoleActor,
  merchantId: string,
  email: string,
): Promise<{ done: true } | MemberHelpRefusal> {
  const reset = await resetAuthenticator(context, platformChanger(actor, merchantId), email)
  return isRefusal(reset) ? { refused: 'member_unknown' } : { done: true }
}

/** A new invitation URL, shown once, for an invitation not accepted or a member who lost their password (never the only owner). */
export async function inviteMemberAgain(
  context: AppContext,
  actor: ConsoleActor,
  merchantId: string,
  email: string,
): Promise<{ done: true; invitationUrl: string; expiresAtUs: number } | MemberHelpRefusal> {
  const issued = await inviteAgain(context, platformChanger(actor, merchantId), email)
  if (isRefusal(issued)) return { refused: issued.refused === 'last_owner' ? 'last_owner' : 'member_unknown' }
  return { done: true, invitationUrl: issued.invitationUrl, expiresAtUs: issued.expiresAtUs }
}
