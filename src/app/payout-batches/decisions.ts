import type { Mode } from '../../domain/kinds.ts'
import {
  allItemsFinal,
  cancelStanding,
  type PayoutBatch,
  type PayoutBatchStatus,
} from '../../domain/payout-batches.ts'
import type { FailureReason } from '../../domain/status.ts'
import { withMerchantReason } from '../../domain/transitions.ts'
import { ApiError } from '../../errors.ts'
import type { Repositories } from '../../store/store.ts'
import { askOperator } from '../cancel.ts'
import type { AppContext } from '../context.ts'
import { executeWrites, type WriteSteps } from '../write-pipeline.ts'
import { countedView, findPayoutBatch } from './reads.ts'
import { type PayoutBatchView, payoutBatchEvent } from './records.ts'

/** Why a batch cannot be approved or rejected: a value the dashboard says in its own words. */
export class PayoutBatchRefusal extends Error {
  constructor(
    readonly code: 'creator_cannot_approve' | 'not_awaiting_approval',
    readonly status: PayoutBatchStatus,
  ) {
    super(
      code === 'creator_cannot_approve'
        ? 'The member who made a payout batch cannot approve it: another member must.'
        : `The payout batch is ${status}, not awaiting approval.`,
    )
  }
}

/** The member who approves: never the one who made the batch. */
export interface Approver {
  memberId: string
  label: string
}

const rejectedReason: FailureReason = {
  code: 'canceled_by_merchant',
  message: 'The payout batch was rejected before this payout reached its operator.',
}

const batchCanceledReason: FailureReason = {
  code: 'canceled_by_merchant',
  message: 'The merchant canceled the payout batch before this payout reached its operator.',
}

/** A batch awaiting approval goes to processing; its creator cannot approve it. */
export async function approvePayoutBatch(
  context: AppContext,
  merchantId: string,
  mode: Mode,
  token: string,
  approver: Approver,
): Promise<PayoutBatchView> {
  const found = await findPayoutBatch(context, merchantId, mode, token)
  return executeWrites(context, async ({ tx, nowUs }) => {
    const batch = await lockBatch(tx, found.id)
    if (batch.status !== 'awaiting_approval')
      throw new PayoutBatchRefusal('not_awaiting_approval', batch.status)
    if (batch.createdByMember === approver.memberId)
      throw new PayoutBatchRefusal('creator_cannot_approve', batch.status)
    await tx.payoutBatches.changeStatus(batch.id, ['awaiting_approval'], 'processing', {
      approvedBy: approver.label,
      nextLookAtUs: nowUs,
    })
    return viewWithin(tx, { ...batch, status: 'processing', approvedBy: approver.label })
  })
}

/** A batch awaiting approval is rejected: every item canceled, every hold released, one event. */
export async function rejectPayoutBatch(
  context: AppContext,
  merchantId: string,
  mode: Mode,
  token: string,
): Promise<PayoutBatchView> {
  const found = await findPayoutBatch(context, merchantId, mode, token)
  return executeWrites(context, async (steps) => {
    const batch = await lockBatch(steps.tx, found.id)
    if (batch.status !== 'awaiting_approval')
      throw new PayoutBatchRefusal('not_awaiting_approval', batch.status)
    await cancelQueuedItems(steps, batch.id, rejectedReason)
    return concludeWithin(steps, batch, 'rejected')
  })
}

/**
 * CONTRACT.md, Payout batches: cancels every item not yet at an operator, as in Cancel. Items
 * still queued end canceled in one transaction; then each item an operator holds but can still
 * stop (pawaPay's fail-enqueued) is asked of its operator, as a single cancel is, and ends canceled
 * once the operator says so (an item the operator sent on is left to finish). A batch awaiting
 * approval ends canceled; one being processed completes once the items already sent are final.
 * Canceling twice answers the same batch; a batch that ended otherwise is a 409.
 */
export async function cancelPayoutBatch(
  context: AppContext,
  merchantId: string,
  mode: Mode,
  token: string,
  reason?: string,
): Promise<PayoutBatchView> {
  const found = await findPayoutBatch(context, merchantId, mode, token)
  const failure = { ...batchCanceledReason, message: withMerchantReason(batchCanceledReason.message, reason) }
  const view = await executeWrites(context, async (steps) => {
    const batch = await lockBatch(steps.tx, found.id)
    if (batch.status === 'completed' || batch.status === 'rejected')
      throw new ApiError(
        'not_cancelable',
        `Payout batch ${batch.token} is ${batch.status}: every item is final, nothing is left to cancel.`,
        undefined,
        undefined,
        { status: batch.status },
      )
    if (batch.status === 'canceled') return viewWithin(steps.tx, batch)
    await cancelQueuedItems(steps, batch.id, failure)
    if (batch.status === 'awaiting_approval') return concludeWithin(steps, batch, 'canceled')
    // Processing: the batch worker completes it once the items already sent are final.
    await steps.tx.payoutBatches.changeStatus(batch.id, ['processing'], 'processing', {
      nextLookAtUs: steps.nowUs,
    })
    return viewWithin(steps.tx, batch)
  })
  if (view.batch.status !== 'processing') return view
  await askOperatorsToStop(context, view.batch.id, reason)
  return countedView(context, view.batch)
}

/** Each dispatched item still pending is asked of its operator; a refusal leaves it to finish. */
async function askOperatorsToStop(context: AppContext, batchId: number, reason?: string): Promise<void> {
  for (let after = -1; ; ) {
    const page = await context.store.payoutBatches.items(batchId, after, 200)
    for (const { operation } of page) {
      if (cancelStanding(operation).standing !== 'at-operator') continue
      try {
        await askOperator(context, operation, reason)
      } catch (refusal) {
        if (!(refusal instanceof ApiError)) throw refusal
      }
    }
    if (page.length < 200) return
    after = page[page.length - 1]!.index
  }
}

/** Completes a processing batch whose items are all final, with its event; false when some are not. */
export async function completeIfFinal(context: AppContext, batchId: number): Promise<boolean> {
  return executeWrites(context, async (steps) => {
    const batch = await lockBatch(steps.tx, batchId)
    if (batch.status !== 'processing') return true
    const counts = (await steps.tx.payoutBatches.counts([batch.id])).get(batch.id)!
    if (!allItemsFinal(counts)) return false
    await concludeWithin(steps, batch, 'completed')
    return true
  })
}

async function lockBatch(tx: Repositories, id: number): Promise<PayoutBatch> {
  const batch = await tx.payoutBatches.lockById(id)
  if (!batch) throw new Error(`payout batch ${id} does not exist`)
  return batch
}

async function cancelQueuedItems(steps: WriteSteps, batchId: number, reason: FailureReason): Promise<void> {
  const ids = await steps.tx.payoutBatches.itemIds(batchId, { queuedOnly: true })
  await steps.lockOperations(ids)
  for (const operationId of ids)
    await steps.settle({
      operationId,
      role: 'main',
      outcome: { status: 'canceled', reason },
      source: 'merchant',
    })
}

/**
 * The batch ends (completed, rejected or canceled) and its event is written in the same
 * transaction. The event's subject is the batch (kept beside its first item's operation, through
 * which the outbox finds it): it is ordered after the batch's own earlier events only, never
 * behind its items' callbacks, nor they behind it.
 */
async function concludeWithin(
  steps: WriteSteps,
  batch: PayoutBatch,
  status: 'completed' | 'rejected' | 'canceled',
): Promise<PayoutBatchView> {
  const { tx, nowUs } = steps
  await tx.payoutBatches.changeStatus(batch.id, [batch.status], status, { completedAtUs: nowUs })
  const view = await viewWithin(tx, { ...batch, status, completedAtUs: nowUs })
  const numbers = await tx.sequences.reserve(batch.merchantId, batch.mode, { ledgerEntries: 0, events: 1 })
  await tx.outbox.append(
    { id: batch.firstOperationId, merchantId: batch.merchantId, mode: batch.mode, payoutBatchId: batch.id },
    [payoutBatchEvent(view)],
    numbers.events,
  )
  return view
}

async function viewWithin(tx: Repositories, batch: PayoutBatch): Promise<PayoutBatchView> {
  const counts = await tx.payoutBatches.counts([batch.id])
  return { batch, counts: counts.get(batch.id)! }
}
