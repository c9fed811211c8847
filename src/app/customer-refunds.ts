import { randomUUID } from 'node:crypto'
import type { SideRole } from '../domain/kinds.ts'
import type { Operation } from '../domain/operation.ts'
import { customerRefundSide } from '../domain/refunds.ts'

/**
 * The refund operation that pays a live transfer's customer back (CONTRACT.md, Balances and the
 * ledger): an ordinary refund, listed and called back as any other, under the token the transition
 * gave it. Its merchantReference is the transfer's token, so the merchant finds it by either, and
 * its callbacks go where the transfer's did.
 */
export function customerRefundDraft(operation: Operation, role: SideRole): Operation {
  const paid = operation.sides.find((side) => side.role === role)
  if (!paid?.customerRefund)
    throw new Error(`operation ${operation.token} has no refund due on its ${role} side`)
  const side = customerRefundSide(paid, operation.kind)
  side.operatorReference = randomUUID()
  return {
    id: 0,
    token: paid.customerRefund.token,
    merchantId: operation.merchantId,
    mode: operation.mode,
    kind: 'refund',
    position: 0,
    status: 'pending',
    merchantReference: operation.token,
    // Opened once, in the write that decided it: no request of the merchant's to tell a retry from.
    requestHash: `customer-refund ${operation.token} ${role}`,
    currency: side.currency,
    sides: [side],
    urls: { callbackUrl: operation.urls.callbackUrl },
    redirectUrl: null,
    failure: null,
    initiatedAtUs: 0,
    completedAtUs: null,
    updatedAtUs: 0,
    ...(operation.metadata ? { metadata: { ...operation.metadata } } : {}),
    refundOf: { id: operation.id, token: operation.token },
  }
}
