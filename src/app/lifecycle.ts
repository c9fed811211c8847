import type { SideRole } from '../domain/kinds.ts'
import { type Operation, type Side, sideAwaitingSubmission } from '../domain/operation.ts'
import { expiredReason, type OutcomeSource, type SideOutcome } from '../domain/transitions.ts'
import type { ScheduledWork } from '../store/repositories/scheduled-work.ts'
import type { AppContext } from './context.ts'
import { providerRequest } from './provider-requests.ts'
import { executeWrite } from './write-pipeline.ts'

/**
 * Every answer about a side (a poll, an operator's notification, the checkout page, expiry)
 * enters here: the write pipeline applies it, then whatever the new state allows next is started
 * (a transfer's `to` side once its `from` side succeeded).
 */
export async function settleSide(
  context: AppContext,
  operationId: number,
  role: SideRole,
  outcome: SideOutcome,
  source: Exclude<OutcomeSource, 'submission'>,
): Promise<Operation> {
  const operation = await executeWrite(context, { type: 'side-outcome', operationId, role, outcome, source })
  return submitSides(context, operation)
}

/** Hands each side to its provider in turn, outside any transaction: the next only after the one before succeeded. */
export async function submitSides(context: AppContext, operation: Operation): Promise<Operation> {
  let current = operation
  for (;;) {
    const side = sideAwaitingSubmission(current.sides)
    if (!side) return current
    const adapter = context.providers.adapterFor(current.mode, side.channel, side.country)
    const outcome = await adapter.initiate(providerRequest(current, side), context.clock.nowUs())
    current = await executeWrite(context, {
      type: 'side-outcome',
      operationId: current.id,
      role: side.role,
      outcome,
      source: 'submission',
    })
  }
}

/** How long a claimed item is left to its worker before another may take it over. */
const leaseMs = 60_000
const batchSize = 16

/** Runs the scheduled work that is due: submissions a crash interrupted, polls of pending sides, expiry. */
export async function runDueScheduledWork(context: AppContext, owner: string): Promise<number> {
  const due = await context.store.scheduledWork.claimDue(owner, context.clock.nowUs(), leaseMs, batchSize)
  for (const work of due) {
    try {
      await runWork(context, work)
      await context.store.scheduledWork.complete(work.id, owner, context.clock.nowUs())
    } catch (error) {
      // Left leased: it is tried again when the lease runs out.
      context.logger.error({ err: error, workId: work.id, kind: work.kind }, 'scheduled work failed')
    }
  }
  return due.length
}

async function runWork(context: AppContext, work: ScheduledWork): Promise<void> {
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
  if (side?.status !== 'pending' || side.awaitingCustomer) return
  await pollSide(context, operation, side)
}

/** Asks the side's operator where it stands, and applies the answer. */
export async function pollSide(context: AppContext, operation: Operation, side: Side): Promise<Operation> {
  // Not yet marked submitted: its submission is in flight (an operator may call back before it
  // answers the POST), or a crash cut it short and the scheduled backstop will submit it. Asking
  // now would hand the side to the operator a second time; its answer will be polled anyway.
  if (side.submittedAtUs === undefined) return operation
  const adapter = context.providers.adapterFor(operation.mode, side.channel, side.country)
  const outcome = await adapter.pollStatus(providerRequest(operation, side), context.clock.nowUs())
  return settleSide(context, operation.id, side.role, outcome, 'provider')
}
