import type { Mode } from '../../domain/kinds.ts'
import { toMajorUnits } from '../../domain/money.ts'
import type { Operation } from '../../domain/operation.ts'
import { ApiError } from '../../errors.ts'
import { cancelOperation } from '../cancel.ts'
import type { AppContext } from '../context.ts'
import {
  acceptPayoutBatch,
  approvePayoutBatch,
  cancelPayoutBatch,
  PayoutBatchRefusal,
  type PayoutBatchView,
  rejectPayoutBatch,
} from '../payout-batches/index.ts'
import type { Principal } from '../principal.ts'
import { audit } from './audit.ts'
import { confirmCode } from './member-secrets.ts'
import { itemOf, previewPayoutBatch, readPayoutCsv } from './payout-batch-upload.ts'
import { type DashboardRefusal, isRefusal, refusal } from './refusals.ts'

/** The member acting, as the audit log and the batch's record name them. */
export interface BatchMember {
  memberId: string
  name: string
  email: string
  address: string
  /** The session acting: ended by an approval code that locks the member. */
  sessionId: string
}

/** What an action answers: the batch, a refusal of the dashboard's, or the API's own refusal (its message). */
export type BatchOutcome = { view: PayoutBatchView } | DashboardRefusal | { apiError: ApiError }

const actorOf = (member: BatchMember) =>
  ({ kind: 'member', memberId: member.memberId, email: member.email, address: member.address }) as const

function batchAudit(view: PayoutBatchView) {
  const { batch, counts } = view
  return {
    status: batch.status,
    itemCount: batch.itemCount,
    totalAmount: toMajorUnits(batch.totalMinor, batch.currency),
    currency: batch.currency,
    counts,
  }
}

/** An API refusal stays a value the page words; anything else is the server's failure. */
async function answered(work: () => Promise<PayoutBatchView>): Promise<BatchOutcome> {
  try {
    return { view: await work() }
  } catch (error) {
    if (error instanceof PayoutBatchRefusal)
      return refusal(error.code === 'creator_cannot_approve' ? 'approver_is_creator' : 'batch_not_awaiting')
    if (error instanceof ApiError && error.status < 500) return { apiError: error }
    throw error
  }
}

/** A place in the merchant's batch line, or the 429 that says the line is full. */
async function enterLine(context: AppContext, principal: Principal): Promise<(() => void) | BatchOutcome> {
  try {
    return await context.payoutBatchLine.enter(principal)
  } catch (error) {
    if (error instanceof ApiError && error.status < 500) return { apiError: error }
    throw error
  }
}

/**
 * The uploaded file submitted: read and checked again (the preview is only what the member saw),
 * then accepted as the API accepts a batch, as the member's: it awaits a second member's approval.
 */
export async function submitUploadedBatch(
  context: AppContext,
  member: BatchMember,
  principal: Principal,
  upload: { csv: string; reference: string },
): Promise<BatchOutcome> {
  const rows = readPayoutCsv(upload.csv)
  if (isRefusal(rows)) return rows
  // The same file submitted twice (a second click, a reload) answers the batch it made, audited
  // once: its items' references are taken by then, so it goes to the API's idempotency unchecked.
  const made = await context.store.payoutBatches.findByReference(
    principal.merchantId,
    principal.mode,
    upload.reference,
  )
  if (!made) {
    const preview = await previewPayoutBatch(context, principal, rows)
    if (preview.faulty > 0) return refusal('batch_has_errors')
    if (preview.mixedCurrencies) return refusal('batch_mixed_currencies')
  }
  const input = { merchantReference: upload.reference, items: rows.map(itemOf) }
  const origin = { kind: 'member', memberId: member.memberId, label: member.name } as const
  // As the API's batches: one of the merchant's at a time on this instance, a few more waiting.
  const leave = await enterLine(context, principal)
  if (typeof leave !== 'function') return leave
  const outcome = await answered(() => acceptPayoutBatch(context, principal, input, origin)).finally(leave)
  if ('view' in outcome && !made)
    await audit(context, actorOf(member), {
      merchantId: principal.merchantId,
      mode: principal.mode,
      action: 'payout_batch.created',
      target: outcome.view.batch.token,
      after: batchAudit(outcome.view),
    })
  return outcome
}

/**
 * Whether the member made the batch: the same account, or an earlier account of the same person
 * (an email invited again gets a new member id, and is still the one who made it).
 */
async function madeBy(context: AppContext, creatorId: string | null, member: BatchMember): Promise<boolean> {
  if (creatorId === null) return false
  if (creatorId === member.memberId) return true
  const creator = await context.store.members.findMember(creatorId)
  return creator !== undefined && creator.email === member.email
}

/**
 * Approval by a second member: never the batch's creator (refused before the code is used), and
 * only with a fresh code from their authenticator, good once, counted with the sign-in's attempts.
 */
export async function approveFromDashboard(
  context: AppContext,
  member: BatchMember,
  target: { merchantId: string; mode: Mode; token: string },
  code: string,
): Promise<BatchOutcome> {
  const batch = await context.store.payoutBatches.findByToken(target.merchantId, target.mode, target.token)
  if (!batch) return { apiError: new ApiError('not_found', `No payout batch has token ${target.token}.`) }
  if (await madeBy(context, batch.createdByMember, member)) return refusal('approver_is_creator')
  if (batch.status !== 'awaiting_approval') return refusal('batch_not_awaiting')
  const confirmed = await confirmCode(context, member, code)
  if (confirmed !== true) return confirmed
  const approver = { memberId: member.memberId, label: member.name }
  const outcome = await answered(() =>
    approvePayoutBatch(context, target.merchantId, target.mode, target.token, approver),
  )
  if ('view' in outcome) await auditDecision(context, member, target, 'payout_batch.approved', outcome.view)
  return outcome
}

export async function rejectFromDashboard(
  context: AppContext,
  member: BatchMember,
  target: { merchantId: string; mode: Mode; token: string },
): Promise<BatchOutcome> {
  const outcome = await answered(() =>
    rejectPayoutBatch(context, target.merchantId, target.mode, target.token),
  )
  if ('view' in outcome) await auditDecision(context, member, target, 'payout_batch.rejected', outcome.view)
  return outcome
}

export async function cancelBatchFromDashboard(
  context: AppContext,
  member: BatchMember,
  target: { merchantId: string; mode: Mode; token: string },
): Promise<BatchOutcome> {
  const outcome = await answered(() =>
    cancelPayoutBatch(context, target.merchantId, target.mode, target.token),
  )
  if ('view' in outcome) await auditDecision(context, member, target, 'payout_batch.canceled', outcome.view)
  return outcome
}

function auditDecision(
  context: AppContext,
  member: BatchMember,
  target: { merchantId: string; mode: Mode; token: string },
  action: string,
  view: PayoutBatchView,
): Promise<void> {
  return audit(context, actorOf(member), {
    merchantId: target.merchantId,
    mode: target.mode,
    action,
    target: target.token,
    after: batchAudit(view),
  })
}

/** The operation page's cancel: the API's cancel of a cash-out, audited with the status it ended in. */
export async function cancelFromDashboard(
  context: AppContext,
  member: BatchMember,
  target: { merchantId: string; mode: Mode; token: string },
  reason: string | undefined,
): Promise<{ operation: Operation } | { apiError: ApiError }> {
  try {
    const operation = await cancelOperation(context, target.merchantId, target.mode, target.token, reason)
    await audit(context, actorOf(member), {
      merchantId: target.merchantId,
      mode: target.mode,
      action: 'operation.canceled',
      target: target.token,
      after: { status: operation.status, ...(reason ? { reason } : {}) },
    })
    return { operation }
  } catch (error) {
    if (error instanceof ApiError && error.status < 500) return { apiError: error }
    throw error
  }
}
