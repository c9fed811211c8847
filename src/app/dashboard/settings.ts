import type { AppContext } from '../context.ts'
import { type Actor, audit } from './audit.ts'

/** The merchant's settings an owner changes in the dashboard. */
export interface MerchantSettings {
  /** API payout batches wait for a member's approval too (a dashboard batch always does). */
  requireBatchApproval: boolean
}

export async function merchantSettingsOf(context: AppContext, merchantId: string): Promise<MerchantSettings> {
  return { requireBatchApproval: await context.store.payoutBatches.requiresApproval(merchantId) }
}

/** Sets the batch approval setting, with its audit row in the same transaction; an unchanged value writes nothing. */
export async function setRequireBatchApproval(
  context: AppContext,
  actor: Actor,
  merchantId: string,
  required: boolean,
): Promise<MerchantSettings> {
  return context.store.transaction(async (tx) => {
    const before = await tx.payoutBatches.requiresApproval(merchantId)
    if (before === required) return { requireBatchApproval: before }
    await tx.payoutBatches.setRequiresApproval(merchantId, required)
    await audit(
      context,
      actor,
      {
        merchantId,
        action: 'merchant.settings.changed',
        target: merchantId,
        before: { requireBatchApproval: before },
        after: { requireBatchApproval: required },
      },
      tx,
    )
    return { requireBatchApproval: required }
  })
}
