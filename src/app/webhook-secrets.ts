import { newWebhookSecret } from '../domain/identifiers.ts'
import type { AppContext } from './context.ts'

/** How long a replaced webhook secret keeps signing, so receivers can switch without losing events. */
export const rotationOverlapMs = 24 * 3_600_000

/** The secrets that sign now: the current one, and during a rotation the one it replaced. */
export async function signingSecrets(context: AppContext, merchantId: string): Promise<string[]> {
  const sealed = await context.store.webhookSecrets.signing(merchantId, context.clock.nowUs())
  return sealed.map((secret) => context.secrets.open(secret))
}

/** Issues a new secret; the current ones keep signing for 24 hours. Undefined for an unknown merchant. */
export async function rotateWebhookSecret(
  context: AppContext,
  merchantId: string,
): Promise<string | undefined> {
  const now = context.clock.nowUs()
  const secret = newWebhookSecret()
  return context.store.transaction(async (tx) => {
    if (!(await tx.merchants.exists(merchantId))) return undefined
    await tx.webhookSecrets.retire(merchantId, now + rotationOverlapMs * 1000)
    await tx.webhookSecrets.insert(merchantId, context.secrets.seal(secret), now)
    return secret
  })
}
