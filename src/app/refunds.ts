import { type OperationKind, refundKindFor, sideKinds } from '../domain/kinds.ts'
import { largestAmountRule, maximumMinorUnits, precisionRule, toMinorUnits } from '../domain/money.ts'
import type { Metadata, Operation, Side } from '../domain/operation.ts'
import { leftToRefundMinor, refundSide } from '../domain/refunds.ts'
import { statementDescriptorOf } from '../domain/statement-descriptor.ts'
import { ApiError, validationFailed } from '../errors.ts'
import type { AppContext } from './context.ts'
import { answerIfMade } from './idempotency.ts'
import { hashRequest, newOperationDraft, openAndSubmit, refuseInternalUrls } from './initiate.ts'
import type { Principal } from './principal.ts'
import { exceedsCollected, refuseUnlessSucceeded } from './write-refusals.ts'

/** A validated refund request (CONTRACT.md, Refunds). */
export type RefundRequest = {
  merchantReference: string
  /** Major units; what is left to refund when absent. */
  amount?: number
  callbackUrl?: string
  metadata?: Metadata
  statementDescriptor?: string
}

/**
 * Refunds a succeeded operation (a collect), in full or in part, to the customer who paid it,
 * through its channel, with no fee. The refund is a cash-out of its own kind: its amount is held
 * at once and its claim on the collect is checked by the database in the same transaction.
 */
export async function refundOperation(
  context: AppContext,
  principal: Principal,
  refundedKind: OperationKind,
  token: string,
  request: RefundRequest,
): Promise<Operation> {
  const refundKind = refundKindFor(refundedKind)
  if (!refundKind) throw new ApiError('not_found', `No ${refundedKind} has token ${token}.`)
  const requestHash = hashRequest({ ...request, [refundedKind]: token })
  let draft: Operation
  try {
    draft = await draftRefund(context, principal, { refundedKind, refundKind, token }, request, requestHash)
  } catch (refusal) {
    // Also a retry once nothing is left to refund: its reference answers it.
    const { merchantId, mode } = principal
    const key = { merchantId, mode, kind: refundKind, merchantReference: request.merchantReference }
    return answerIfMade(context, key, requestHash, refusal)
  }
  return openAndSubmit(context, draft)
}

/** The refund's operation, before the write: its side, its URLs, its claim on the refunded operation. */
async function draftRefund(
  context: AppContext,
  principal: Principal,
  target: { refundedKind: OperationKind; refundKind: OperationKind; token: string },
  request: RefundRequest,
  requestHash: string,
): Promise<Operation> {
  const refunded = await refundedOf(context, principal, target.refundedKind, target.token)
  refuseUnlessSucceeded(refunded)
  if (principal.mode === 'live') await refuseInternalUrls(request)
  const amountMinor = refundAmountMinor(refunded, request.amount)
  if (amountMinor <= 0) throw exceedsCollected(refunded, 0)
  const side = refundSide(refunded, amountMinor)
  const descriptor = request.statementDescriptor ?? statementDescriptorOf(principal.merchantName)
  if (descriptor) side.statementDescriptor = descriptor
  refuseUnlessConnected(context, principal, side)
  return newOperationDraft(principal, target.refundKind, {
    merchantReference: request.merchantReference,
    requestHash,
    sides: [side],
    urls: { callbackUrl: request.callbackUrl ?? refunded.urls.callbackUrl },
    metadata: request.metadata,
    refundOf: { id: refunded.id, token: refunded.token },
  })
}

async function refundedOf(
  context: AppContext,
  principal: Principal,
  refundedKind: OperationKind,
  token: string,
): Promise<Operation> {
  const refunded = await context.store.operations.findByToken(principal.merchantId, principal.mode, token)
  if (!refunded || refunded.kind !== refundedKind)
    throw new ApiError('not_found', `No ${refundedKind} has token ${token}.`)
  return refunded
}

/** A live refund pays the customer back through the collect's channel: it must be connected for payouts. */
function refuseUnlessConnected(context: AppContext, principal: Principal, side: Side): void {
  if (context.providers.connects(principal.mode, side.channel, side.country, sideKinds[side.kind].direction))
    return
  throw new ApiError(
    'channel_unavailable',
    `The refund would pay the customer back through ${side.channel} in ${side.country}, which is not connected for live payouts.`,
    [
      {
        field: 'channel',
        code: 'channel_unavailable',
        message: `${side.channel} in ${side.country} cannot pay out in live mode; refund the customer another way.`,
      },
    ],
  )
}

/** The amount asked, in minor units (a 422 for more decimals than the currency has), or what is left. */
function refundAmountMinor(refunded: Operation, amount: number | undefined): number {
  const left = leftToRefundMinor(refunded)
  if (amount === undefined) return left
  const amountMinor = toMinorUnits(amount, refunded.currency)
  if (amountMinor === undefined)
    throw validationFailed([
      { field: 'amount', code: 'invalid_precision', message: precisionRule(refunded.currency) },
    ])
  if (amountMinor > maximumMinorUnits)
    throw validationFailed([
      { field: 'amount', code: 'out_of_range', message: largestAmountRule(refunded.currency) },
    ])
  return amountMinor
}
