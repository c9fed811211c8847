import type { Mode } from '../../domain/kinds.ts'
import type { Operation } from '../../domain/operation.ts'
import type { Page } from '../../domain/pages.ts'
import {
  emptyCounts,
  largestPayoutBatch,
  type PayoutBatch,
  type PayoutBatchCounts,
} from '../../domain/payout-batches.ts'
import type { AppContext } from '../context.ts'

/** A batch as its pages show it: the row, and its items counted by status. */
export interface BatchSummary {
  batch: PayoutBatch
  counts: PayoutBatchCounts
}

/** One item of a batch, as its page and its results CSV show it. */
export interface BatchItemView {
  index: number
  token: string
  merchantReference: string
  phoneNumber: string
  fullName: string
  amountMinor: number
  currency: string
  status: string
  failureCode: string
  failureMessage: string
}

export interface BatchView extends BatchSummary {
  items: BatchItemView[]
}

export const batchesPerPage = 50

/** The merchant's batches of one mode, newest first, a page at a time, with their counts. */
export async function batchesOf(
  context: AppContext,
  merchantId: string,
  mode: Mode,
  page: number,
): Promise<Page<BatchSummary>> {
  const listed = await context.store.payoutBatches.list(merchantId, mode, { page, perPage: batchesPerPage })
  const counts = await context.store.payoutBatches.counts(listed.items.map((batch) => batch.id))
  return {
    total: listed.total,
    items: listed.items.map((batch) => ({ batch, counts: counts.get(batch.id) ?? emptyCounts() })),
  }
}

/** A batch of this merchant and mode with every item (at most 1,000), or undefined. */
export async function batchViewOf(
  context: AppContext,
  merchantId: string,
  mode: Mode,
  token: string,
): Promise<BatchView | undefined> {
  const batch = await context.store.payoutBatches.findByToken(merchantId, mode, token)
  if (!batch) return undefined
  const [counts, items] = await Promise.all([
    context.store.payoutBatches.counts([batch.id]),
    context.store.payoutBatches.items(batch.id, -1, largestPayoutBatch),
  ])
  return {
    batch,
    counts: counts.get(batch.id) ?? emptyCounts(),
    items: items.map(({ index, operation }) => itemView(index, operation)),
  }
}

function itemView(index: number, operation: Operation): BatchItemView {
  const side = operation.sides[0]
  const failure = operation.failure ?? side?.failure
  return {
    index,
    token: operation.token,
    merchantReference: operation.merchantReference,
    phoneNumber: side?.customer.phoneNumber ?? '',
    fullName: side?.customer.fullName ?? '',
    amountMinor: side?.amountMinor ?? 0,
    currency: operation.currency,
    status: operation.status,
    failureCode: failure?.code ?? '',
    failureMessage: failure?.message ?? '',
  }
}

/** The results CSV's columns: each item's status and, when it did not succeed, why. */
export const batchResultColumns = [
  'token',
  'merchantReference',
  'phoneNumber',
  'fullName',
  'amount',
  'currency',
  'status',
  'failureCode',
  'failureMessage',
] as const
