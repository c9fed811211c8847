import {
  isSingleSided,
  type Mode,
  type OperationKind,
  operationKindNames,
  operationKinds,
  refundedKindOf,
  sideKinds,
} from './kinds.ts'
import type { Currency } from './money.ts'
import type { Metadata, Operation } from './operation.ts'
import { type Status, statuses } from './status.ts'

/**
 * Payout batches (CONTRACT.md, Payout batches): one request paying many customers, each item an
 * ordinary disbursement. A batch awaits approval, is processed by the batch worker, and completes
 * once every item is final; rejected or canceled before processing, its items' holds are released.
 */
export const payoutBatchStatuses = [
  'awaiting_approval',
  'processing',
  'completed',
  'rejected',
  'canceled',
] as const
export type PayoutBatchStatus = (typeof payoutBatchStatuses)[number]

/** The kind each item of a batch is. */
export const payoutBatchItemKind: OperationKind = 'disbursement'

/** The most items one batch carries. */
export const largestPayoutBatch = 1000

export interface PayoutBatch {
  id: number
  token: string
  merchantId: string
  mode: Mode
  merchantReference: string
  requestHash: string
  status: PayoutBatchStatus
  currency: Currency
  itemCount: number
  totalMinor: number
  callbackUrl: string | null
  metadata?: Metadata
  /** Who made it, in words: 'API', or the member's name. */
  createdBy: string | null
  /** The member who made it in the dashboard (never the one who approves it). */
  createdByMember: string | null
  approvedBy: string | null
  /** The batch's events ride on its first item's operation in the outbox. */
  firstOperationId: number
  initiatedAtUs: number
  completedAtUs: number | null
}

export type PayoutBatchCounts = Record<Status, number>

export function emptyCounts(): PayoutBatchCounts {
  return Object.fromEntries(statuses.map((status) => [status, 0])) as PayoutBatchCounts
}

/** A batch's items are all final: it completes. */
export function allItemsFinal(counts: PayoutBatchCounts): boolean {
  return counts.pending === 0
}

/**
 * The kinds a merchant may cancel (CONTRACT.md, Cancel): single-sided cash-outs that are not
 * refunds, whose money leaves for a customer the merchant chose.
 */
export const cancelableKinds: readonly OperationKind[] = operationKindNames.filter((kind) => {
  const first = operationKinds[kind].sides[0]
  return (
    isSingleSided(kind) &&
    !refundedKindOf(kind) &&
    first !== undefined &&
    sideKinds[first.sideKind].direction === 'cash-out'
  )
})

/**
 * Where a cash-out stands for a cancel: still queued (canceled at once), held by its operator
 * (which may be asked, where it can stop it), or past canceling, with the reason in words.
 */
export type CancelStanding =
  | { standing: 'queued' }
  | { standing: 'canceled' }
  | { standing: 'at-operator' }
  | { standing: 'not-cancelable'; why: string }

export function cancelStanding(operation: Operation): CancelStanding {
  const side = operation.sides[0]
  if (!side) return { standing: 'not-cancelable', why: 'It has no side to cancel.' }
  if (operation.status === 'canceled' && side.failure?.code === 'canceled_by_merchant')
    return { standing: 'canceled' }
  if (operation.status !== 'pending')
    return {
      standing: 'not-cancelable',
      why: `Its status is ${operation.status}, which is final: nothing is left to cancel.`,
    }
  if (side.queuedInBatch) return { standing: 'queued' }
  if (side.submittedAtUs === undefined)
    return {
      standing: 'not-cancelable',
      why: 'Its status is pending and it is being handed to its operator now; read it again and cancel it if the operator still holds it.',
    }
  return { standing: 'at-operator' }
}
