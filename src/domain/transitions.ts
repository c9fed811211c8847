import type { SideRole } from './kinds.ts'
import { type LedgerEffect, ledgerEffectsBetween, ledgerEffectsInOneWrite } from './ledger-rules.ts'
import {
  cloneOperation,
  compositeStatus,
  failureOf,
  isCashIn,
  type Operation,
  refundClaimMinor,
  type Side,
  sideAwaitingSubmission,
} from './operation.ts'
import { canTransition, type FailureReason, isFinal, type Status } from './status.ts'

/**
 * The state machine, as pure functions. Given an operation and what happened to it, each
 * returns the operation's next state and everything that must be written with it, in the same
 * transaction: the ledger postings, one event per status taken, and the scheduled work. The
 * write pipeline applies that through the store; nothing here reads or writes anything.
 */

export type { LedgerEffect }

export type WorkKind = 'submit' | 'poll' | 'expire'

export type WorkEffect =
  | { action: 'schedule'; work: WorkKind; role: SideRole; dueAtUs: number }
  /** The operation is final: nothing is left to submit, poll or expire. */
  | { action: 'finish-all' }

export interface Transition {
  /** The operation after the change. */
  operation: Operation
  /** False when nothing changed: the write pipeline then writes nothing. */
  changed: boolean
  ledger: LedgerEffect[]
  /** The operation as it was at each status it took, in order: one event each. */
  statusesTaken: Operation[]
  work: WorkEffect[]
  /** Changes of what a refund claims on the operation it refunds, applied in order. */
  refundClaims: RefundClaimEffect[]
  /**
   * The sides whose customers a refund operation is to pay back (their `customerRefund` names it):
   * opened in the same write, so the money held for them never stops being held.
   */
  customerRefunds: SideRole[]
}

/**
 * A refund claims its amount on the refunded operation (a positive change, which the store
 * refuses beyond what is left to refund) and gives it back when it ends without moving money.
 */
export interface RefundClaimEffect {
  refundedId: number
  deltaMinor: number
}

/** What opening `draft` claims on the operation it refunds, known before anything is decided of it. */
export function openingClaims(draft: Operation): RefundClaimEffect[] {
  return refundClaimsBetween(undefined, draft)
}

function refundClaimsBetween(before: Operation | undefined, after: Operation): RefundClaimEffect[] {
  if (!after.refundOf) return []
  const deltaMinor = refundClaimMinor(after) - (before ? refundClaimMinor(before) : 0)
  return deltaMinor === 0 ? [] : [{ refundedId: after.refundOf.id, deltaMinor }]
}

/**
 * What an adapter reports about one side, already in our statuses. `fromOperatorRecord`: read from
 * the operator's own record of this payment (a status it found), which proves the operator has it.
 */
export type SideOutcome =
  | { status: 'succeeded'; providerReference?: string; fromOperatorRecord?: boolean }
  | {
      status: 'failed' | 'canceled' | 'error'
      reason: FailureReason
      providerReference?: string
      fromOperatorRecord?: boolean
    }
  | {
      status: 'pending'
      providerReference?: string
      fromOperatorRecord?: boolean
      /** The customer must act on a hosted page (ours in the sandbox, the operator's in live mode). */
      needsCustomerAction?: boolean
      /** Where the customer acts: the record's redirectUrl. */
      redirectUrl?: string
      /** Ask the provider again after this long; without it a notification or expiry settles it. */
      pollAfterMs?: number
    }

/**
 * Who reports an outcome: the provider answering a submission, the provider later (poll,
 * notification), the checkout page, expiry, or the merchant canceling a side no operator has yet.
 */
export type OutcomeSource = 'submission' | 'provider' | 'checkout' | 'expiry' | 'merchant'

export interface TransitionClock {
  nowUs: number
  operationTtlMs: number
  /** How long a side may wait for its submission before the scheduled backstop submits it (after a crash). */
  submissionGraceMs: number
  /** The token of a refund operation a transition opens (a live transfer's customer refund). */
  newOperationToken?: () => string
}

export const expiredReason: FailureReason = {
  code: 'expired',
  message: 'The operation expired before it was completed.',
}

export const canceledByMerchantReason: FailureReason = {
  code: 'canceled_by_merchant',
  message: 'The merchant canceled the payout before it reached the operator.',
}

/** The merchant's reason, when it gave one, kept after the message that says what happened. */
export function withMerchantReason(message: string, reason: string | undefined): string {
  return reason ? `${message} Reason: ${reason}` : message
}

function canceledByMerchant(
  outcome: { reason: FailureReason },
  reason: string | undefined,
): { status: 'canceled'; reason: FailureReason } {
  return {
    status: 'canceled',
    reason: {
      code: canceledByMerchantReason.code,
      message: withMerchantReason(
        `The merchant canceled the payout and the operator stopped it (${outcome.reason.message})`,
        reason,
      ),
    },
  }
}

const notStartedReason: FailureReason = {
  code: 'not_started',
  message: 'The from side did not succeed, so nothing was paid out.',
}

/** Milliseconds as microseconds, rounded up so nothing is due early. */
const usOf = (milliseconds: number) => Math.ceil(milliseconds * 1000)

/**
 * A new operation, pending: every cash-out side's money is held at once (so a payout can never
 * overdraw), its pending event is written, and it is scheduled to expire and, should the
 * submission that follows the commit be lost to a crash, to be submitted.
 */
export function openOperation(draft: Operation, clock: TransitionClock): Transition {
  const operation = cloneOperation(draft)
  const ledger = ledgerEffectsBetween([], operation.sides)
  const first = operation.sides[0]
  if (!first) throw new Error('an operation has at least one side')
  return {
    operation,
    changed: true,
    ledger,
    statusesTaken: [cloneOperation(operation)],
    refundClaims: refundClaimsBetween(undefined, operation),
    customerRefunds: [],
    work: [
      {
        action: 'schedule',
        work: 'expire',
        role: 'main',
        dueAtUs: clock.nowUs + usOf(clock.operationTtlMs),
      },
      {
        action: 'schedule',
        work: 'submit',
        role: first.role,
        dueAtUs: clock.nowUs + usOf(clock.submissionGraceMs),
      },
    ],
  }
}

/**
 * The one transition of the lifecycle: a side's outcome, from whichever source. Two racing
 * outcomes of one side: the first settles it, the second finds it final and changes nothing.
 */
export function applySideOutcome(
  current: Operation,
  role: SideRole,
  outcome: SideOutcome,
  source: OutcomeSource,
  clock: TransitionClock,
): Transition {
  const operation = cloneOperation(current)
  const unchanged: Transition = {
    operation: current,
    changed: false,
    ledger: [],
    statusesTaken: [],
    work: [],
    refundClaims: [],
    customerRefunds: [],
  }
  const side = operation.sides.find((candidate) => candidate.role === role)
  if (!side) throw new Error(`operation ${operation.token} has no ${role} side`)
  if (side.status !== 'pending') return unchanged
  if (source === 'merchant') {
    // The merchant cancels only what no operator has yet: a side still queued in its batch.
    if (!side.queuedInBatch) return unchanged
    side.queuedInBatch = undefined
  }
  // Nothing else moves a side queued in its batch: no operator has been asked for it.
  else if (side.queuedInBatch) return unchanged
  else if (source === 'submission') {
    // Sides are handed to their providers in order: an answer for a side not yet due is no answer.
    if (side.submittedAtUs === undefined && sideAwaitingSubmission(operation.sides) !== side) return unchanged
    side.submittedAtUs ??= clock.nowUs
  }
  // Only expiry may end a side that was never handed to its provider (a transfer's `to` side before
  // `from` succeeded): no notification or page can move money not yet asked for.
  else if (side.submittedAtUs === undefined && source !== 'expiry') return unchanged
  const transition: Transition = {
    operation,
    changed: true,
    ledger: [],
    statusesTaken: [],
    work: [],
    refundClaims: [],
    customerRefunds: [],
  }
  if (outcome.providerReference) side.providerReference = outcome.providerReference
  if (outcome.status === 'pending') notePending(transition, side, outcome, clock)
  else settleSide(transition, side, outcome, clock)
  // The money follows from the sides alone: what they call for now, less what they called for before.
  transition.ledger = ledgerEffectsBetween(current.sides, operation.sides)
  concludeTransition(transition, current, clock)
  transition.refundClaims = refundClaimsBetween(current, operation)
  return transition
}

function notePending(
  transition: Transition,
  side: Side,
  outcome: Extract<SideOutcome, { status: 'pending' }>,
  clock: TransitionClock,
): void {
  if (outcome.needsCustomerAction) side.awaitingCustomer = true
  if (outcome.redirectUrl) transition.operation.redirectUrl = outcome.redirectUrl
  if (outcome.pollAfterMs !== undefined)
    transition.work.push({
      action: 'schedule',
      work: 'poll',
      role: side.role,
      dueAtUs: clock.nowUs + usOf(outcome.pollAfterMs),
    })
}

function settleSide(
  transition: Transition,
  side: Side,
  outcome: Exclude<SideOutcome, { status: 'pending' }>,
  clock: TransitionClock,
): void {
  // The operator stopped a payout the merchant asked it to stop (pawaPay's fail-enqueued ends it
  // `canceled`): the merchant's cancel. A `failed` outcome is the operator's own decline, whose
  // reason the record keeps even while a cancel was asked.
  const stopped = outcome.status === 'canceled'
  const settled = side.cancelRequested && stopped ? canceledByMerchant(outcome, side.cancelReason) : outcome
  side.status = settled.status
  side.awaitingCustomer = undefined
  if (settled.status !== 'succeeded') side.failure = settled.reason
  followLaterSides(transition, side, clock)
}

/**
 * Sides run in order: when one succeeds the next is due (its submission backstop scheduled);
 * when one stops, the later ones, which never started, are canceled. What that does to the
 * money (a refund reserve, a released hold) follows from the sides' states (ledger-rules.ts).
 */
function followLaterSides(transition: Transition, side: Side, clock: TransitionClock): void {
  const { sides } = transition.operation
  const later = sides.slice(sides.indexOf(side) + 1)
  if (side.status === 'succeeded') {
    const next = later.find((laterSide) => laterSide.status === 'pending')
    if (next)
      transition.work.push({
        action: 'schedule',
        work: 'submit',
        role: next.role,
        dueAtUs: clock.nowUs + usOf(clock.submissionGraceMs),
      })
    return
  }
  for (const laterSide of later) {
    if (laterSide.status !== 'pending') continue
    laterSide.status = 'canceled'
    laterSide.failure = notStartedReason
  }
  if (transition.operation.mode === 'live')
    openCustomerRefunds(transition, sides.slice(0, sides.indexOf(side)), clock)
}

/**
 * In live mode a customer whose money moved before a later side stopped is paid back by a refund
 * operation through their operator, opened in this write; the sandbox refunds at once.
 */
function openCustomerRefunds(transition: Transition, earlier: readonly Side[], clock: TransitionClock): void {
  for (const paid of earlier) {
    if (!isCashIn(paid) || paid.status !== 'succeeded' || paid.customerRefund) continue
    if (!clock.newOperationToken) throw new Error('a customer refund needs a token for its operation')
    paid.customerRefund = { token: clock.newOperationToken(), status: 'pending' }
    transition.customerRefunds.push(paid.role)
  }
}

/**
 * A customer refund an operation opened has ended: the operation's failure now says so. Nothing
 * else changes: its status stays, and the refund's own events tell the merchant.
 */
export function noteCustomerRefund(
  current: Operation,
  role: SideRole,
  refundStatus: Status,
  clock: TransitionClock,
): Transition {
  const operation = cloneOperation(current)
  const side = operation.sides.find((candidate) => candidate.role === role)
  const changed = side?.customerRefund !== undefined && side.customerRefund.status !== refundStatus
  if (changed && side?.customerRefund) {
    side.customerRefund.status = refundStatus
    operation.failure = failureOf(operation.sides, operation.status)
    operation.updatedAtUs = clock.nowUs
  }
  return {
    operation: changed ? operation : current,
    changed,
    ledger: [],
    statusesTaken: [],
    work: [],
    refundClaims: [],
    customerRefunds: [],
  }
}

/** The operation's own status follows from its sides; a change of it is an event, and a final one ends all work. */
function concludeTransition(transition: Transition, before: Operation, clock: TransitionClock): Transition {
  const { operation } = transition
  const next = compositeStatus(operation.sides)
  operation.updatedAtUs = clock.nowUs
  if (next !== before.status && canTransition(before.status, next)) {
    operation.status = next
    operation.failure = failureOf(operation.sides, next)
    operation.completedAtUs = isFinal(next) ? clock.nowUs : null
    transition.statusesTaken.push(cloneOperation(operation))
    if (isFinal(next)) transition.work = [{ action: 'finish-all' }]
  }
  return transition
}

/**
 * Applies one transition after another to the same operation, as one: what a provider that
 * answers without I/O (the sandbox) settles is written in the initiation's own transaction.
 */
export function chainTransitions(first: Transition, second: Transition): Transition {
  return {
    operation: second.operation,
    changed: first.changed || second.changed,
    ledger: ledgerEffectsInOneWrite([...first.ledger, ...second.ledger]),
    statusesTaken: [...first.statusesTaken, ...second.statusesTaken],
    refundClaims: [...first.refundClaims, ...second.refundClaims],
    customerRefunds: [...first.customerRefunds, ...second.customerRefunds],
    work: second.work.some((effect) => effect.action === 'finish-all')
      ? [{ action: 'finish-all' }]
      : [...first.work, ...second.work],
  }
}

/** Nothing changes: the write pipeline writes nothing. */
function unchangedTransition(operation: Operation): Transition {
  return {
    operation,
    changed: false,
    ledger: [],
    statusesTaken: [],
    work: [],
    refundClaims: [],
    customerRefunds: [],
  }
}

/**
 * An item of a payout batch, opened with its batch: pending, its money held and its pending event
 * written, but queued (its side carries `queuedInBatch`): nothing submits it and nothing expires it
 * until the batch worker dispatches it, so a batch awaiting approval never expires its items.
 */
export function openInBatch(draft: Operation, clock: TransitionClock): Transition {
  const opened = openOperation(draft, clock)
  for (const side of opened.operation.sides) side.queuedInBatch = true
  for (const state of opened.statusesTaken) for (const side of state.sides) side.queuedInBatch = true
  return { ...opened, work: [] }
}

/**
 * The batch worker takes a queued item for its operator: committed before any operator call, with
 * its expiry (its clock starts now) and the submission backstop, so a crash after this write
 * resubmits it, under the same operator reference, and never loses it.
 */
export function dispatchFromBatch(current: Operation, clock: TransitionClock): Transition {
  const queued = current.sides.find((side) => side.queuedInBatch)
  if (current.status !== 'pending' || !queued) return unchangedTransition(current)
  const operation = cloneOperation(current)
  for (const side of operation.sides) side.queuedInBatch = undefined
  operation.updatedAtUs = clock.nowUs
  const transition = unchangedTransition(operation)
  transition.changed = true
  transition.work = [
    { action: 'schedule', work: 'expire', role: 'main', dueAtUs: clock.nowUs + usOf(clock.operationTtlMs) },
    {
      action: 'schedule',
      work: 'submit',
      role: queued.role,
      dueAtUs: clock.nowUs + usOf(clock.submissionGraceMs),
    },
  ]
  return transition
}

/**
 * Notes (or withdraws) the merchant's request that the operator stop a payout it holds: while it
 * stands, a failure the operator reports for that side is the merchant's cancel.
 */
export function noteCancelRequest(
  current: Operation,
  role: SideRole,
  requested: boolean,
  clock: TransitionClock,
  reason?: string,
): Transition {
  const side = current.sides.find((candidate) => candidate.role === role)
  const same =
    (side?.cancelRequested ?? false) === requested && side?.cancelReason === (requested ? reason : undefined)
  if (current.status !== 'pending' || !side || same) return unchangedTransition(current)
  const operation = cloneOperation(current)
  const noted = operation.sides.find((candidate) => candidate.role === role)!
  noted.cancelRequested = requested ? true : undefined
  noted.cancelReason = requested ? reason : undefined
  operation.updatedAtUs = clock.nowUs
  return { ...unchangedTransition(operation), changed: true }
}
