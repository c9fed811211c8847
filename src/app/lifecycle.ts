import { operationKinds } from '../domain/kinds.ts'
import type { Side } from '../domain/operation.ts'
import type { ProviderOutcome, ProviderRequest } from '../providers/provider.ts'
import type { AppContext } from './context.ts'
import { findOperationById, type Operation } from './operation-rows.ts'
import { claimDueWork, completeWork, type ScheduledWork } from './scheduled-work.ts'
import { applySideOutcome, type OutcomeSource } from './state-machine.ts'

/**
 * Every answer about a side (the provider at initiation, a poll, an operator's notification,
 * the checkout page, expiry) enters here: the state machine applies it, then whatever the new
 * state allows next is started (a transfer's `to` side once its `from` side succeeded).
 */
export async function settleSide(
  context: AppContext,
  operationId: number,
  role: Side['role'],
  outcome: ProviderOutcome,
  source: Exclude<OutcomeSource, 'submission'>,
): Promise<Operation> {
  const operation = await applySideOutcome(context, operationId, role, outcome, source)
  return submitSides(context, operation)
}

/** Hands each side to its provider in turn: one at a time, the `to` side only after `from` succeeded. */
export async function submitSides(context: AppContext, operation: Operation): Promise<Operation> {
  let current = operation
  for (;;) {
    const side = nextSideToSubmit(current)
    if (!side) return current
    const now = context.clock.nowMicros()
    const adapter = context.providers.adapterFor(current.mode, side.channel)
    const outcome = await adapter.initiate(providerRequest(current, side), now)
    current = await applySideOutcome(context, current.id, side.role, outcome, 'submission')
  }
}

function nextSideToSubmit(operation: Operation): Side | undefined {
  for (const side of operation.sides) {
    if (side.status === 'pending' && side.submittedAtUs === undefined) return side
    if (side.status !== 'succeeded') return undefined
  }
  return undefined
}

export function providerRequest(operation: Operation, side: Side): ProviderRequest {
  return {
    token: operation.token,
    role: side.role,
    mode: operation.mode,
    direction: operationKinds[side.kind].direction,
    channel: side.channel,
    country: side.country,
    currency: side.currency,
    amountMinor: side.transactionAmountMinor,
    phoneNumber: side.customer.phoneNumber,
    submittedAtUs: side.submittedAtUs,
    providerReference: side.providerReference,
  }
}

export const expiredReason = { code: 'expired', message: 'The operation expired before it was completed.' }

/** Runs the scheduled work that is due: submissions a crash interrupted, polls of pending sides, expiry. */
export async function runDueScheduledWork(context: AppContext, owner: string): Promise<number> {
  const due = await claimDueWork(context, owner)
  for (const work of due) {
    try {
      await runWork(context, work)
      await completeWork(context, work, owner)
    } catch (error) {
      // Left leased: it is tried again when the lease runs out.
      context.logger.error({ err: error, workId: work.id, kind: work.kind }, 'scheduled work failed')
    }
  }
  return due.length
}

async function runWork(context: AppContext, work: ScheduledWork): Promise<void> {
  const operation = await findOperationById(context.store.db, work.operation_id)
  if (operation?.status !== 'pending') return
  if (work.kind === 'expire') {
    for (const side of operation.sides) {
      if (side.status === 'pending') {
        await settleSide(
          context,
          operation.id,
          side.role,
          { status: 'canceled', reason: expiredReason },
          'expiry',
        )
      }
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
  const adapter = context.providers.adapterFor(operation.mode, side.channel)
  const outcome = await adapter.pollStatus(providerRequest(operation, side), context.clock.nowMicros())
  await settleSide(context, operation.id, side.role, outcome, 'provider')
}
