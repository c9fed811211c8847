import type { Mode } from '../../domain/kinds.ts'
import type { Page } from '../../domain/pages.ts'
import { ApiError } from '../../errors.ts'
import type { AppContext } from '../context.ts'
import {
  listPayoutBatches,
  type PayoutBatchItemResult,
  type PayoutBatchView,
  payoutBatchDetails,
  payoutBatchItems,
} from '../payout-batches/index.ts'

/** A batch as its pages show it: the row, and its items counted by status. */
export type BatchSummary = PayoutBatchView

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
export function batchesOf(
  context: AppContext,
  merchantId: string,
  mode: Mode,
  page: number,
): Promise<Page<BatchSummary>> {
  return listPayoutBatches(context, merchantId, mode, { page, perPage: batchesPerPage })
}

/** A batch of this merchant and mode with every item (at most 1,000), or undefined. */
export async function batchViewOf(
  context: AppContext,
  merchantId: string,
  mode: Mode,
  token: string,
): Promise<BatchView | undefined> {
  try {
    const [view, items] = await Promise.all([
      payoutBatchDetails(context, merchantId, mode, token),
      payoutBatchItems(context, merchantId, mode, token),
    ])
    return { ...view, items: items.map(itemView) }
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined
    throw error
  }
}

function itemView(item: PayoutBatchItemResult): BatchItemView {
  const failure = item.failureReason ?? item.operation.sides[0]?.failure
  return {
    index: item.index,
    token: item.token,
    merchantReference: item.merchantReference,
    phoneNumber: item.phoneNumber,
    fullName: item.fullName,
    amountMinor: item.operation.sides[0]?.amountMinor ?? 0,
    currency: item.currency,
    status: item.status,
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
