import { sideKinds } from '../domain/kinds.ts'
import type { Operation, RefundedPayment, Side } from '../domain/operation.ts'
import type { ProviderRequest, RefundedPaymentRequest } from '../providers/provider.ts'

/** What a provider is asked about one side: the amount is what moves on the customer's wallet. */
export function providerRequest(operation: Operation, side: Side): ProviderRequest {
  return {
    token: operation.token,
    role: side.role,
    mode: operation.mode,
    direction: sideKinds[side.kind].direction,
    channel: side.channel,
    country: side.country,
    currency: side.currency,
    amountMinor: side.transactionAmountMinor,
    phoneNumber: side.customer.phoneNumber,
    submittedAtUs: side.submittedAtUs,
    providerReference: side.providerReference,
    operatorReference: side.operatorReference,
    ...(side.customer.fullName ? { customerName: side.customer.fullName } : {}),
    ...(side.statementDescriptor ? { statementDescriptor: side.statementDescriptor } : {}),
    ...(side.refundedPayment ? { refund: refundedPaymentRequest(side.refundedPayment) } : {}),
  }
}

function refundedPaymentRequest(refunded: RefundedPayment): RefundedPaymentRequest {
  return {
    ...(refunded.operatorReference ? { operatorReference: refunded.operatorReference } : {}),
    ...(refunded.providerReference ? { providerReference: refunded.providerReference } : {}),
    paidAmountMinor: refunded.transactionAmountMinor,
  }
}
