import type { Transaction } from 'kysely'
import type { Clock } from '../domain/clock.ts'
import { compositeStatus, type Side, sideDirection } from '../domain/operation.ts'
import { canTransition, isFinal } from '../domain/status.ts'
import { recordStatusEvent } from '../events/outbox.ts'
import type { ProviderOutcome } from '../providers/provider.ts'
import type { Database } from '../store/schema.ts'
import type { AppContext } from './context.ts'
import { credit, type LedgerOperation, placeHold, resolveHold } from './ledger.ts'
import { type Operation, toOperation } from './operation-rows.ts'
import { finishScheduledWork, scheduleWork } from './scheduled-work.ts'

type Trx = Transaction<Database>

/** Who reports the outcome: the provider answering a submission, the provider later (poll, notification), the checkout page, or expiry. */
export type OutcomeSource = 'submission' | 'provider' | 'checkout' | 'expiry'

/** How long a side may wait for its submission before the scheduled backstop submits it (after a crash). */
export const submissionGraceMs = 30_000

/**
 * The one place that changes an operation's status. Every path (the provider's answer,
 * sandbox timers, the checkout page, expiry) comes here with a side and an outcome.
 * Two racing transitions of one operation: the row lock (PostgreSQL) or the write lock
 * (SQLite) orders them, and the second finds the side already final and changes nothing.
 */
export async function applySideOutcome(
  context: AppContext,
  operationId: number,
  role: Side['role'],
  outcome: ProviderOutcome,
  source: OutcomeSource,
): Promise<Operation> {
  return context.store.transaction(async (trx) => {
    const operation = await lockOperation(context, trx, operationId)
    const side = operation.sides.find((candidate) => candidate.role === role)
    if (!side) throw new Error(`operation ${operation.token} has no ${role} side`)
    const now = context.clock.nowMicros()
    if (source === 'submission') side.submittedAtUs ??= now
    // Only expiry may end a side that was never handed to its provider (a transfer's `to`
    // side before `from` succeeded): no notification or page can move money not yet asked for.
    else if (side.submittedAtUs === undefined && source !== 'expiry') return operation
    if (side.status !== 'pending') return operation
    if (outcome.providerReference) side.providerReference = outcome.providerReference
    if (outcome.status === 'pending') {
      if (outcome.needsCustomerAction) {
        side.awaitingCustomer = true
        operation.redirectUrl = `${context.config.publicBaseUrl}/checkout/${operation.token}`
      }
      if (outcome.pollAfterMs !== undefined) {
        await scheduleWork(trx, 'poll', operation.id, role, now + Math.ceil(outcome.pollAfterMs * 1000))
      }
    } else {
      side.status = outcome.status
      side.awaitingCustomer = undefined
      if (outcome.status !== 'succeeded') side.failure = outcome.reason
      await moveSideMoney(trx, operation, side, context.clock)
      if (operation.kind === 'transfer') await followTransferSide(trx, operation, side, context.clock)
    }
    return saveOperation(trx, operation, now, context.clock)
  })
}

async function lockOperation(context: AppContext, trx: Trx, operationId: number): Promise<Operation> {
  const query = trx.selectFrom('operations').selectAll().where('id', '=', operationId)
  const row = await (context.store.dialect.supportsRowLocks ? query.forUpdate() : query).executeTakeFirst()
  if (!row) throw new Error(`operation ${operationId} does not exist`)
  return toOperation(row)
}

function ledgerView(operation: Operation): LedgerOperation {
  return {
    id: operation.id,
    token: operation.token,
    kind: operation.kind,
    merchantId: operation.merchantId,
    mode: operation.mode,
    currency: operation.currency,
  }
}

/** A side's own money: a cash-in is credited on success; a cash-out's hold is posted or released. */
async function moveSideMoney(trx: Trx, operation: Operation, side: Side, clock: Clock): Promise<void> {
  const ledger = ledgerView(operation)
  if (sideDirection(side) === 'cash-in') {
    if (side.status === 'succeeded') await credit(trx, ledger, side.cashAmountMinor, clock)
    return
  }
  await resolveHold(trx, ledger, 'cash-out', side.status === 'succeeded' ? 'succeeded' : 'canceled', clock)
}

/**
 * A transfer's `from` money is credited when collected, with a reserve of the same amount
 * held for a refund until the `to` side ends: the refund can then never overdraw the balance.
 */
async function followTransferSide(trx: Trx, operation: Operation, side: Side, clock: Clock): Promise<void> {
  const ledger = ledgerView(operation)
  const to = operation.sides.find((candidate) => candidate.role === 'to')
  if (side.role === 'from') {
    if (side.status === 'succeeded') {
      const reserve = await placeHold(trx, ledger, 'reversal', side.cashAmountMinor, clock)
      if (reserve !== 'held') throw new Error('a refund reserve must always fit the credit just posted')
      await scheduleWork(trx, 'submit', operation.id, 'to', clock.nowMicros() + submissionGraceMs * 1000)
    } else if (to && to.status === 'pending') {
      to.status = 'canceled'
      to.failure = { code: 'not_started', message: 'The from side did not succeed, so nothing was paid out.' }
      await resolveHold(trx, ledger, 'cash-out', 'canceled', clock)
    }
    return
  }
  await resolveHold(trx, ledger, 'reversal', side.status === 'succeeded' ? 'canceled' : 'succeeded', clock)
}

async function saveOperation(trx: Trx, operation: Operation, now: number, clock: Clock): Promise<Operation> {
  const next = compositeStatus(operation.kind, operation.sides)
  const transitioned = next !== operation.status && canTransition(operation.status, next)
  if (transitioned) {
    operation.status = next
    operation.failure = failureOf(operation)
    operation.completedAtUs = isFinal(next) ? now : null
  }
  operation.updatedAtUs = now
  await trx
    .updateTable('operations')
    .set({
      status: operation.status,
      sides: JSON.stringify(operation.sides),
      redirect_url: operation.redirectUrl,
      failure_code: operation.failure?.code ?? null,
      failure_message: operation.failure?.message ?? null,
      completed_at_us: operation.completedAtUs,
      updated_at_us: now,
    })
    .where('id', '=', operation.id)
    .execute()
  if (transitioned) {
    await recordStatusEvent(trx, operation, clock)
    // Nothing is left to poll or expire once the operation is final.
    if (isFinal(operation.status)) await finishScheduledWork(trx, operation.id, now)
  }
  return operation
}

function failureOf(operation: Operation): Operation['failure'] {
  if (operation.status === 'pending' || operation.status === 'succeeded') return null
  const [first, second] = operation.sides
  if (first && first.status !== 'succeeded') return first.failure ?? null
  if (second?.failure) {
    return {
      code: second.failure.code,
      message: `${second.failure.message} The from customer was refunded.`,
    }
  }
  return null
}
