import type { Mode } from '../../domain/kinds.ts'
import { toMajorUnits } from '../../domain/money.ts'
import type { Operation } from '../../domain/operation.ts'
import type { Page, PageRequest } from '../../domain/pages.ts'
import type { PayoutBatch } from '../../domain/payout-batches.ts'
import type { FailureReason, Status } from '../../domain/status.ts'
import { ApiError } from '../../errors.ts'
import type { PayoutBatchFilter } from '../../store/repositories/payout-batches.ts'
import type { AppContext } from '../context.ts'
import type { PayoutBatchView } from './records.ts'

/** The batch with its items counted by status. */
export async function countedView(context: AppContext, batch: PayoutBatch): Promise<PayoutBatchView> {
  const counts = await context.store.payoutBatches.counts([batch.id])
  return { batch, counts: counts.get(batch.id)! }
}

/** Another merchant's token, the other mode's, or an unknown one: the same 404. */
export async function findPayoutBatch(
  context: AppContext,
  merchantId: string,
  mode: Mode,
  token: string,
): Promise<PayoutBatch> {
  const batch = await context.store.payoutBatches.findByToken(merchantId, mode, token)
  if (!batch) throw new ApiError('not_found', `No payout batch has token ${token}.`)
  return batch
}

export async function payoutBatchDetails(
  context: AppContext,
  merchantId: string,
  mode: Mode,
  token: string,
): Promise<PayoutBatchView> {
  return countedView(context, await findPayoutBatch(context, merchantId, mode, token))
}

/** Newest first, filtered on status, merchantReference and initiationDate. */
export async function listPayoutBatches(
  context: AppContext,
  merchantId: string,
  mode: Mode,
  page: PageRequest,
  filter: PayoutBatchFilter = {},
): Promise<Page<PayoutBatchView>> {
  const { items, total } = await context.store.payoutBatches.list(merchantId, mode, page, filter)
  const counts = await context.store.payoutBatches.counts(items.map((batch) => batch.id))
  return { items: items.map((batch) => ({ batch, counts: counts.get(batch.id)! })), total }
}

/** One line of a batch's results (the dashboard's CSV). */
export interface PayoutBatchItemResult {
  index: number
  token: string
  merchantReference: string
  phoneNumber: string
  fullName: string
  /** Major units. */
  amount: number
  currency: string
  status: Status
  failureReason: FailureReason | null
  operation: Operation
}

/** Every item of the batch in its order, read in pages of 200. */
export async function payoutBatchItems(
  context: AppContext,
  merchantId: string,
  mode: Mode,
  token: string,
): Promise<PayoutBatchItemResult[]> {
  const batch = await findPayoutBatch(context, merchantId, mode, token)
  const results: PayoutBatchItemResult[] = []
  for await (const page of payoutBatchItemPages(context, batch)) results.push(...page)
  return results
}

/** The batch's items in its order, a page of 200 at a time. */
export async function* payoutBatchItemPages(
  context: AppContext,
  batch: PayoutBatch,
): AsyncGenerator<PayoutBatchItemResult[]> {
  for (let after = -1; ; ) {
    const page = await context.store.payoutBatches.items(batch.id, after, itemsPerPage)
    if (page.length > 0) yield page.map(({ index, operation }) => itemResult(index, operation))
    if (page.length < itemsPerPage) return
    after = page[page.length - 1]!.index
  }
}

const itemsPerPage = 200

function itemResult(index: number, operation: Operation): PayoutBatchItemResult {
  const side = operation.sides[0]!
  return {
    index,
    token: operation.token,
    merchantReference: operation.merchantReference,
    phoneNumber: side.customer.phoneNumber,
    fullName: side.customer.fullName,
    amount: toMajorUnits(side.amountMinor, side.currency),
    currency: side.currency,
    status: operation.status,
    failureReason: operation.failure,
    operation,
  }
}
