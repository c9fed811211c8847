import { parseArgs } from 'node:util'
import type { AppContext } from '../app/context.ts'
import { rotateWebhookSecret } from '../app/webhook-secrets.ts'
import { isMode, type Mode } from '../domain/kinds.ts'
import { CommandError, UsageError } from './usage.ts'

export function parseWebhookSecretRotate(args: string[]): { merchantId: string; mode: Mode; json: boolean } {
  const { values, positionals } = parseArgs({
    args,
    options: { mode: { type: 'string' }, json: { type: 'boolean', default: false } },
    allowPositionals: true,
  })
  const [merchantId, extra] = positionals
  if (!merchantId || extra !== undefined) throw new UsageError('webhook-secret rotate needs one merchant ID')
  if (values.mode === undefined || !isMode(values.mode)) {
    const given =
      values.mode === undefined ? 'no --mode was given' : `not --mode ${JSON.stringify(values.mode)}`
    throw new UsageError(`webhook-secret rotate needs --mode sandbox or --mode live (${given})`)
  }
  return { merchantId, mode: values.mode, json: values.json }
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
