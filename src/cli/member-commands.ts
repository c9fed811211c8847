import { parseArgs } from 'node:util'
import type { AppContext } from '../app/context.ts'
import { normalEmail } from '../app/dashboard/invitations.ts'
import { type DashboardRefusal, isRefusal } from '../app/dashboard/refusals.ts'
import { cliChanger, inviteToTeam, removeMember, resetAuthenticator, teamOf } from '../app/dashboard/team.ts'
import { merchantExists } from '../app/merchants.ts'
import { roles } from '../domain/roles.ts'
import { CommandError, oneOf, positionalsNamed, UsageError } from './usage.ts'

type Print = (text: string) => void

export type MemberAction = 'invite' | 'list' | 'remove' | 'reset-totp'

export interface MemberArgs {
  action: MemberAction
  merchantId: string
  email?: string
  role?: string
  json: boolean
}

const needsEmail: readonly MemberAction[] = ['invite', 'remove', 'reset-totp']

/** `member ACTION MERCHANT_ID [--email E] [--role R] [--json]`, checked whole before the store opens. */
export function parseMemberCommand(action: string | undefined, args: string[]): MemberArgs {
  if (action !== 'invite' && action !== 'list' && action !== 'remove' && action !== 'reset-totp')
    throw new UsageError(action === undefined ? 'needs a command' : `unknown command: ${action}`)
  const { values, positionals } = parseArgs({
    args,
    options: {
      email: { type: 'string' },
      role: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    allowPositionals: true,
  })
  const [merchantId] = positionalsNamed(positionals, ['MERCHANT_ID'])
  const parsed: MemberArgs = { action, merchantId: merchantId!, json: values.json }
  if (needsEmail.includes(action)) {
    if (!values.email) throw new UsageError('needs --email EMAIL')
    if (!normalEmail(values.email)) throw new UsageError(`--email ${values.email} is not an email address`)
    parsed.email = values.email
  } else if (values.email !== undefined) throw new UsageError('takes no --email')
  if (action === 'invite') parsed.role = oneOf('role', values.role, roles)
  else if (values.role !== undefined) throw new UsageError('takes no --role')
  if (values.json && (action === 'remove' || action === 'reset-totp')) throw new UsageError('takes no --json')
  return parsed
}

const refusalWords: Record<string, string> = {
  member_exists: 'an active member already has this email',
  member_unknown: 'no active member of this merchant has this email',
  last_owner: 'this is the last owner of the merchant: make another member owner first',
  email_invalid: 'the email is not valid',
  role_invalid: `the role is not one of ${roles.join(', ')}`,
}

function refused(result: DashboardRefusal): never {
  throw new CommandError(refusalWords[result.refused] ?? result.refused)
}

export async function memberCommand(context: AppContext, args: MemberArgs, print: Print): Promise<void> {
  if (!(await merchantExists(context, args.merchantId)))
    throw new CommandError(`no merchant has id ${args.merchantId}`)
  const by = cliChanger(args.merchantId)
  const email = args.email ?? ''
  switch (args.action) {
    case 'invite': {
      const issued = await inviteToTeam(context, by, { email, role: args.role ?? '' })
      if (isRefusal(issued)) refused(issued)
      if (!args.json) return print(issued.invitationUrl)
      const expiresAt = new Date(Math.floor(issued.expiresAtUs / 1000)).toISOString()
      return print(
        JSON.stringify({
          invitationUrl: issued.invitationUrl,
          email: issued.email,
          role: issued.role,
          expiresAt,
        }),
      )
    }
    case 'list':
      return memberList(context, args, print)
    case 'remove': {
      const removed = await removeMember(context, by, { email })
      if (isRefusal(removed)) refused(removed)
      return print(`${removed.email} is removed; their sessions are ended`)
    }
    case 'reset-totp': {
      const reset = await resetAuthenticator(context, by, email)
      if (isRefusal(reset)) refused(reset)
      return print(
        `${reset.email}'s authenticator and recovery codes are cleared; their sessions are ended and their next sign-in enrols a new authenticator`,
      )
    }
  }
}

async function memberList(context: AppContext, args: MemberArgs, print: Print): Promise<void> {
  const { members } = await teamOf(context, args.merchantId)
  const rows = members.map((member) => ({
    email: member.email,
    name: member.name,
    role: member.role,
    enrolled: member.totpSealed !== null && member.totpLastStep > 0,
    created: new Date(Math.floor(member.createdAtUs / 1000)).toISOString(),
  }))
  if (args.json) return print(JSON.stringify(rows))
  if (rows.length === 0)
    return print(`No members yet: sika member invite ${args.merchantId} --email EMAIL --role owner`)
  for (const row of rows) {
    const enrolled = row.enrolled ? 'enrolled' : 'not enrolled'
    print(`${row.email}  ${row.role.padEnd(9)}  ${enrolled.padEnd(12)}  ${row.created}  ${row.name}`)
  }
}
