import type { SimulatorOutcome } from '../test-numbers.ts'
import { type FailureReason, transactionFailure } from './errors.ts'
import type { OperationKind } from './operations.ts'

export type FinalStatus =
  | { readonly status: 'COMPLETED' }
  | { readonly status: 'FAILED'; readonly failureReason: FailureReason }

/**
 * The failure code each declining test number ends with, per operation, from pawaPay's v2
 * transaction failure codes. A payout or refund needs no approval from the customer, so
 * "refused" and "expired" end as the provider's unexplained failure (SOURCES.md, "Test numbers").
 */
const failureCodes: Record<OperationKind, Partial<Record<SimulatorOutcome, string>>> = {
  deposit: {
    '101': 'INSUFFICIENT_BALANCE',
    '102': 'PAYMENT_NOT_APPROVED',
    '103': 'PAYMENT_NOT_APPROVED',
    '108': 'PAYER_NOT_FOUND',
  },
  payout: {
    '101': 'WALLET_LIMIT_REACHED',
    '102': 'UNSPECIFIED_FAILURE',
    '103': 'UNSPECIFIED_FAILURE',
    '108': 'RECIPIENT_NOT_FOUND',
  },
  refund: {
    '101': 'WALLET_LIMIT_REACHED',
    '102': 'UNSPECIFIED_FAILURE',
    '103': 'UNSPECIFIED_FAILURE',
    '108': 'RECIPIENT_NOT_FOUND',
  },
}

/** 103 differs from 102 by its message: the customer let the PIN prompt time out. */
const expiredMessage = 'The customer did not authorise the payment in time and the PIN prompt expired.'

/** How a payment ends when its settle delay is over, or undefined while it stays PROCESSING (104). */
export function finalStatusOf(kind: OperationKind, outcome: SimulatorOutcome): FinalStatus | undefined {
  if (outcome === '104') return undefined
  const failureCode = failureCodes[kind][outcome]
  if (failureCode === undefined) return { status: 'COMPLETED' }
  const message = outcome === '103' && kind === 'deposit' ? expiredMessage : undefined
  return { status: 'FAILED', failureReason: transactionFailure(failureCode, message) }
}
