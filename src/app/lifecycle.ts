import type { SideRole } from '../domain/kinds.ts'
import { type Operation, type Side, sideAwaitingSubmission } from '../domain/operation.ts'
import { expiredReason, type OutcomeSource, type SideOutcome } from '../domain/transitions.ts'
import type { ScheduledWork } from '../store/repositories/scheduled-work.ts'
import type { AppContext } from './context.ts'
import { sideKey } from './mechanisms/side-checks.ts'
import { msUntilNextTurn, nextTurnAtUs, takeStatusCheck } from './mechanisms/status-check-turns.ts'
import { providerRequest } from './provider-requests.ts'
import { executeWrite, type Settled } from './write-pipeline.ts'

/**
 * Every answer about a side (a poll, an operator's notification, the checkout page, expiry)
 * enters here: the write pipeline applies it, then whatever the new state allows next is started
 * (a transfer's `to` side once its `from` side succeeded, a customer refund it opened).
 */
export async function settleSide(
  context: AppContext,
  operationId: number,
  role: SideRole,
  outcome: SideOutcome,
  source: Exclude<OutcomeSource, 'submission'>,
): Promise<Operation> {
  const settled = await executeWrite(context, { type: 'side-outcome', operationId, role, outcome, source })
  return continueAfter(context, settled)
}

/** Starts what a write allows next: the refunds it opened, then the operation's next side. */
async function continueAfter(context: AppContext, settled: Settled): Promise<Operation> {
  await submitOpened(context, settled.opened)
  return submitSides(context, settled.operation)
}

async function submitOpened(context: AppContext, opened: readonly Operation[]): Promise<void> {
  for (const operation of opened) {
    try {
      await submitSides(context, operation)
    } catch (error) {
      // Its scheduled submission, written with it, hands it to the operator later.
      context.logger.error({ err: error, token: operation.token }, 'submitting an opened operation failed')
    }
  }
}

/**
 * Hands each side to its provider in turn, outside any transaction: the next only after the one
 * before succeeded. A notification about the side that arrived while its provider was being asked
 * is acted on as soon as the answer is written: its status is checked at once.
 */
export async function submitSides(context: AppContext, operation: Operation): Promise<Operation> {
  let current = operation
  for (;;) {
    const side = sideAwaitingSubmission(current.sides)
    if (!side) return current
    const adapter = context.providers.adapterFor(current.mode, side.channel, side.country)
    const request = providerRequest(current, side)
    const { result: outcome, heard } = await context.sideChecks.submit(sideKey(current.id, side.role), () =>
      adapter.initiate(request, context.clock.nowUs()),
    )
    const settled = await executeWrite(context, {
      type: 'side-outcome',
      operationId: current.id,
      role: side.role,
      outcome,
      source: 'submission',
    })
    current = settled.operation
    const submitted = current.sides.find((candidate) => candidate.role === side.role)
    await submitOpened(context, settled.opened)
    if (heard && submitted?.status === 'pending' && submitted.submittedAtUs !== undefined) {
      const role = submitted.role
      await context.sideChecks.check(sideKey(current.id, role), () => checkSideNow(context, current.id, role))
      current = (await context.store.operations.findById(current.id)) ?? current
    }
  }
}

/**
 * Runs one item of scheduled work: a submission a crash interrupted, a poll of a pending side, or
 * expiry. Does nothing once the operation has ended. A poll of a side another check asked within
 * the second is not run: it answers when it is due again, after that check's second. Claiming,
 * completing and retrying the items is `ScheduledWorkPool`'s (mechanisms/scheduled-work-pool.ts).
 */
export async function runWork(
  context: AppContext,
  work: ScheduledWork,
): Promise<{ dueAgainAtUs: number } | undefined> {
  const operation = await context.store.operations.findById(work.operationId)
  if (operation?.status !== 'pending') return
  if (work.kind === 'expire') {
    for (const side of operation.sides) {
      if (side.status === 'pending')
        await settleSide(
          context,
          operation.id,
          side.role,
          { status: 'canceled', reason: expiredReason },
          'expiry',
        )
    }
    return
  }
  if (work.kind === 'submit') {
    // The backstop of a submission a crash interrupted; a no-op when it already happened.
    await submitSides(context, operation)
    return
  }
  const side = operation.sides.find((candidate) => candidate.role === work.role)
  // Not yet marked submitted: its submission is in flight, or a crash cut it short and the
  // scheduled backstop will submit it; either ends with the side polled.
  if (side?.status !== 'pending' || side.awaitingCustomer || side.submittedAtUs === undefined) return
  const turn = await takeStatusCheck(context, side)
  if (!turn.claimed) return { dueAgainAtUs: nextTurnAtUs(turn.checkedAtUs) }
  // The poll's answer schedules the side's next poll: each side has one chain of polls.
  const adapter = context.providers.adapterFor(operation.mode, side.channel, side.country)
  const outcome = await adapter.pollStatus(providerRequest(operation, side), context.clock.nowUs())
  await settleSide(context, operation.id, side.role, outcome, 'provider')
}

/**
 * Someone says a side may have moved (an operator's notification, a customer back from the
 * operator's page, a cancel the operator accepted): its status is asked of the operator, once at a
 * time per side on an instance and at most once a second across the deployment, however often it
 * is said, Sika's own polls included (`takeStatusCheck`). A side whose submission is in flight here
 * is asked as soon as that submission's answer is written.
 */
export async function checkSide(context: AppContext, operationId: number, role: SideRole): Promise<void> {
  const key = sideKey(operationId, role)
  if (context.sideChecks.heardDuringSubmission(key)) return
  await context.sideChecks.check(key, () => checkSideNow(context, operationId, role))
}

/** The rounds an ask waits for the side's turn at most: after one wait, a refused turn is a check begun since the ask. */
const turnsAtMost = 3

/**
 * Asks the side's status once its turn comes, unless a check that began after this ask (on any
 * instance) reads what the ask is about; the operation is read again after each wait.
 */
async function checkSideNow(context: AppContext, operationId: number, role: SideRole): Promise<void> {
  const askedAtUs = context.clock.nowUs()
  for (let round = 1; ; round++) {
    const operation = await context.store.operations.findById(operationId)
    const side = operation?.sides.find((candidate) => candidate.role === role)
    if (!operation || side?.status !== 'pending' || side.awaitingCustomer) return
    const turn = await takeStatusCheck(context, side)
    if (turn.claimed) return askOperator(context, operation, side)
    if (turn.checkedAtUs >= askedAtUs || round === turnsAtMost) return
    await new Promise((resolve) => setTimeout(resolve, msUntilNextTurn(context, turn.checkedAtUs)))
  }
}

async function askOperator(context: AppContext, operation: Operation, side: Side): Promise<void> {
  const adapter = context.providers.adapterFor(operation.mode, side.channel, side.country)
  const outcome = await adapter.pollStatus(providerRequest(operation, side), context.clock.nowUs())
  if (side.submittedAtUs !== undefined) {
    // The side's own chain of polls goes on as scheduled: an ask adds none to it.
    await settleSide(context, operation.id, side.role, withoutNextPoll(outcome), 'provider')
    return
  }
  // Never marked submitted: a restart cut its submission short, or another instance's is in flight.
  // What the operator holds of the payment answers that submission, and starts its polls; without
  // a record, the scheduled submission (or the one in flight) ends with the side polled.
  if (!outcome.fromOperatorRecord) return
  const settled = await executeWrite(context, {
    type: 'side-outcome',
    operationId: operation.id,
    role: side.role,
    outcome,
    source: 'submission',
  })
  await continueAfter(context, settled)
}

function withoutNextPoll(outcome: SideOutcome): SideOutcome {
  if (outcome.status !== 'pending' || outcome.pollAfterMs === undefined) return outcome
  const { pollAfterMs: _scheduled, ...rest } = outcome
  return rest
}

/**
 * Asks a side's status of its operator now, for the reconciliation's repair, and writes a pending
 * side's answer as any poll's is written (the same transition, postings, events and callbacks):
 * the operator's answer, or undefined when the side was never handed to its operator. A final
 * side is only asked: nothing moves it again. The side's turn is taken as every check takes it,
 * at most once a second across the deployment.
 */
export async function askSideStatus(
  context: AppContext,
  operationId: number,
  role: SideRole,
): Promise<{ outcome: SideOutcome; wrote: boolean } | undefined> {
  for (let round = 1; ; round++) {
    const operation = await context.store.operations.findById(operationId)
    const side = operation?.sides.find((candidate) => candidate.role === role)
    if (!operation || !side || side.submittedAtUs === undefined) return undefined
    const turn = await takeStatusCheck(context, side)
    if (!turn.claimed && round < turnsAtMost) {
      await new Promise((resolve) => setTimeout(resolve, msUntilNextTurn(context, turn.checkedAtUs)))
      continue
    }
    const adapter = context.providers.adapterFor(operation.mode, side.channel, side.country)
    const outcome = await adapter.pollStatus(providerRequest(operation, side), context.clock.nowUs())
    if (side.status !== 'pending' || outcome.status === 'pending') return { outcome, wrote: false }
    await settleSide(context, operation.id, side.role, withoutNextPoll(outcome), 'provider')
    return { outcome, wrote: true }
  }
}
