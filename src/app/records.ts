import { formatTimestamp } from '../domain/clock.ts'
import { toMajorUnits } from '../domain/money.ts'
import type { Side } from '../domain/operation.ts'
import { milliToPercentage } from '../domain/pricing.ts'
import type { LedgerEntry } from './list-transactions.ts'
import type { Operation } from './operation-rows.ts'

/** The published record shapes (spec: Operation, Transfer and Transaction records), plus CONTRACT.md's additive fields. */
export function operationRecord(operation: Operation): Record<string, unknown> {
  const common = {
    operation: operation.kind,
    token: operation.token,
    status: operation.status,
    ...(operation.redirectUrl ? { redirectUrl: operation.redirectUrl } : {}),
  }
  const closing = {
    merchantReference: operation.merchantReference,
    initiationDate: formatTimestamp(operation.initiatedAtUs),
    currency: operation.currency,
    ...(operation.failure ? { failureReason: operation.failure } : {}),
    ...(operation.completedAtUs !== null ? { completionDate: formatTimestamp(operation.completedAtUs) } : {}),
  }
  if (operation.kind === 'transfer') {
    const [from, to] = operation.sides
    return { ...common, from: sideRecord(from!, true), to: sideRecord(to!, true), ...closing }
  }
  const [side] = operation.sides
  const { amount, pricing, cashAmount, transactionAmount, customer } = sideRecord(side!, false)
  return {
    ...common,
    amount,
    pricing,
    cashAmount,
    transactionAmount,
    customer,
    ...closing,
    channel: side!.channel,
    country: side!.country,
  }
}

function sideRecord(side: Side, withSideDetails: boolean) {
  const major = (minor: number) => toMajorUnits(minor, side.currency)
  return {
    amount: major(side.amountMinor),
    pricing: {
      percentageFee: milliToPercentage(side.percentageMilli),
      additionalFee: major(side.additionalFeeMinor),
      feesAmount: major(side.feesMinor),
      supportedByAccount: side.supportedByAccount,
    },
    cashAmount: major(side.cashAmountMinor),
    transactionAmount: major(side.transactionAmountMinor),
    customer: { ...side.customer },
    ...(withSideDetails
      ? {
          channel: side.channel,
          country: side.country,
          currency: side.currency,
          status: side.status,
          ...(side.failure ? { failureReason: side.failure } : {}),
        }
      : {}),
  }
}

export function transactionRecord(entry: LedgerEntry): Record<string, unknown> {
  return {
    reference: entry.reference,
    operation: entry.operation_kind,
    amount: toMajorUnits(entry.amount_minor, entry.currency as Side['currency']),
    type: entry.type,
    status: entry.status,
    date: formatTimestamp(entry.created_at_us),
    currency: entry.currency,
    token: entry.token,
  }
}
