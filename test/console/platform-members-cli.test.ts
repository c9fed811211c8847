import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { platformAccounts } from '../../src/app/console/platform-accounts.ts'
import { isRefusal } from '../../src/app/dashboard/refusals.ts'
import { acceptInvitationOf } from '../../src/app/sign-in/invitations.ts'
import { platformMay, platformRoles } from '../../src/domain/platform-roles.ts'
import { startApp, type TestApp } from '../support/app.ts'
import { runSika } from '../support/cli.ts'
import { describeEachStore } from '../support/stores.ts'

test('the platform roles are the contract table: admin has every right, analyst only reads', () => {
  const rights = [
    'read',
    'resend',
    'recheck',
    'merchants',
    'payouts',
    'limits',
    'fees',
    'reconciliation',
    'export',
    'team',
    'members',
  ] as const
  const table: Record<(typeof platformRoles)[number], readonly string[]> = {
    analyst: ['read'],
    // Helping a merchant's members (reset TOTP, invite again) is admin's alone: a new invitation
    // hands the member's account to whoever opens it.
    support: ['read', 'resend', 'recheck'],
    risk: ['read', 'merchants', 'payouts', 'limits'],
    finance: ['read', 'fees', 'reconciliation', 'export'],
    admin: rights,
  }
  for (const role of platformRoles)
    assert.deepEqual(
      rights.filter((right) => platformMay(role, right)),
      [...table[role]],
      role,
    )
})

describeEachStore('sika platform-member', (store) => {
  let app: TestApp
  const sika = (...args: string[]) => runSika(store().databaseUrl, args)
  before(async () => {
    app = await startApp(store())
  })
  after(() => app?.close())

  /** A person who opens the link and sets a name and a password (the enrolment follows in the console). */
  async function accept(url: string) {
    const token = new URL(url).pathname.split('/').at(-1) ?? ''
    const client = { address: '127.0.0.1', userAgent: 'test' }
    const input = { name: 'Ama Owusu', password: 'a long enough password' }
    const opened = await acceptInvitationOf(app.context, platformAccounts, token, input, client)
    assert.ok(!isRefusal(opened), JSON.stringify(opened))
    return opened
  }

  test('invite prints an invitationUrl on PUBLIC_BASE_URL; --json names its expiry; list; the CLI is audited', {
    timeout: 60_000,
  }, async () => {
    const invited = await sika(
      'platform-member',
      'invite',
      '--email',
      'Admin@Platform.example',
      '--role',
      'admin',
    )
    assert.equal(invited.code, 0, invited.stderr)
    const url = invited.stdout.trim()
    assert.match(url, /^http.*\/console\/invitations\/[A-Za-z0-9_-]{43}$/)
    await accept(url)

    const json = await sika(
      'platform-member',
      'invite',
      '--email',
      'analyst@platform.example',
      '--role',
      'analyst',
      '--json',
    )
    assert.equal(json.code, 0, json.stderr)
    const issued = JSON.parse(json.stdout)
    assert.deepEqual(Object.keys(issued).sort(), ['email', 'expiresAt', 'invitationUrl', 'role'])
    const hours = (Date.parse(issued.expiresAt) - Date.now()) / 3_600_000
    assert.ok(hours > 71.9 && hours <= 72, `expires in ${hours} h`)
    await accept(issued.invitationUrl)
    const again = await acceptInvitationOf(
      app.context,
      platformAccounts,
      new URL(issued.invitationUrl).pathname.split('/').at(-1) ?? '',
      { name: 'Twice', password: 'a long enough password' },
      { address: '127.0.0.1', userAgent: 'test' },
    )
    assert.deepEqual(again, { refused: 'invitation_unusable' }, 'an invitation is used once')

    const listed = await sika('platform-member', 'list', '--json')
    assert.equal(listed.code, 0, listed.stderr)
    const members = JSON.parse(listed.stdout)
    assert.deepEqual(
      members.map((member: { email: string; role: string }) => [member.email, member.role]),
      [
        ['admin@platform.example', 'admin'],
        ['analyst@platform.example', 'analyst'],
      ],
    )
    assert.match(
      (await sika('platform-member', 'list')).stdout,
      /admin@platform\.example\s+admin\s+not enrolled/,
    )

    const merchantMembers = await app.db.selectFrom('members').select('email').execute()
    assert.ok(!merchantMembers.some((row) => row.email.endsWith('@platform.example')), 'not merchant members')
    const audit = await app.db.selectFrom('platform_audit_log').selectAll().orderBy('at_us').execute()
    assert.ok(audit.some((row) => row.actor_kind === 'cli' && row.action === 'member.invited'))
    assert.ok(audit.some((row) => row.actor_kind === 'member' && row.action === 'member.joined'))
  })

  test('remove refuses the last admin, removes another member, and ends their sessions', {
    timeout: 60_000,
  }, async () => {
    const last = await sika('platform-member', 'remove', '--email', 'admin@platform.example')
    assert.equal(last.code, 1)
    assert.match(last.stderr, /last admin/)
    const removed = await sika('platform-member', 'remove', '--email', 'analyst@platform.example')
    assert.equal(removed.code, 0, removed.stderr)
    const listed = JSON.parse((await sika('platform-member', 'list', '--json')).stdout)
    assert.deepEqual(
      listed.map((member: { email: string }) => member.email),
      ['admin@platform.example'],
    )
    const unknown = await sika('platform-member', 'remove', '--email', 'nobody@platform.example')
    assert.equal(unknown.code, 1)
    const audit = await app.db
      .selectFrom('platform_audit_log')
      .selectAll()
      .where('action', '=', 'member.removed')
      .execute()
    assert.equal(audit.length, 1)
    assert.equal(audit[0]?.target, 'analyst@platform.example')
    assert.equal(audit[0]?.actor_label, 'cli')
  })

  test('a wrong role is a usage error naming the roles (exit 2)', async () => {
    const wrong = await sika('platform-member', 'invite', '--email', 'x@platform.example', '--role', 'owner')
    assert.equal(wrong.code, 2)
    assert.match(wrong.stderr, /--role is analyst, support, risk, finance or admin, not owner/)
  })
})
