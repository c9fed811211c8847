import type { Currency } from '../../domain/money.ts'
import { exceedsReviewAmount } from '../../domain/review-amount.ts'
import { ApiError } from '../../errors.ts'
import type {
  BreakFilter,
  BreakHistoryEntry,
  BreakState,
  StoredBreak,
} from '../../store/repositories/reconciliation.ts'
import type { Repositories } from '../../store/store.ts'
import type { AppContext } from '../context.ts'

/**
 * A finance member's decisions on breaks (CONTRACT.md, Reconciliation): resolve or ignore, with a
 * reason, each change kept in the break's history with who made it. A break worth more than
 * RECONCILIATION_REVIEW_AMOUNT (XOF; another currency at domain/review-amount.ts's rates) waits, its decision stored, until a second member approves it (the
 * console asks that member for a fresh TOTP code before it calls `approveBreak`).
 */

export type Decision = 'resolved' | 'ignored'

export interface PendingApproval {
  decision: Decision
  reason: string
  requestedBy: string
  requestedAtUs: number
}

export function listBreaks(context: AppContext, filter: BreakFilter): Promise<StoredBreak[]> {
  return context.store.reconciliation.listBreaks(filter)
}

/** Whether a break's amount needs a second approver: it is worth more than the review amount in XOF. */
export function needsSecondApprover(
  context: AppContext,
  found: Pick<StoredBreak, 'amountMinor' | 'currency'>,
): boolean {
  return exceedsReviewAmount(
    found.amountMinor,
    found.currency as Currency,
    context.config.reconciliationReviewAmount,
  )
}

async function openBreak(context: AppContext, breakId: string): Promise<StoredBreak> {
  const found = await context.store.reconciliation.findBreak(breakId)
  if (!found) throw new ApiError('not_found', `No break has id ${breakId}.`)
  if (found.state !== 'open') throw new ApiError('bad_request', `Break ${breakId} is ${found.state} already.`)
  return found
}

/**
 * Resolves or ignores an open break: at once, or, above the review amount, as a decision that
 * waits for a second member (`pendingApproval` in the answer).
 */
export async function decideBreak(
  context: AppContext,
  breakId: string,
  decision: Decision,
  reason: string,
  actor: string,
  alsoWithin?: AlsoWithin<{ state: BreakState; pendingApproval: boolean }>,
): Promise<{ state: BreakState; pendingApproval: boolean }> {
  const trimmed = reason.trim()
  if (trimmed === '') throw new ApiError('bad_request', 'A reason is required to resolve or ignore a break.')
  const found = await openBreak(context, breakId)
  const nowUs = context.clock.nowUs()
  if (needsSecondApprover(context, found)) {
    const pending: PendingApproval = { decision, reason: trimmed, requestedBy: actor, requestedAtUs: nowUs }
    return changeBreak(
      context,
      breakId,
      { pendingApproval: JSON.stringify(pending) },
      { atUs: nowUs, what: 'approval_asked', actor, detail: `${decision}: ${trimmed}` },
      { state: 'open', pendingApproval: true },
      alsoWithin,
    )
  }
  return changeBreak(
    context,
    breakId,
    { state: decision, reason: trimmed, closedAtUs: nowUs },
    { atUs: nowUs, what: decision, actor, detail: trimmed },
    { state: decision, pendingApproval: false },
    alsoWithin,
  )
}

/** A second member approves the decision waiting on a break: never the member who asked it. */
export async function approveBreak(
  context: AppContext,
  breakId: string,
  approver: string,
  alsoWithin?: AlsoWithin<BreakState>,
): Promise<BreakState> {
  const found = await openBreak(context, breakId)
  if (!found.pendingApproval) throw new ApiError('bad_request', `Break ${breakId} waits for no approval.`)
  const pending = JSON.parse(found.pendingApproval) as PendingApproval
  if (pending.requestedBy === approver)
    throw new ApiError('validation_failed', 'A second finance member approves: not the one who asked.')
  const nowUs = context.clock.nowUs()
  return changeBreak(
    context,
    breakId,
    { state: pending.decision, reason: pending.reason, closedAtUs: nowUs, pendingApproval: null },
    {
      atUs: nowUs,
      what: pending.decision,
      actor: approver,
      detail: `${pending.reason} (asked by ${pending.requestedBy}, approved by ${approver})`,
    },
    pending.decision,
    alsoWithin,
  )
}

/** What a caller writes in the same transaction as a break's change (its audit row), given the outcome. */
export type AlsoWithin<T> = (tx: Repositories, outcome: T) => Promise<void>

/**
 * A break's change, its history row and what the caller writes with it, in one transaction; a
 * break closed (or given a decision to approve) by someone else since it was read changes nothing.
 */
async function changeBreak<T>(
  context: AppContext,
  breakId: string,
  change: Parameters<Repositories['reconciliation']['updateBreak']>[1],
  history: BreakHistoryEntry,
  outcome: T,
  alsoWithin: AlsoWithin<T> | undefined,
): Promise<T> {
  return context.store.transaction(async (tx) => {
    if (!(await tx.reconciliation.updateBreak(breakId, change, history)))
      throw new ApiError('bad_request', `Break ${breakId} was decided by someone else meanwhile.`)
    await alsoWithin?.(tx, outcome)
    return outcome
  })
}
