import type { Mode } from '../../domain/kinds.ts'
import type { Page } from '../../domain/pages.ts'
import { ApiError } from '../../errors.ts'
import type { AppContext } from '../context.ts'
import { inTurns, type LongExport, openLongExport } from '../mechanisms/long-exports.ts'
import {
  listPayoutBatches,
  type PayoutBatchItemResult,
  type PayoutBatchView,
  payoutBatchDetails,
  payoutBatchItemPages,
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

/**
 * A batch of this merchant and mode with every item (at most 1,000), or undefined. Its items are
 * read a page a turn of the process's long work, so a thousand items hold up no other request.
 */
export async function batchViewOf(
  context: AppContext,
  merchantId: string,
  mode: Mode,
  token: string,
): Promise<BatchView | undefined> {
  const view = await batchDetailsOf(context, merchantId, mode, token)
  if (!view) return undefined
  const items: BatchItemView[] = []
  const pages = inTurns(context, { merchantId, mode }, payoutBatchItemPages(context, view.batch))
  for await (const page of pages) items.push(...page.map(itemView))
  return { ...view, items }
}

/**
 * A batch's results CSV, undefined when there is no such batch: `open` streams its items a page a
 * turn, holding one of the merchant's export slots (`openLongExport`: 429 when they are all taken).
 */
export async function batchResultsExport(
  context: AppContext,
  merchantId: string,
  mode: Mode,
  token: string,
): Promise<{ summary: BatchSummary; open(): LongExport<BatchItemView> } | undefined> {
  const summary = await batchDetailsOf(context, merchantId, mode, token)
  if (!summary) return undefined
  return {
    summary,
    open: () =>
      openLongExport(context, { merchantId, mode }, () =>
        viewsOf(payoutBatchItemPages(context, summary.batch)),
      ),
  }
}

async function* viewsOf(pages: AsyncGenerator<PayoutBatchItemResult[]>): AsyncGenerator<BatchItemView[]> {
  for await (const page of pages) yield page.map(itemView)
}

async function batchDetailsOf(
  context: AppContext,
  merchantId: string,
  mode: Mode,
  token: string,
): Promise<BatchSummary | undefined> {
  try {
    return await payoutBatchDetails(context, merchantId, mode, token)
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
