import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { runSika } from './support/cli.ts'

/**
 * Every command and subcommand answers --help (and -h) with its usage on stdout, exit 0, and
 * does nothing else: not even the database file is created.
 */

const folder = mkdtempSync(join(tmpdir(), 'sika-help-'))
const databaseFile = join(folder, 'sika.db')
after(() => rmSync(folder, { recursive: true, force: true }))

const sika = (...args: string[]) => runSika(databaseFile, args)

const commands: { args: string[]; shows: RegExp }[] = [
  { args: [], shows: /^Usage: sika <command>/ },
  { args: ['serve'], shows: /^Usage: sika serve\n[\s\S]*HOST=0\.0\.0\.0/ },
  { args: ['migrate'], shows: /^Usage: sika migrate/ },
  { args: ['merchant'], shows: /^Usage: sika merchant create\|list\|suspend\|activate/ },
  { args: ['merchant', 'create'], shows: /^Usage: sika merchant create --name NAME \[--json\]/ },
  { args: ['merchant', 'list'], shows: /^Usage: sika merchant list/ },
  { args: ['merchant', 'suspend'], shows: /^Usage: sika merchant suspend ID/ },
  { args: ['merchant', 'activate'], shows: /^Usage: sika merchant activate ID/ },
  { args: ['merchant', 'set'], shows: /^Usage: sika merchant set ID --require-batch-approval on\|off/ },
  { args: ['key'], shows: /^Usage: sika key rotate\|revoke/ },
  { args: ['key', 'rotate'], shows: /^Usage: sika key rotate ID --mode sandbox\|live/ },
  { args: ['key', 'revoke'], shows: /^Usage: sika key revoke API_KEY/ },
  { args: ['fees'], shows: /^Usage: sika fees list\|set/ },
  { args: ['fees', 'list'], shows: /^Usage: sika fees list/ },
  { args: ['fees', 'set'], shows: /^Usage: sika fees set MERCHANT_ID[\s\S]*--bearer merchant/ },
  { args: ['webhook-secret'], shows: /^Usage: sika webhook-secret rotate MERCHANT_ID --mode/ },
  { args: ['webhook-secret', 'rotate'], shows: /^Usage: sika webhook-secret rotate/ },
  { args: ['member'], shows: /^Usage: sika member invite\|list\|remove\|reset-totp/ },
  { args: ['member', 'invite'], shows: /^Usage: sika member invite MERCHANT_ID --email EMAIL --role ROLE/ },
  { args: ['member', 'list'], shows: /^Usage: sika member list MERCHANT_ID/ },
  { args: ['member', 'remove'], shows: /^Usage: sika member remove MERCHANT_ID --email EMAIL/ },
  { args: ['member', 'reset-totp'], shows: /^Usage: sika member reset-totp MERCHANT_ID --email EMAIL/ },
  { args: ['balance'], shows: /^Usage: sika balance MERCHANT_ID/ },
  { args: ['verify'], shows: /^Usage: sika verify/ },
  {
    args: ['simulate'],
    shows: /^Usage: sika simulate OPERATOR\.\.\.[\s\S]*--operators-file FILE[\s\S]*--sika-url URL/,
  },
]

for (const { args, shows } of commands) {
  for (const flag of ['--help', '-h']) {
    test(`sika ${[...args, flag].join(' ')} prints its usage and exits 0`, async () => {
      const result = await sika(...args, flag)
      assert.equal(result.code, 0, result.stderr)
      assert.match(result.stdout, shows)
      assert.equal(result.stderr, '')
      assert.equal(existsSync(databaseFile), false, 'the database was not opened')
    })
  }
}

test('--help after arguments still answers the usage, doing nothing else', async () => {
  const table = [
    ['merchant', 'create', '--name', 'Shop', '--help'],
    ['simulate', 'mtn-momo', 'wave', '--port', '4000', '--help'],
    ['fees', 'set', 'mer_x', '--kind', 'collect', '-h'],
    ['help', 'merchant', 'create'],
  ]
  for (const args of table) {
    const result = await sika(...args)
    assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`)
    assert.match(result.stdout, /^Usage: sika /, args.join(' '))
  }
  assert.equal(existsSync(databaseFile), false, 'the database was not opened')
})

test('the overview lists each command whose --help is checked above', async () => {
  const { stdout } = await sika('--help')
  for (const { args } of commands.filter(({ args }) => args.length > 0))
    assert.match(stdout, new RegExp(`^  ${args.join(' ')}\\b`, 'm'), args.join(' '))
})

test('--help of an unknown command is a usage error naming it (exit 2)', async () => {
  const result = await sika('frobnicate', '--help')
  assert.equal(result.code, 2)
  assert.match(result.stderr, /^sika: unknown command: frobnicate/)
})

test('a mistake says the one thing that is wrong, then the usage of that command alone (exit 2)', async () => {
  const table: { args: string[]; says: string; usage: RegExp }[] = [
    {
      args: ['member', 'invite', 'mer_x', '--email', 'a@shop.example', '--role', 'boss'],
      says: 'sika member invite: --role is viewer, support, finance, developer, admin or owner, not boss',
      usage: /^Usage: sika member invite MERCHANT_ID --email EMAIL --role ROLE/,
    },
    {
      args: ['member', 'invite', 'mer_x', '--email', 'a@shop.example'],
      says: 'sika member invite: needs --role: viewer, support, finance, developer, admin or owner',
      usage: /^Usage: sika member invite MERCHANT_ID/,
    },
    {
      args: ['member', 'invite', '--email', 'a@shop.example', '--role', 'owner'],
      says: 'sika member invite: needs MERCHANT_ID',
      usage: /^Usage: sika member invite MERCHANT_ID/,
    },
    {
      args: ['member', 'list', 'mer_x', 'mer_y'],
      says: 'sika member list: unexpected argument: mer_y',
      usage: /^Usage: sika member list MERCHANT_ID/,
    },
    {
      args: ['key', 'rotate', 'mer_x', '--mode', 'production'],
      says: 'sika key rotate: --mode is sandbox or live, not production',
      usage: /^Usage: sika key rotate ID --mode sandbox\|live/,
    },
    {
      args: ['merchant', 'create', '--name', 'Shop', '--nmae', 'Shop'],
      says: 'sika merchant create: unknown option: --nmae',
      usage: /^Usage: sika merchant create --name NAME/,
    },
    {
      args: ['merchant', 'create', '--name'],
      says: 'sika merchant create: --name needs a value',
      usage: /^Usage: sika merchant create --name NAME/,
    },
    {
      args: ['merchant', 'set', 'mer_x', '--require-batch-approval', 'yes'],
      says: 'sika merchant set: --require-batch-approval is on or off, not yes',
      usage: /^Usage: sika merchant set ID --require-batch-approval on\|off/,
    },
    {
      args: ['fees', 'set', 'mer_x', '--kind', 'collect', '--channel', 'wave', '--percentage', '2'],
      says: 'sika fees set: needs --bearer: merchant or customer',
      usage: /^Usage: sika fees set MERCHANT_ID/,
    },
    {
      args: ['balance'],
      says: 'sika balance: needs MERCHANT_ID',
      usage: /^Usage: sika balance MERCHANT_ID/,
    },
    {
      args: ['member', 'promote', 'mer_x'],
      says: 'sika member: unknown command: promote',
      usage: /^Usage: sika member invite\|list\|remove\|reset-totp/,
    },
  ]
  for (const { args, says, usage } of table) {
    const result = await sika(...args)
    const [first, blank, ...rest] = result.stderr.split('\n')
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`)
    assert.equal(first, says, args.join(' '))
    assert.equal(blank, '')
    assert.match(rest.join('\n'), usage, args.join(' '))
    assert.doesNotMatch(result.stderr, /^Commands:/m, `${args.join(' ')}: not the usage of every command`)
    assert.equal(result.stdout, '')
  }
  assert.equal(existsSync(databaseFile), false, 'the database was not opened')
})

test('without a command, or with an unknown one, the usage of every command follows', async () => {
  for (const [args, says] of [
    [[], 'sika: a command is required'],
    [['frobnicate'], 'sika: unknown command: frobnicate'],
  ] as const) {
    const result = await sika(...args)
    assert.equal(result.code, 2)
    assert.equal(result.stderr.split('\n')[0], says)
    assert.match(result.stderr, /^Commands:/m)
  }
})
