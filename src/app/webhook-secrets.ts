import { newWebhookSecret } from '../domain/identifiers.ts'
import type { AppContext } from './context.ts'
import { merchantExists } from './merchants.ts'

/** How long a replaced webhook secret keeps signing, so receivers can switch without losing events. */
export const rotationOverlapMs = 24 * 3_600_000

/** The secrets that sign now: the current one, and during a rotation the one it replaced. */
export async function signingSecrets(context: AppContext, merchantId: string): Promise<string[]> {
  const now = context.clock.nowMicros()
  const rows = await context.store.db
    .selectFrom('webhook_secrets')
    .select('secret_encrypted')
    .where('merchant_id', '=', merchantId)
    .where((eb) => eb.or([eb('expires_at_us', 'is', null), eb('expires_at_us', '>', now)]))
    .orderBy('id', 'desc')
    .execute()
  return rows.map((row) => context.secrets.open(row.secret_encrypted))
}

/** Issues a new secret; the current ones keep signing for 24 hours. Undefined for an unknown merchant. */
export async function rotateWebhookSecret(
  context: AppContext,
  merchantId: string,
): Promise<string | undefined> {
  const now = context.clock.nowMicros()
  const secret = newWebhookSecret()
  return context.store.transaction(async (trx) => {
    if (!(await merchantExists(trx, merchantId))) return undefined
    await trx
      .updateTable('webhook_secrets')
      .set({ expires_at_us: now + rotationOverlapMs * 1000 })
      .where('merchant_id', '=', merchantId)
      .where('expires_at_us', 'is', null)
      .execute()
    await trx
      .insertInto('webhook_secrets')
      .values({ merchant_id: merchantId, secret_encrypted: context.secrets.seal(secret), created_at_us: now })
      .execute()
    return secret
  })
}
