/** Payout batches (CONTRACT.md, Payout batches): what the API and the dashboard call. */

export { cancelOperation } from '../cancel.ts'
export {
  acceptPayoutBatch,
  type PayoutBatchInput,
  type PayoutBatchItemInput,
  type PayoutBatchOrigin,
} from './accept.ts'
export {
  type Approver,
  approvePayoutBatch,
  cancelPayoutBatch,
  PayoutBatchRefusal,
  rejectPayoutBatch,
} from './decisions.ts'
export {
  listPayoutBatches,
  type PayoutBatchItemResult,
  payoutBatchDetails,
  payoutBatchItemPages,
  payoutBatchItems,
} from './reads.ts'
export { type PayoutBatchView, payoutBatchRecord } from './records.ts'
export { requiresBatchApproval, setRequireBatchApproval } from './settings.ts'
export { PayoutBatchWorker } from './worker.ts'
