import type { Mode, OperationKind } from '../domain/kinds.ts'
import type { Operation } from '../domain/operation.ts'
import { cancelableKinds, cancelStanding } from '../domain/payout-batches.ts'
import { canceledByMerchantReason, withMerchantReason } from '../domain/transitions.ts'
import { ApiError } from '../errors.ts'
import type { AppContext } from './context.ts'
import { checkSide } from './lifecycle.ts'
import { providerRequest } from './provider-requests.ts'
import { executeWrites } from './write-pipeline.ts'

/**
 * CONTRACT.md, Cancel: a cash-out no operator has yet (queued in a payout batch, or awaiting its
 * approval) ends canceled at once, its hold released and its events written. One its operator
 * holds is asked of the operator where it can stop it (pawaPay's fail-enqueued), and ends canceled
 * only when the operator's status says so. Anything else is a 409 `not_cancelable` saying why.
 * Canceling twice answers the same canceled record. `kind`: the route's (another kind's token is a 404).
 */
export async function cancelOperation(
  context: AppContext,
  merchantId: string,
  mode: Mode,
  token: string,
  reason?: string,
  kind?: OperationKind,
): Promise<Operation> {
  const operation = await context.store.operations.findByToken(merchantId, mode, token)
  const named = kind ?? operation?.kind
  if (!operation || !named || operation.kind !== named || !cancelableKinds.includes(operation.kind))
    throw new ApiError('not_found', `No ${kind ?? 'payout'} has token ${token}.`)
  const standing = cancelStanding(operation)
  switch (standing.standing) {
    case 'canceled':
      return operation
    case 'queued':
      return cancelQueued(context, operation, reason)
    case 'at-operator':
      return askOperator(context, operation, reason)
    case 'not-cancelable':
      throw notCancelable(operation, standing.why)
  }
}

async function cancelQueued(context: AppContext, operation: Operation, reason?: string): Promise<Operation> {
  const failure = {
    code: canceledByMerchantReason.code,
    message: withMerchantReason(canceledByMerchantReason.message, reason),
  }
  const settled = await executeWrites(context, (steps) =>
    steps.settle({
      operationId: operation.id,
      role: 'main',
      outcome: { status: 'canceled', reason: failure },
      source: 'merchant',
    }),
  )
  if (settled.operation.status === 'canceled') return settled.operation
  // The batch worker took it for its operator meanwhile: answered as it now stands.
  const now = await context.store.operations.findById(operation.id)
  const standing = now ? cancelStanding(now) : undefined
  if (now && standing?.standing === 'at-operator') return askOperator(context, now, reason)
  throw notCancelable(
    now ?? operation,
    standing?.standing === 'not-cancelable' ? standing.why : 'It is being handed to its operator now.',
  )
}

/**
 * The operator holds the payout: only an operator that can stop a payout it has not sent on
 * (pawaPay's fail-enqueued) is asked. The request (and its reason) is noted first, so the stop the
 * operator then reports is read as the merchant's cancel, whichever arrives first (its callback or
 * a poll). No answer leaves the note standing: the cancel may have reached the operator, whose
 * stop is then still the merchant's cancel, while a decline of its own keeps its own reason.
 */
export async function askOperator(
  context: AppContext,
  operation: Operation,
  reason?: string,
): Promise<Operation> {
  const side = operation.sides[0]!
  const adapter = context.providers.adapterFor(operation.mode, side.channel, side.country)
  if (!adapter.cancelQueued)
    throw notCancelable(
      operation,
      `Its status is pending and its operator (${adapter.name}) holds it, which offers no way to stop a payout once it has it.`,
    )
  const note = (requested: boolean) =>
    executeWrites(context, (steps) => steps.noteCancelRequest(operation.id, side.role, requested, reason))
  await note(true)
  const answer = await adapter.cancelQueued(providerRequest(operation, side), context.clock.nowUs())
  if (answer.answer === 'refused') {
    await note(false)
    throw notCancelable(operation, `Its status is pending and its operator has sent it on: ${answer.reason}`)
  }
  if (answer.answer === 'unknown')
    throw notCancelable(
      operation,
      'Its status is pending and the operator did not answer the cancel; send it again.',
    )
  // Accepted: the operator's status settles it, asked now.
  await checkSide(context, operation.id, side.role)
  return (await context.store.operations.findById(operation.id)) ?? operation
}

function notCancelable(operation: Operation, why: string): ApiError {
  return new ApiError(
    'not_cancelable',
    `The ${operation.kind} ${operation.token} cannot be canceled. ${why}`,
    undefined,
    undefined,
    { status: operation.status },
  )
}
