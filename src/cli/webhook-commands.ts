import type { AppContext } from '../app/context.ts'
import { rotateWebhookSecret } from '../app/webhook-secrets.ts'
import { CommandError } from './usage.ts'

export async function webhookSecretRotate(
  context: AppContext,
  merchantId: string,
  json: boolean,
  print: (text: string) => void,
) {
  const secret = await rotateWebhookSecret(context, merchantId)
  if (!secret) throw new CommandError(`no merchant has id ${merchantId}`)
  if (json) return print(JSON.stringify({ webhookSecret: secret }))
  print(`New webhook secret for ${merchantId}, shown once:
  ${secret}
Callbacks are signed with both the new and the previous secret for the next 24 hours.`)
}
