import type { OperationKind } from './kinds.ts'
import type { Operation, RefundedPayment, Side } from './operation.ts'

/**
 * The refund rules of CONTRACT.md (Refunds), as pure functions: what is left to refund of an
 * operation, and the side that pays its customer back.
 */

/** What may still be refunded of an operation: its refundable amount less what its refunds claim. */
export function leftToRefundMinor(refunded: Operation): number {
  const refunds = refunded.refunds ?? { refundableMinor: 0, refundedMinor: 0 }
  return refunds.refundableMinor - refunds.refundedMinor
}

/**
 * To the customer who paid, on the same channel and country, with no fee, against the payment as
 * its operator knows it (its refund API takes that payment's reference).
 */
export function refundSide(refunded: Operation, amountMinor: number): Side {
  const paid = refunded.sides[0]!
  return {
    role: 'main',
    kind: 'refund',
    channel: paid.channel,
    country: paid.country,
    currency: paid.currency,
    amountMinor,
    feesMinor: 0,
    transactionAmountMinor: amountMinor,
    cashAmountMinor: amountMinor,
    percentageMilli: 0,
    additionalFeeMinor: 0,
    supportedByAccount: true,
    customer: { ...paid.customer },
    status: 'pending',
    refundedPayment: refundedPaymentOf(paid, refunded.kind),
  }
}

/** What a refund of this side hands its customer: everything they paid, with the fee it carried waived. */
export function customerRefundSide(paid: Side, refundedKind: OperationKind): Side {
  return {
    role: 'main',
    kind: 'refund',
    channel: paid.channel,
    country: paid.country,
    currency: paid.currency,
    amountMinor: paid.transactionAmountMinor,
    // The customer gets back all they paid and the merchant gives back what it was credited: the
    // fee of a payment that was undone is waived, so the refund carries none.
    feesMinor: 0,
    transactionAmountMinor: paid.transactionAmountMinor,
    cashAmountMinor: paid.cashAmountMinor,
    percentageMilli: 0,
    additionalFeeMinor: 0,
    supportedByAccount: true,
    customer: { ...paid.customer },
    status: 'pending',
    ...(paid.statementDescriptor ? { statementDescriptor: paid.statementDescriptor } : {}),
    refundedPayment: refundedPaymentOf(paid, refundedKind),
  }
}

/** The side a refund gives back, as its operator knows it. */
export function refundedPaymentOf(paid: Side, kind: OperationKind): RefundedPayment {
  return {
    kind,
    role: paid.role,
    ...(paid.operatorReference ? { operatorReference: paid.operatorReference } : {}),
    ...(paid.providerReference ? { providerReference: paid.providerReference } : {}),
    transactionAmountMinor: paid.transactionAmountMinor,
  }
}
