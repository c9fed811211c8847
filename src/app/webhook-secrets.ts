import { newWebhookSecret } from '../domain/identifiers.ts'
import type { Mode } from '../domain/kinds.ts'
import type { AppContext } from './context.ts'
import { type Actor, audit } from './dashboard/audit.ts'

/** How long a replaced webhook secret keeps signing, so receivers can switch without losing events. */
export const rotationOverlapMs = 24 * 3_600_000

/** The key a mode's secrets are kept under in `context.signingSecrets`. */
const keptAs = (merchantId: string, mode: Mode) => `${mode}:${merchantId}`

/**
 * The secrets of the mode that sign now: the current one, and during a rotation the one it
 * replaced. Each mode has its own, so a sandbox event never verifies under the live secret.
 * Read through `context.signingSecrets`: a delivery does not read the store every time.
 */
export async function signingSecrets(context: AppContext, merchantId: string, mode: Mode): Promise<string[]> {
  const kept = await context.signingSecrets.read(keptAs(merchantId, mode), async () => {
    const sealed = await context.store.webhookSecrets.signing(merchantId, mode, context.clock.nowUs())
    return sealed.map(({ sealed, expiresAtUs }) => ({ secret: context.secrets.open(sealed), expiresAtUs }))
  })
  const nowUs = context.clock.nowUs()
  return kept
    .filter(({ expiresAtUs }) => expiresAtUs === null || expiresAtUs > nowUs)
    .map(({ secret }) => secret)
}

/**
 * Issues a new secret for the mode; its current ones keep signing for 24 hours. Undefined for an
 * unknown merchant. With an actor, a `webhook_secret.rotated` audit row in the same transaction
 * (naming the mode, never the secret).
 */
export async function rotateWebhookSecret(
  context: AppContext,
  merchantId: string,
  mode: Mode,
  actor?: Actor,
): Promise<string | undefined> {
  const now = context.clock.nowUs()
  const secret = newWebhookSecret()
  return context.store
    .transaction(async (tx) => {
      if (!(await tx.merchants.exists(merchantId))) return undefined
      await tx.webhookSecrets.retire(merchantId, mode, now + rotationOverlapMs * 1000)
      await tx.webhookSecrets.insert(merchantId, mode, context.secrets.seal(secret), now)
      if (actor) {
        const retiresAt = new Date((now + rotationOverlapMs * 1000) / 1000).toISOString()
        const change = {
          merchantId,
          mode,
          action: 'webhook_secret.rotated',
          target: `${mode} webhook secret`,
        }
        await audit(context, actor, { ...change, after: { previousSignsUntil: retiresAt } }, tx)
      }
      return secret
    })
    .finally(() => context.signingSecrets.forget(keptAs(merchantId, mode)))
}

/**
 * Merchants created before each mode had its own secret have one, their sandbox secret: at
 * start, each of them is issued a live one (sealing needs the service's key, so a migration
 * cannot). Idempotent, and safe with several instances starting together. Nobody has seen these
 * secrets: `sika webhook-secret rotate ID --mode live` shows the merchant a new one. Returns the
 * merchants given one.
 */
export async function issueMissingLiveSecrets(context: AppContext): Promise<string[]> {
  const issued: string[] = []
  for (const merchantId of await context.store.webhookSecrets.merchantsLacking('live')) {
    const sealed = context.secrets.seal(newWebhookSecret())
    const inserted = await context.store.transaction((tx) =>
      tx.webhookSecrets.insertFirst(merchantId, 'live', sealed, context.clock.nowUs()),
    )
    if (inserted) issued.push(merchantId)
  }
  return issued
}
