import type { AppContext } from '../context.ts'
import { requiresBatchApproval } from '../payout-batches/settings.ts'

/** The merchant's settings an owner changes in the dashboard. */
export interface MerchantSettings {
  /** API payout batches wait for a member's approval too (a dashboard batch always does). */
  requireBatchApproval: boolean
}

export async function merchantSettingsOf(context: AppContext, merchantId: string): Promise<MerchantSettings> {
  return { requireBatchApproval: await requiresBatchApproval(context, merchantId) }
}
