import { formatTimestamp } from '../../domain/clock.ts'
import { toMajorUnits } from '../../domain/money.ts'
import type { PayoutBatch, PayoutBatchCounts } from '../../domain/payout-batches.ts'
import type { NewEvent } from '../../store/repositories/outbox.ts'

/** A batch with its items counted by status, as the API and the dashboard show it. */
export interface PayoutBatchView {
  batch: PayoutBatch
  counts: PayoutBatchCounts
}

/** CONTRACT.md, Payout batches: the published record, field by field in its order. */
export function payoutBatchRecord({ batch, counts }: PayoutBatchView): Record<string, unknown> {
  const record: Record<string, unknown> = {
    token: batch.token,
    merchantReference: batch.merchantReference,
    status: batch.status,
    itemCount: batch.itemCount,
    totalAmount: toMajorUnits(batch.totalMinor, batch.currency),
    currency: batch.currency,
    counts: {
      pending: counts.pending,
      succeeded: counts.succeeded,
      failed: counts.failed,
      canceled: counts.canceled,
      error: counts.error,
    },
  }
  if (batch.createdBy !== null) record.createdBy = batch.createdBy
  if (batch.approvedBy !== null) record.approvedBy = batch.approvedBy
  record.initiationDate = formatTimestamp(batch.initiatedAtUs)
  if (batch.completedAtUs !== null) record.completionDate = formatTimestamp(batch.completedAtUs)
  if (batch.metadata) record.metadata = batch.metadata
  return record
}

/** `payout_batch.<status>`, carrying the batch record, to the batch's callbackUrl. */
export function payoutBatchEvent(view: PayoutBatchView): NewEvent {
  const type = `payout_batch.${view.batch.status}`
  return {
    type,
    callbackUrl: view.batch.callbackUrl,
    render: (id, createdAtUs) =>
      JSON.stringify({
        id,
        type,
        createdAt: formatTimestamp(createdAtUs),
        mode: view.batch.mode,
        data: { payoutBatch: payoutBatchRecord(view) },
      }),
  }
}
