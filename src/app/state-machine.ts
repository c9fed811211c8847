import type { Transaction } from 'kysely'
import type { Clock } from '../domain/clock.ts'
import { compositeStatus, type Side, sideDirection } from '../domain/operation.ts'
import { canTransition, isFinal } from '../domain/status.ts'
import type { ProviderOutcome } from '../providers/provider.ts'
import type { Database } from '../store/schema.ts'
import type { AppContext } from './context.ts'
import { credit, type LedgerOperation, placeHold, resolveHold } from './ledger.ts'
import { findOperationById, type Operation } from './operation-rows.ts'

type Trx = Transaction<Database>

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
): Promise<Operation> {
  return context.store.transaction(async (trx) => {
    const operation = await lockOperation(context, trx, operationId)
    const side = operation.sides.find((candidate) => candidate.role === role)
    if (!side) throw new Error(`operation ${operation.token} has no ${role} side`)
    const now = context.clock.nowMicros()
    side.submittedAtUs ??= now
    if (outcome.providerReference) side.providerReference = outcome.providerReference
    if (side.status === 'pending' && outcome.status !== 'pending') {
      side.status = outcome.status
      if (outcome.status !== 'succeeded') side.failure = outcome.reason
      await moveSideMoney(trx, operation, side, context.clock)
      if (operation.kind === 'transfer') await followTransferSide(trx, operation, side, context.clock)
    }
    return saveOperation(trx, operation, now)
  })
}

async function lockOperation(context: AppContext, trx: Trx, operationId: number): Promise<Operation> {
  if (context.store.dialect.supportsRowLocks) {
    await trx.selectFrom('operations').select('id').where('id', '=', operationId).forUpdate().execute()
  }
  const operation = await findOperationById(trx, operationId)
  if (!operation) throw new Error(`operation ${operationId} does not exist`)
  return operation
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
    } else if (to && to.status === 'pending') {
      to.status = 'canceled'
      to.failure = { code: 'not_started', message: 'The from side did not succeed, so nothing was paid out.' }
      await resolveHold(trx, ledger, 'cash-out', 'canceled', clock)
    }
    return
  }
  await resolveHold(trx, ledger, 'reversal', side.status === 'succeeded' ? 'canceled' : 'succeeded', clock)
}

async function saveOperation(trx: Trx, operation: Operation, now: number): Promise<Operation> {
  const next = compositeStatus(operation.kind, operation.sides)
  if (next !== operation.status && canTransition(operation.status, next)) {
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
