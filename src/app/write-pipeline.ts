import { newOperationToken } from '../domain/identifiers.ts'
import { payoutEntryType, type SideRole } from '../domain/kinds.ts'
import { entriesAddedBy } from '../domain/ledger-rules.ts'
import { utcDayStartUs } from '../domain/merchant-controls.ts'
import { customerRefundOf, type Operation, sideAwaitingSubmission } from '../domain/operation.ts'
import { isFinal } from '../domain/status.ts'
import {
  applySideOutcome,
  chainTransitions,
  dispatchFromBatch,
  noteCancelRequest,
  noteCustomerRefund,
  type OutcomeSource,
  openInBatch,
  openingClaims,
  openOperation,
  type RefundClaimEffect,
  type SideOutcome,
  type Transition,
  type TransitionClock,
} from '../domain/transitions.ts'
import { ApiError } from '../errors.ts'
import type { LedgerHold } from '../store/repositories/ledger.ts'
import type { EventAppend, EventView } from '../store/repositories/outbox.ts'
import type { NumbersWanted, ReservedNumbers } from '../store/repositories/sequences.ts'
import type { Repositories } from '../store/store.ts'
import type { AppContext } from './context.ts'
import { customerRefundDraft } from './customer-refunds.ts'
import type { Principal } from './principal.ts'
import { providerRequest } from './provider-requests.ts'
import { statusEvent } from './records.ts'
import {
  DailyPayoutLimitExceeded,
  DuplicateReference,
  InsufficientBalance,
  RefundRefused,
} from './write-refusals.ts'

/**
 * The one write pipeline (STYLE.md; Formance's log_process): every state change runs as
 *
 *   1. one transaction;
 *   2. idempotency, once: the merchantReference's unique key, and the request's hash;
 *   3. the domain's pure decision: the next state, its postings, its events, its scheduled work;
 *   4. that decision applied through the repositories;
 *   5. commit.
 *
 * Operator calls never run inside it: a provider that needs I/O is called after the commit and
 * its answer comes back as another command. Each command's work is a function of the transaction
 * alone, so several commands could later share one commit.
 */
/**
 * An opening; `dailyPayoutLimitMinor`: the merchant's daily payout limit in the draft's currency,
 * checked against the ledger in the opening's own transaction once its hold is made.
 */
export type OpenCommand = { type: 'open'; draft: Operation; dailyPayoutLimitMinor?: number }
export type SideOutcomeCommand = {
  type: 'side-outcome'
  operationId: number
  role: SideRole
  outcome: SideOutcome
  source: OutcomeSource
}

/** Sends an event again: its delivery state changes, nothing of its operation does. */
export type RedeliverCommand = { type: 'redeliver'; principal: Principal; eventId: string }

export type WriteCommand = OpenCommand | SideOutcomeCommand | RedeliverCommand

/** A side's outcome written: the operation as it now stands, and the operations it opened (a live transfer's customer refund). */
export interface Settled {
  operation: Operation
  opened: Operation[]
}

export function executeWrite(context: AppContext, command: OpenCommand): Promise<Operation>
export function executeWrite(context: AppContext, command: SideOutcomeCommand): Promise<Settled>
export function executeWrite(context: AppContext, command: RedeliverCommand): Promise<EventView>
export async function executeWrite(
  context: AppContext,
  command: WriteCommand,
): Promise<Operation | Settled | EventView> {
  // The statuses the transaction took, counted in the metrics once it has committed.
  const taken: Operation[] = []
  const work = (tx: Repositories): Promise<Operation | Settled | EventView> => {
    // A write made again (its group failed) starts over.
    taken.length = 0
    switch (command.type) {
      case 'open':
        return open(context, tx, command, taken)
      case 'side-outcome':
        return settle(context, tx, command, taken)
      case 'redeliver':
        return redeliver(context, tx, command)
    }
  }
  const group = command.type === 'open' ? openingGroup(command.draft) : undefined
  const written = await (group
    ? context.merchantGroupCommit.write(group, work)
    : context.store.transaction(work))
  context.metrics.countStatuses(taken)
  return written
}

/**
 * The group commit an opening joins, with the other openings of its merchant and mode (they
 * take the same counters). A refund's opening runs alone: it locks the refunded operation's row,
 * which a group already holding the counters must not wait for (a settling refund holds that row
 * and waits for the counters).
 */
function openingGroup(draft: Operation): string | undefined {
  return draft.refundOf ? undefined : `${draft.merchantId}/${draft.mode}`
}

function transitionClock(context: AppContext): TransitionClock {
  return {
    nowUs: context.clock.nowUs(),
    operationTtlMs: context.config.operationTtlMs,
    submissionGraceMs,
    newOperationToken,
  }
}

/** How long a side may wait for its submission before the scheduled backstop submits it (after a crash). */
export const submissionGraceMs = 30_000

async function open(
  context: AppContext,
  tx: Repositories,
  { draft, dailyPayoutLimitMinor }: OpenCommand,
  taken: Operation[],
): Promise<Operation> {
  // A refund's claim is the opening's own, known from its draft: taken before the counters, in
  // the order a settling write takes them (the refunded row, then the counters).
  const claims = openingClaims(draft)
  await claimRefundsOnOpening(tx, draft, claims)
  const expected = context.openingNumbers.expected(draft)
  const position = await tx.sequences.takePosition(draft.merchantId, draft.mode, draft.kind, expected)
  // Read after the counters' lock, so list order and date order agree.
  const clock = transitionClock(context)
  const numbered = {
    ...draft,
    position: position.position,
    initiatedAtUs: clock.nowUs,
    updatedAtUs: clock.nowUs,
  }
  const transition = decideSynchronously(context, openOperation(numbered, clock), clock)
  // What an answer given at once changed of the claim (a refund failed at once gives it back).
  await claimRefunds(tx, transition.refundClaims.slice(claims.length))
  const wanted = numbersWanted(transition)
  context.openingNumbers.remember(draft, wanted)
  const numbers = await position.reserve(wanted)
  const id = await tx.operations.insertIfNew(transition.operation)
  if (id === undefined) {
    const existing = await findBySameReference(tx, draft)
    if (!existing)
      throw new Error(`merchantReference ${draft.merchantReference} conflicted, yet is not found`)
    throw new DuplicateReference(existing)
  }
  for (const state of [transition.operation, ...transition.statusesTaken]) state.id = id
  // A new operation has no scheduled work yet: there is nothing for a final state to close.
  const work = transition.work.filter((effect) => effect.action !== 'finish-all')
  await writeEffects(tx, { ...transition, work }, numbers, clock.nowUs, taken)
  if (dailyPayoutLimitMinor !== undefined)
    await refuseBeyondDailyPayoutLimit(
      tx,
      transition.operation,
      dailyPayoutLimitMinor,
      paidOutBy([transition]),
    )
  return transition.operation
}

/** What the transitions' payout entries take from the balance: held, or posted at once. */
function paidOutBy(transitions: readonly Transition[]): number {
  let totalMinor = 0
  for (const { ledger } of transitions)
    for (const effect of ledger) {
      if (effect.action !== 'hold' && effect.action !== 'hold-resolved') continue
      if (effect.entryType !== payoutEntryType) continue
      if (effect.action === 'hold-resolved' && effect.resolution === 'canceled') continue
      totalMinor += effect.amountMinor
    }
  return totalMinor
}

/**
 * The day's payouts (UTC) of the operation's merchant, mode and currency, this write's included,
 * counted from the ledger after this write's hold: the hold locks the balance row, so a payout
 * racing this one on any instance is counted before or after it, never beside it.
 */
async function refuseBeyondDailyPayoutLimit(
  tx: Repositories,
  operation: Operation,
  limitMinor: number,
  neededMinor: number,
): Promise<void> {
  if (neededMinor === 0) return
  const { merchantId, mode, currency, initiatedAtUs } = operation
  const paidOutMinor = await tx.ledger.paidOutSince(merchantId, mode, currency, utcDayStartUs(initiatedAtUs))
  if (paidOutMinor <= limitMinor) return
  throw new DailyPayoutLimitExceeded(currency, limitMinor, paidOutMinor - neededMinor, neededMinor)
}

/**
 * A provider that answers without I/O (the sandbox) is asked at once, and its answer joins the
 * initiation's own transaction: one commit instead of two, and the response carries the outcome.
 */
function decideSynchronously(context: AppContext, opened: Transition, clock: TransitionClock): Transition {
  let transition = opened
  for (;;) {
    const side = sideAwaitingSubmission(transition.operation.sides)
    if (!side) return transition
    const adapter = context.providers.adapterFor(transition.operation.mode, side.channel, side.country)
    if (!adapter.answerAtOnce) return transition
    const outcome = adapter.answerAtOnce(providerRequest(transition.operation, side), clock.nowUs)
    transition = chainTransitions(
      transition,
      applySideOutcome(transition.operation, side.role, outcome, 'submission', clock),
    )
  }
}

async function settle(
  context: AppContext,
  tx: Repositories,
  command: SideOutcomeCommand,
  taken: Operation[],
  lock: (operationId: number) => Promise<Operation | undefined> = (id) => tx.operations.lockById(id),
): Promise<Settled> {
  const before = await lock(command.operationId)
  if (!before) throw new Error(`operation ${command.operationId} does not exist`)
  const clock = transitionClock(context)
  const transition = applySideOutcome(before, command.role, command.outcome, command.source, clock)
  return writeTransition(tx, before, transition, clock, taken)
}

/** Writes a decided transition of an existing, locked operation, and opens what it opened. */
async function writeTransition(
  tx: Repositories,
  before: Operation,
  transition: Transition,
  clock: TransitionClock,
  taken: Operation[],
): Promise<Settled> {
  if (!transition.changed) return { operation: before, opened: [] }
  // The claim first: the refunded row is locked before this write's held statements (the
  // operation's new state, its status counts) could be sent, as an opening takes it before them.
  await claimRefunds(tx, transition.refundClaims)
  // Then the merchant's counters, before its status counts and its balance, as an opening takes
  // them: every write that changes those holds the counters first, so none waits for a status
  // count another holds while holding the counters that one waits for (a deadlock on PostgreSQL,
  // between a settlement and a write that settles several of the merchant's operations).
  const numbers = await tx.sequences.reserve(before.merchantId, before.mode, numbersWanted(transition))
  await tx.operations.save(transition.operation, before.status)
  await writeEffects(tx, transition, numbers, clock.nowUs, taken)
  await noteRefundOnRefunded(tx, transition.operation, clock)
  const opened: Operation[] = []
  // After the operation's own postings: the reserve they release is what the refund holds.
  for (const role of transition.customerRefunds)
    opened.push(await openWithin(tx, customerRefundDraft(transition.operation, role), clock, taken))
  return { operation: transition.operation, opened }
}

/** An operation's decided change, beside the operation as it was read under its lock. */
interface Change {
  before: Operation
  transition: Transition
}

/**
 * Several operations' changes (a payout batch's items taken together), written as `writeTransition`
 * writes each, in one order: the counters, then the states and status counts, the ledger, the
 * events and the scheduled work, each in a few statements for all of them. A change that claims a
 * refund, opens a customer refund, refunds something, or moves money otherwise than by resolving
 * a hold is written on its own, after the others.
 */
async function writeTransitionsTogether(
  tx: Repositories,
  changes: readonly Change[],
  clock: TransitionClock,
  taken: Operation[],
): Promise<void> {
  const owner = changes[0]?.before
  const together = changes.filter(
    ({ before, transition }) =>
      before.merchantId === owner?.merchantId &&
      before.mode === owner.mode &&
      writableTogether(before, transition),
  )
  const [first] = together
  if (first) {
    const wanted = together.map(({ transition }) => numbersWanted(transition))
    const numbers = await tx.sequences.reserve(first.before.merchantId, first.before.mode, {
      ledgerEntries: 0,
      events: wanted.reduce((total, one) => total + one.events, 0),
    })
    await tx.operations.saveAll(
      together.map(({ before, transition }) => ({
        operation: transition.operation,
        previousStatus: before.status,
      })),
    )
    await tx.ledger.resolveAll(
      together.flatMap(({ transition }) =>
        transition.ledger.flatMap((effect) =>
          effect.action === 'resolve' ? [{ operation: transition.operation, effect }] : [],
        ),
      ),
    )
    let position = numbers.events
    const appends: EventAppend[] = together.map(({ transition }) => {
      const append = {
        subject: transition.operation,
        events: transition.statusesTaken.map(statusEvent),
        firstPosition: position,
      }
      position += transition.statusesTaken.length
      return append
    })
    await tx.outbox.appendAll(appends)
    await tx.scheduledWork.applyAll(
      together.map(({ transition }) => ({ operationId: transition.operation.id, effects: transition.work })),
      clock.nowUs,
    )
    for (const { transition } of together) taken.push(...transition.statusesTaken)
  }
  for (const change of changes)
    if (!together.includes(change)) await writeTransition(tx, change.before, change.transition, clock, taken)
}

/** What `writeTransitionsTogether` may write with others (of the same merchant and mode): a change that only resolves holds. */
function writableTogether(before: Operation, transition: Transition): boolean {
  const finishAt = transition.work.findIndex((effect) => effect.action === 'finish-all')
  return (
    transition.changed &&
    transition.refundClaims.length === 0 &&
    transition.customerRefunds.length === 0 &&
    !before.refundOf &&
    transition.ledger.every((effect) => effect.action === 'resolve') &&
    (finishAt === -1 || finishAt === transition.work.length - 1)
  )
}

/**
 * An operation opened inside another write's transaction takes its list position there (locking its
 * merchant's counters) and that write's time.
 */
async function numberWithin(tx: Repositories, draft: Operation, clock: TransitionClock) {
  const position = await tx.sequences.takePosition(draft.merchantId, draft.mode, draft.kind)
  const numbered = {
    ...draft,
    position: position.position,
    initiatedAtUs: clock.nowUs,
    updatedAtUs: clock.nowUs,
  }
  return { position, numbered }
}

/**
 * Opens an operation inside another write's transaction (a customer refund the write decided):
 * numbered, inserted and given its postings, event and scheduled work there. Its merchantReference
 * is the operation's own token, which no merchant's reference takes; should one, the token with a
 * suffix is used instead.
 */
async function openWithin(
  tx: Repositories,
  draft: Operation,
  clock: TransitionClock,
  taken: Operation[],
): Promise<Operation> {
  const { position, numbered } = await numberWithin(tx, draft, clock)
  let transition = openOperation(numbered, clock)
  const numbers = await position.reserve(numbersWanted(transition))
  let id = await tx.operations.insertIfNew(transition.operation)
  if (id === undefined) {
    transition = openOperation({ ...numbered, merchantReference: `${draft.token}-refund` }, clock)
    id = await tx.operations.insertIfNew(transition.operation)
  }
  if (id === undefined) throw new Error(`no merchantReference is free for ${draft.token}`)
  for (const state of [transition.operation, ...transition.statusesTaken]) state.id = id
  const work = transition.work.filter((effect) => effect.action !== 'finish-all')
  await writeEffects(tx, { ...transition, work }, numbers, clock.nowUs, taken)
  return transition.operation
}

/**
 * A customer refund that ended is noted on the operation that opened it, in the same write, so
 * that operation's failure never says the customer was refunded before the operator paid them.
 */
async function noteRefundOnRefunded(
  tx: Repositories,
  refund: Operation,
  clock: TransitionClock,
): Promise<void> {
  const refunded = customerRefundOf(refund)
  if (!refund.refundOf || !refunded || !isFinal(refund.status)) return
  // Locked after the counters: the operation is final, so no other write takes its row first.
  const operation = await tx.operations.lockById(refund.refundOf.id)
  if (!operation) return
  const noted = noteCustomerRefund(operation, refunded.role, refund.status, clock)
  if (noted.changed) await tx.operations.save(noted.operation, operation.status)
}

function numbersWanted(transition: Transition): NumbersWanted {
  return {
    ledgerEntries: entriesAddedBy(transition.ledger),
    events: transition.statusesTaken.length,
  }
}

/** Applies each claim in order; a claim refused fails the whole write. */
async function claimRefunds(tx: Repositories, claims: readonly RefundClaimEffect[]): Promise<void> {
  for (const claim of claims) {
    if (!(await tx.operations.adjustRefunded(claim.refundedId, claim.deltaMinor)))
      throw new RefundRefused(claim.refundedId, claim.deltaMinor)
  }
}

/**
 * A refund's claim is taken before its counters, in the order a settling write takes them (the
 * operation's row, then the counters), so the two cannot deadlock. Taken before the
 * merchantReference is checked, a claim refused may be the same request again, after its first
 * try consumed what was left to refund: the reference decides.
 */
async function claimRefundsOnOpening(
  tx: Repositories,
  draft: Operation,
  claims: readonly RefundClaimEffect[],
): Promise<void> {
  try {
    await claimRefunds(tx, claims)
  } catch (error) {
    if (!(error instanceof RefundRefused)) throw error
    const existing = await findBySameReference(tx, draft)
    throw existing ? new DuplicateReference(existing) : error
  }
}

/** The operation already written under the draft's merchantReference, if any. */
function findBySameReference(tx: Repositories, draft: Operation): Promise<Operation | undefined> {
  return tx.operations.findByReference(draft.merchantId, draft.mode, draft.kind, draft.merchantReference)
}

/** Writes what the transition adds, numbered from the reserved ranges. */
async function writeEffects(
  tx: Repositories,
  transition: Transition,
  first: ReservedNumbers,
  nowUs: number,
  taken: Operation[],
): Promise<void> {
  const { operation } = transition
  const events = transition.statusesTaken.map(statusEvent)
  const refused = await tx.ledger.apply(operation, transition.ledger, first.ledgerEntries)
  if (refused) throw new InsufficientBalance(refused)
  await tx.outbox.append(operation, events, first.events)
  await tx.scheduledWork.apply(operation.id, transition.work, nowUs)
  taken.push(...transition.statusesTaken)
}

async function redeliver(
  context: AppContext,
  tx: Repositories,
  command: RedeliverCommand,
): Promise<EventView> {
  const { principal, eventId } = command
  const event = await tx.outbox.find(principal.merchantId, principal.mode, eventId)
  if (!event) throw new ApiError('not_found', `No event has id ${eventId}.`)
  if (!event.callbackUrl) {
    throw new ApiError('validation_failed', 'This event has no callbackUrl to deliver to.', [
      {
        field: 'callbackUrl',
        code: 'no_callback',
        message: 'The operation was initiated without a callbackUrl.',
      },
    ])
  }
  await tx.outbox.requeue(eventId, context.clock.nowUs())
  return (await tx.outbox.find(principal.merchantId, principal.mode, eventId)) ?? event
}

/**
 * Several writes in one transaction, all or nothing: a payout batch's acceptance (every item
 * opened), its dispatch (items taken for their operators), its reject or cancel (every queued
 * item canceled). Each step is the pipeline's own: the domain decides, the repositories apply.
 */
export interface WriteSteps {
  readonly tx: Repositories
  readonly nowUs: number
  /**
   * Locks the rows of the operations this write will change, in id order, before it takes its
   * merchant's counters (which `dispatch`, `settle` and `noteCancelRequest` take, and keep until
   * the commit). Every write locks in that order: operation rows, then counters, then the balance.
   * One that locked a second operation's row after the first's counters could wait for a cancel of
   * that operation, which holds the row and waits for the counters: a deadlock on PostgreSQL.
   */
  lockOperations(operationIds: readonly number[]): Promise<void>
  /**
   * Opens a payout batch's items, queued (`openInBatch`), each as the pipeline opens one, but
   * written together: one statement for their counters, one check of the balance for their total,
   * and a few multi-row inserts, so the transaction holds the merchant's counters (and SQLite's
   * writer) for a fraction of what one opening after another took. A refusal is thrown as a
   * `WriteRefusal`: the first item whose reference is taken, or the total the balance cannot hold.
   */
  openQueuedAll(drafts: readonly Operation[], dailyPayoutLimitMinor?: number): Promise<Operation[]>
  /**
   * Takes a queued item for its operator (`dispatchFromBatch`); a provider that answers without
   * I/O (the sandbox) is asked here and its answer written in the same write. Undefined when the
   * item is no longer queued (canceled meanwhile).
   */
  dispatch(operationId: number): Promise<Operation | undefined>
  /**
   * Takes many queued items for their operators, as `dispatch` takes each, written together: their
   * rows locked first, then one statement for the counters, their new states, status counts,
   * ledger resolutions, events and scheduled work in a few statements each. The items no longer
   * queued are passed over; the others are returned, in the order given.
   */
  dispatchAll(operationIds: readonly number[]): Promise<Operation[]>
  settle(command: Omit<SideOutcomeCommand, 'type'>): Promise<Settled>
  noteCancelRequest(
    operationId: number,
    role: SideRole,
    requested: boolean,
    reason?: string,
  ): Promise<Operation | undefined>
}

export async function executeWrites<T>(
  context: AppContext,
  run: (steps: WriteSteps) => Promise<T>,
): Promise<T> {
  const taken: Operation[] = []
  const written = await context.store.transaction((tx) => {
    taken.length = 0
    const clock = transitionClock(context)
    // Rows locked ahead by `lockOperations`, each read once by the step that changes it.
    const lockedAhead = new Map<number, Operation>()
    const lock = async (operationId: number) => {
      const ahead = lockedAhead.get(operationId)
      lockedAhead.delete(operationId)
      return ahead ?? (await tx.operations.lockById(operationId))
    }
    const locked = async (operationId: number) => {
      const before = await lock(operationId)
      if (!before) throw new Error(`operation ${operationId} does not exist`)
      return before
    }
    return run({
      tx,
      nowUs: clock.nowUs,
      lockOperations: async (operationIds) => {
        for (const operation of await tx.operations.lockByIds(operationIds))
          lockedAhead.set(operation.id, operation)
      },
      openQueuedAll: async (drafts, dailyPayoutLimitMinor) => {
        const opened = await openQueuedAllWithin(tx, drafts, clock, taken)
        if (dailyPayoutLimitMinor !== undefined && opened[0]) {
          const holds = opened.reduce((total, item) => total + item.sides[0]!.cashAmountMinor, 0)
          await refuseBeyondDailyPayoutLimit(tx, opened[0], dailyPayoutLimitMinor, holds)
        }
        return opened
      },
      dispatch: async (operationId) => {
        const before = await locked(operationId)
        const dispatched = dispatchFromBatch(before, clock)
        if (!dispatched.changed) return undefined
        const transition = decideSynchronously(context, dispatched, clock)
        return (await writeTransition(tx, before, transition, clock, taken)).operation
      },
      dispatchAll: async (operationIds) => {
        const locked = await tx.operations.lockByIds(operationIds)
        const byId = new Map(locked.map((operation) => [operation.id, operation]))
        const changes: Change[] = []
        for (const id of operationIds) {
          const before = byId.get(id)
          const dispatched = before && dispatchFromBatch(before, clock)
          if (before && dispatched?.changed)
            changes.push({ before, transition: decideSynchronously(context, dispatched, clock) })
        }
        await writeTransitionsTogether(tx, changes, clock, taken)
        return changes.map(({ transition }) => transition.operation)
      },
      settle: (command) => settle(context, tx, { type: 'side-outcome', ...command }, taken, lock),
      noteCancelRequest: async (operationId, role, requested, reason) => {
        const before = await locked(operationId)
        const noted = noteCancelRequest(before, role, requested, clock, reason)
        if (!noted.changed) return undefined
        return (await writeTransition(tx, before, noted, clock, taken)).operation
      },
    })
  })
  context.metrics.countStatuses(taken)
  return written
}

async function openQueuedAllWithin(
  tx: Repositories,
  drafts: readonly Operation[],
  clock: TransitionClock,
  taken: Operation[],
): Promise<Operation[]> {
  const [first] = drafts
  if (!first) return []
  const position = await tx.sequences.takePositions(first.merchantId, first.mode, first.kind, drafts.length)
  // Every item is opened queued alike: one hold and one event each (`openInBatch`).
  let next = await position.reserve({ ledgerEntries: drafts.length, events: drafts.length })
  const opened: Operation[] = []
  for (let from = 0; from < drafts.length; from += openedPerPart) {
    // Between parts the event loop runs: other requests are read and answered (SQLite's writer
    // stays this transaction's; reads go on their own connection).
    if (from > 0) await new Promise((resolve) => setImmediate(resolve))
    const transitions = drafts.slice(from, from + openedPerPart).map((draft, index) =>
      openInBatch(
        {
          ...draft,
          position: position.position + from + index,
          initiatedAtUs: clock.nowUs,
          updatedAtUs: clock.nowUs,
        },
        clock,
      ),
    )
    for (const transition of transitions) {
      const wanted = numbersWanted(transition)
      if (wanted.ledgerEntries !== 1 || wanted.events !== 1)
        throw new Error('an item opened queued makes one hold and one event, numbered beforehand')
    }
    await insertOpened(tx, transitions)
    next = await writeAllEffects(tx, transitions, next, clock.nowUs)
    for (const transition of transitions) taken.push(...transition.statusesTaken)
    opened.push(...transitions.map((transition) => transition.operation))
  }
  return opened
}

/** Items opened in one part of a batch's acceptance: a few milliseconds of the event loop each. */
const openedPerPart = 200

/** The openings' rows, each given its id; the first whose reference is taken refuses them all. */
async function insertOpened(tx: Repositories, transitions: readonly Transition[]): Promise<void> {
  const ids = await tx.operations.insertAllIfNew(transitions.map((transition) => transition.operation))
  const refused = ids.indexOf(undefined)
  if (refused !== -1) {
    const draft = transitions[refused]!.operation
    const existing = await findBySameReference(tx, draft)
    if (!existing)
      throw new Error(`merchantReference ${draft.merchantReference} conflicted, yet is not found`)
    throw new DuplicateReference(existing)
  }
  for (const [index, transition] of transitions.entries())
    for (const state of [transition.operation, ...transition.statusesTaken]) state.id = ids[index]!
}

/**
 * What `writeEffects` writes for each opening, written together: their holds on the one balance
 * at once, their events in a few inserts. Numbered from `first` on, as one opening after another
 * would be; returns the numbers that follow.
 */
async function writeAllEffects(
  tx: Repositories,
  transitions: readonly Transition[],
  first: ReservedNumbers,
  nowUs: number,
): Promise<ReservedNumbers> {
  const holds: LedgerHold[] = []
  const appends: EventAppend[] = []
  let sequence = first.ledgerEntries
  let position = first.events
  for (const { operation, ledger, statusesTaken } of transitions) {
    for (const effect of ledger) {
      if (effect.action !== 'hold') throw new Error(`an item opened queued only holds, not ${effect.action}`)
      holds.push({ operation, effect, sequence: sequence++ })
    }
    appends.push({ subject: operation, events: statusesTaken.map(statusEvent), firstPosition: position })
    position += statusesTaken.length
  }
  const refused = await tx.ledger.holdAll(holds)
  if (refused) throw new InsufficientBalance(refused)
  await tx.outbox.appendAll(appends)
  for (const { operation, work } of transitions)
    if (work.length > 0) await tx.scheduledWork.apply(operation.id, work, nowUs)
  return { ...first, ledgerEntries: sequence, events: position }
}
