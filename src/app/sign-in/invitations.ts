import type { AppContext } from '../context.ts'
import { type DashboardRefusal, refusal } from '../dashboard/refusals.ts'
import {
  type AccountBook,
  type AccountInvitationRow,
  type AccountRow,
  type AccountSessionRow,
  actorOf,
} from './account-book.ts'
import { hashPassword, minimumPasswordLength } from './passwords.ts'
import { type OpenedSessionOf, openAccountSession, type SessionClient } from './sessions.ts'
import { hourUs, newId, tokenHashOf } from './tokens.ts'

/** An invitation is used once, within 72 hours. */
export const invitationLifetimeUs = 72 * hourUs
const lostRace = new Error('the invitation was accepted by another request')

export function normalEmail(text: string): string | undefined {
  const email = text.trim().toLowerCase()
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) && email.length <= 254 ? email : undefined
}

/** The invitation a token opens, while it may still be accepted. */
export async function openInvitationOf<I extends AccountInvitationRow>(
  context: AppContext,
  book: AccountBook<AccountRow, AccountSessionRow, I>,
  token: string,
): Promise<I | undefined> {
  const invitation = await book.invitations(context.store).findInvitationByTokenHash(tokenHashOf(token))
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
export async function acceptInvitationOf<
  A extends AccountRow,
  S extends AccountSessionRow,
  I extends AccountInvitationRow,
>(
  context: AppContext,
  book: AccountBook<A, S, I>,
  token: string,
  input: { name: string; password: string },
  client: SessionClient,
): Promise<OpenedSessionOf<A, S> | DashboardRefusal> {
  const invitation = await openInvitationOf(context, book, token)
  if (!invitation) return refusal('invitation_unusable')
  const name = input.name.trim()
  if (name === '' || name.length > 100) return refusal('name_missing')
  if (input.password.length < minimumPasswordLength)
    return refusal('password_too_short', { minimum: minimumPasswordLength })
  const turn = context.passwordWork.take(client.address)
  if (!turn) return refusal('password_checks_busy')
  const passwordHash = await turn.run(() => hashPassword(input.password)).finally(turn.release)
  const nowUs = context.clock.nowUs()
  const member = book.memberOf(invitation, { id: newId('mem'), name, passwordHash, nowUs })
  // The member first: the invitation names it. A lost race (another acceptance, the email taken
  // meanwhile) rolls both back.
  const accepted = await context.store
    .transaction(async (tx) => {
      const invitations = book.invitations(tx)
      await invitations.insertMember(member)
      if (!(await invitations.markInvitationAccepted(invitation.id, member.id, nowUs))) throw lostRace
      const joined = {
        action: 'member.joined',
        target: member.email,
        after: { role: member.role, name },
        member,
      }
      await book.audit(context, actorOf(member, client.address), joined, tx)
      return true
    })
    .catch((error: unknown) => {
      if (error === lostRace || context.store.isUniqueViolation(error)) return false
      throw error
    })
  if (!accepted) return refusal('invitation_unusable')
  return openAccountSession(context, book, member, 'enrolment', client)
}
