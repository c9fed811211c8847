import { parseArgs } from 'node:util'
import { invitePlatformMember, platformTeamOf, removePlatformMember } from '../app/console/platform-team.ts'
import type { AppContext } from '../app/context.ts'
import { type DashboardRefusal, isRefusal } from '../app/dashboard/refusals.ts'
import { normalEmail } from '../app/sign-in/invitations.ts'
import { platformRoles } from '../domain/platform-roles.ts'
import { CommandError, oneOf, positionalsNamed, UsageError } from './usage.ts'

type Print = (text: string) => void

export type PlatformMemberAction = 'invite' | 'list' | 'remove'

export interface PlatformMemberArgs {
  action: PlatformMemberAction
  email?: string
  role?: string
  json: boolean
}

/** `platform-member ACTION [--email E] [--role R] [--json]`, checked whole before the store opens. */
export function parsePlatformMemberCommand(action: string | undefined, args: string[]): PlatformMemberArgs {
  if (action !== 'invite' && action !== 'list' && action !== 'remove')
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
  positionalsNamed(positionals, [])
  const parsed: PlatformMemberArgs = { action, json: values.json }
  if (action !== 'list') {
    if (!values.email) throw new UsageError('needs --email EMAIL')
    if (!normalEmail(values.email)) throw new UsageError(`--email ${values.email} is not an email address`)
    parsed.email = values.email
  } else if (values.email !== undefined) throw new UsageError('takes no --email')
  if (action === 'invite') parsed.role = oneOf('role', values.role, platformRoles)
  else if (values.role !== undefined) throw new UsageError('takes no --role')
  if (values.json && action === 'remove') throw new UsageError('takes no --json')
  return parsed
}

const refusalWords: Record<string, string> = {
  member_exists: 'an active platform member already has this email',
  member_unknown: 'no active platform member has this email',
  last_admin: 'this is the last admin of the platform: make another member admin first',
}

function refused(result: DashboardRefusal): never {
  throw new CommandError(refusalWords[result.refused] ?? result.refused)
}

export async function platformMemberCommand(
  context: AppContext,
  args: PlatformMemberArgs,
  print: Print,
): Promise<void> {
  const by = { kind: 'cli' } as const
  const email = args.email ?? ''
  switch (args.action) {
    case 'invite': {
      const issued = await invitePlatformMember(context, by, { email, role: args.role ?? '' })
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
      return platformMemberList(context, args.json, print)
    case 'remove': {
      const removed = await removePlatformMember(context, by, { email })
      if (isRefusal(removed)) refused(removed)
      return print(`${removed.email} is removed; their console sessions are ended`)
    }
  }
}

async function platformMemberList(context: AppContext, json: boolean, print: Print): Promise<void> {
  const { members } = await platformTeamOf(context)
  const rows = members.map((member) => ({
    email: member.email,
    name: member.name,
    role: member.role,
    enrolled: member.totpSealed !== null && member.totpLastStep > 0,
    created: new Date(Math.floor(member.createdAtUs / 1000)).toISOString(),
  }))
  if (json) return print(JSON.stringify(rows))
  if (rows.length === 0)
    return print('No platform members yet: sika platform-member invite --email EMAIL --role admin')
  for (const row of rows) {
    const enrolled = row.enrolled ? 'enrolled' : 'not enrolled'
    print(`${row.email}  ${row.role.padEnd(8)}  ${enrolled.padEnd(12)}  ${row.created}  ${row.name}`)
  }
}
