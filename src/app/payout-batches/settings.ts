import type { AppContext } from '../context.ts'
import { type Actor, audit } from '../dashboard/audit.ts'

/** Whether the merchant's API payout batches wait for a member's approval. */
export function requiresBatchApproval(context: AppContext, merchantId: string): Promise<boolean> {
  return context.store.payoutBatches.requiresApproval(merchantId)
}

/**
 * Turns the merchant's `requireBatchApproval` on or off (the CLI, the owner's settings page),
 * audited in the same transaction with what it was before. False for an unknown merchant.
 */
export function setRequireBatchApproval(
  context: AppContext,
  merchantId: string,
  required: boolean,
  actor: Actor,
): Promise<boolean> {
  return context.store.transaction(async (tx) => {
    const before = await tx.payoutBatches.requiresApproval(merchantId)
    if (!(await tx.payoutBatches.setRequiresApproval(merchantId, required))) return false
    await audit(
      context,
      actor,
      {
        merchantId,
        action: 'merchant.require_batch_approval',
        target: merchantId,
        before: { requireBatchApproval: before },
        after: { requireBatchApproval: required },
      },
      tx,
    )
    return true
  })
}
