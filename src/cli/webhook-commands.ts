import { parseArgs } from 'node:util'
import type { AppContext } from '../app/context.ts'
import { rotateWebhookSecret } from '../app/webhook-secrets.ts'
import { type Mode, modes } from '../domain/kinds.ts'
import { CommandError, oneOf, positionalsNamed } from './usage.ts'

export function parseWebhookSecretRotate(args: string[]): { merchantId: string; mode: Mode; json: boolean } {
  const { values, positionals } = parseArgs({
    args,
    options: { mode: { type: 'string' }, json: { type: 'boolean', default: false } },
    allowPositionals: true,
  })
  const [merchantId] = positionalsNamed(positionals, ['MERCHANT_ID'])
  return { merchantId: merchantId!, mode: oneOf('mode', values.mode, modes), json: values.json }
}

export async function webhookSecretRotate(
  context: AppContext,
  args: ReturnType<typeof parseWebhookSecretRotate>,
  print: (text: string) => void,
) {
  const { merchantId, mode } = args
  const secret = await rotateWebhookSecret(context, merchantId, mode, { kind: 'cli' })
  if (!secret) throw new CommandError(`no merchant has id ${merchantId}`)
  if (args.json) return print(JSON.stringify({ mode, webhookSecret: secret }))
  print(`New ${mode} webhook secret for ${merchantId}, shown once:
  ${secret}
${mode} callbacks are signed with both the new and the previous ${mode} secret for the next 24 hours.`)
}
