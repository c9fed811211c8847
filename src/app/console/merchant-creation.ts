import type { AppContext } from '../context.ts'
import { inviteToTeam } from '../dashboard/team.ts'
import { createMerchant } from '../merchants.ts'
import { normalEmail } from '../sign-in/invitations.ts'
import type { ConsoleActor } from './merchant-actions.ts'
import { recordPlatformChange } from './platform-audit.ts'

/** The form as typed: the merchant's name and the email of its first owner. */
export interface NewMerchantForm {
  name: string
  ownerEmail: string
}

export type NewMerchantRefusal = {
  refused: 'name_missing' | 'name_too_long' | 'email_invalid' | 'member_exists'
}

/** The new merchant and its owner's invitation; the URL holds the invitation's only copy of its token. */
export interface NewMerchant {
  merchantId: string
  name: string
  ownerEmail: string
  invitationUrl: string
  expiresAtUs: number
}

/**
 * Admin creates a merchant as `sika merchant create` does and invites its first owner as `sika
 * member invite --role owner` does; its API keys are not shown: the owner issues them in the
 * dashboard. Checked before anything is created, so a refused form leaves no merchant behind.
 */
export async function createMerchantWithOwner(
  context: AppContext,
  actor: ConsoleActor,
  form: NewMerchantForm,
): Promise<NewMerchant | NewMerchantRefusal> {
  const name = form.name.trim()
  if (name === '') return { refused: 'name_missing' }
  if (name.length > 100) return { refused: 'name_too_long' }
  const email = normalEmail(form.ownerEmail)
  if (!email) return { refused: 'email_invalid' }
  // One active member per email, whatever the merchant: the CLI refuses it too.
  if (await context.store.members.findActiveMemberByEmail(email)) return { refused: 'member_exists' }
  const merchant = await createMerchant(context, name)
  const changer = { actor, merchantId: merchant.id, actsAsOwner: true }
  const invitation = await inviteToTeam(context, changer, { email, role: 'owner' })
  await recordPlatformChange(context, actor, {
    action: 'merchant.created',
    target: merchant.id,
    after: { name, ownerInvited: 'refused' in invitation ? null : email },
  })
  if ('refused' in invitation) return { refused: 'member_exists' }
  return {
    merchantId: merchant.id,
    name,
    ownerEmail: email,
    invitationUrl: invitation.invitationUrl,
    expiresAtUs: invitation.expiresAtUs,
  }
}
