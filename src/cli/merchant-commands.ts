import { parseArgs } from 'node:util'
import type { AppContext } from '../app/context.ts'
import {
  createMerchant,
  listMerchants,
  revokeApiKey,
  rotateKeyPair,
  setMerchantStatus,
} from '../app/merchants.ts'
import { setRequireBatchApproval } from '../app/payout-batches/settings.ts'
import { formatTimestamp } from '../domain/clock.ts'
import { modes } from '../domain/kinds.ts'
import { describeLimits, limitsView } from './merchant-control-commands.ts'
import { CommandError, oneOf, positionalsNamed, UsageError } from './usage.ts'

type Print = (text: string) => void

export function parseMerchantCreate(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    options: { name: { type: 'string' }, json: { type: 'boolean', default: false } },
    allowPositionals: true,
  })
  const name = values.name?.trim()
  positionalsNamed(positionals, [])
  if (name === undefined) throw new UsageError('needs --name NAME')
  if (name === '') throw new UsageError('--name is blank: the merchant needs a name')
  if (name.length > 100) throw new UsageError(`--name is at most 100 characters, not ${name.length}`)
  return { name, json: values.json }
}

export async function merchantCreate(
  context: AppContext,
  args: ReturnType<typeof parseMerchantCreate>,
  print: Print,
) {
  const merchant = await createMerchant(context, args.name)
  if (args.json) return print(JSON.stringify(merchant))
  print(`Created merchant ${merchant.id} (${merchant.name}). These secrets are shown once:
  sandbox  api-key ${merchant.sandbox.apiKey}  secret-key ${merchant.sandbox.secretKey}
           webhook secret ${merchant.sandbox.webhookSecret}
  live     api-key ${merchant.live.apiKey}  secret-key ${merchant.live.secretKey}
           webhook secret ${merchant.live.webhookSecret}
Sandbox callbacks are signed with the sandbox webhook secret, live ones with the live one.`)
}

/** A command's positionals, by name, and its --json flag. */
export function parseJsonFlag(args: string[], names: readonly string[]) {
  const { values, positionals } = parseArgs({
    args,
    options: { json: { type: 'boolean', default: false } },
    allowPositionals: true,
  })
  return { json: values.json, positionals: positionalsNamed(positionals, names) }
}

export async function merchantList(context: AppContext, json: boolean, print: Print) {
  const merchants = await listMerchants(context)
  if (json)
    return print(
      JSON.stringify(
        merchants.map(({ payoutsPaused, limits, ...merchant }) => ({
          ...merchant,
          payoutsPaused: payoutsPaused !== null,
          payoutsPausedReason: payoutsPaused?.reason ?? null,
          limits: limitsView(limits),
        })),
      ),
    )
  if (merchants.length === 0) return print('No merchants yet: sika merchant create --name NAME')
  for (const merchant of merchants) {
    const keys = merchant.activeKeys.map((key) => `${key.mode} ${key.apiKey}`).join(', ') || 'no active keys'
    const paused = merchant.payoutsPaused ? '  payouts paused' : ''
    print(
      `${merchant.id}  ${merchant.status.padEnd(9)}  ${formatTimestamp(merchant.createdAtUs)}  ${merchant.name}  [${keys}]${paused}`,
    )
    const limits = describeLimits(merchant.limits)
    if (limits) print(limits.replace(/^/gm, '    limit '))
  }
}

export async function merchantStatus(
  context: AppContext,
  id: string,
  status: 'active' | 'suspended',
  print: Print,
) {
  if (!(await setMerchantStatus(context, id, status, { kind: 'cli' })))
    throw new CommandError(`no merchant has id ${id}`)
  print(`${id} is now ${status}`)
}

/** `merchant set ID --require-batch-approval on|off`. */
export function parseMerchantSet(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    options: { 'require-batch-approval': { type: 'string' } },
    allowPositionals: true,
  })
  const [merchantId] = positionalsNamed(positionals, ['ID'])
  const setting = oneOf('require-batch-approval', values['require-batch-approval'], ['on', 'off'])
  return { merchantId: merchantId!, requireBatchApproval: setting === 'on' }
}

export async function merchantSet(
  context: AppContext,
  args: ReturnType<typeof parseMerchantSet>,
  print: Print,
) {
  if (!(await setRequireBatchApproval(context, args.merchantId, args.requireBatchApproval, { kind: 'cli' })))
    throw new CommandError(`no merchant has id ${args.merchantId}`)
  const state = args.requireBatchApproval ? 'on' : 'off'
  print(
    `${args.merchantId}: requireBatchApproval is ${state} (API payout batches ${args.requireBatchApproval ? 'wait for a member to approve them' : 'go out without approval'})`,
  )
}

export function parseKeyRotate(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    options: { mode: { type: 'string' }, json: { type: 'boolean', default: false } },
    allowPositionals: true,
  })
  const [merchantId] = positionalsNamed(positionals, ['ID'])
  const mode = oneOf('mode', values.mode, modes)
  return { merchantId: merchantId!, mode, json: values.json }
}

export async function keyRotate(context: AppContext, args: ReturnType<typeof parseKeyRotate>, print: Print) {
  const pair = await rotateKeyPair(context, args.merchantId, args.mode, { kind: 'cli' })
  if (!pair) throw new CommandError(`no merchant has id ${args.merchantId}`)
  if (args.json) return print(JSON.stringify(pair))
  print(`New ${args.mode} key pair for ${args.merchantId} (the previous one is revoked); the secret is shown once:
  api-key ${pair.apiKey}
  secret-key ${pair.secretKey}`)
}

export async function keyRevoke(context: AppContext, apiKey: string, print: Print) {
  if (!(await revokeApiKey(context, apiKey, { kind: 'cli' })))
    throw new CommandError(`no active key pair has api-key ${apiKey}`)
  print(`${apiKey} is revoked`)
}
