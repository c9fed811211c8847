import { formatTimestamp } from '../domain/clock.ts'
import { isSingleSided, operationKinds, refundedKindOf } from '../domain/kinds.ts'
import { type Currency, toMajorUnits } from '../domain/money.ts'
import type { Operation, Side } from '../domain/operation.ts'
import { milliToPercentage } from '../domain/pricing.ts'
import type { LedgerEntry } from '../store/repositories/ledger.ts'
import type { NewEvent } from '../store/repositories/outbox.ts'

/**
 * The published record shapes (spec: Operation, Transfer and Transaction records), plus
 * CONTRACT.md's additive fields. A single-sided kind's record is flat; a kind with named sides
 * nests each side under its role: the shape follows from the kinds table.
 */
export function operationRecord(operation: Operation): Record<string, unknown> {
  const refundedKind = refundedKindOf(operation.kind)
  if (refundedKind) return refundRecord(operation, refundedKind)
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
    ...outcomeFields(operation),
    ...(operation.refunds
      ? { refundedAmount: toMajorUnits(operation.refunds.refundedMinor, operation.currency) }
      : {}),
    ...(operation.metadata ? { metadata: operation.metadata } : {}),
  }
  if (!isSingleSided(operation.kind)) {
    const sides = Object.fromEntries(
      operation.sides.map((side) => [
        side.role,
        { ...sideRecord(side, true), ...operatorReferenceOf(operation, side) },
      ]),
    )
    return { ...common, ...sides, ...closing }
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
    ...operatorReferenceOf(operation, side!),
  }
}

/**
 * CONTRACT.md, Operators: a live side's id at its operator, for the merchant to quote to it: the
 * operator's transaction id once it gave one, the reference Sika submitted it under before that.
 */
function operatorReferenceOf(operation: Operation, side: Side): { operatorReference?: string } {
  if (operation.mode !== 'live') return {}
  const reference = side.providerReference ?? side.operatorReference
  return reference ? { operatorReference: reference } : {}
}

/** CONTRACT.md, Statuses: failureReason on failed, canceled and error; completionDate once final. */
function outcomeFields(operation: Operation) {
  return {
    ...(operation.failure ? { failureReason: operation.failure } : {}),
    ...(operation.completedAtUs !== null ? { completionDate: formatTimestamp(operation.completedAtUs) } : {}),
  }
}

/**
 * CONTRACT.md, Refunds: the refunded operation's token under its kind's name, the customer paid
 * back, and the additive fields of operations. A refund carries no fee, so no pricing.
 */
function refundRecord(operation: Operation, refundedKind: string): Record<string, unknown> {
  const side = operation.sides[0]!
  return {
    operation: operation.kind,
    token: operation.token,
    status: operation.status,
    amount: toMajorUnits(side.amountMinor, side.currency),
    currency: operation.currency,
    [refundedKind]: operation.refundOf?.token ?? null,
    customer: { ...side.customer },
    merchantReference: operation.merchantReference,
    initiationDate: formatTimestamp(operation.initiatedAtUs),
    ...outcomeFields(operation),
    channel: side.channel,
    country: side.country,
    ...(operation.metadata ? { metadata: operation.metadata } : {}),
    ...operatorReferenceOf(operation, side),
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
  const major = (minor: number) => toMajorUnits(minor, entry.currency as Currency)
  return {
    reference: entry.reference,
    operation: entry.operationKind,
    amount: major(entry.amountMinor),
    type: entry.type,
    status: entry.status,
    date: formatTimestamp(entry.createdAtUs),
    currency: entry.currency,
    merchantReference: entry.merchantReference,
    token: entry.token,
    balanceAfter: entry.balanceAfterMinor === null ? null : major(entry.balanceAfterMinor),
  }
}

/** CONTRACT.md, Balance and statements: the CSV statement's columns, in order, each a field of the record. */
export const statementColumns = [
  'reference',
  'date',
  'operation',
  'type',
  'status',
  'amount',
  'currency',
  'balanceAfter',
  'merchantReference',
  'token',
] as const

/** One statement line: the record's values, so the CSV and the JSON list can never disagree. */
export function statementRow(entry: LedgerEntry): unknown[] {
  const record = transactionRecord(entry)
  return statementColumns.map((column) => record[column])
}

/** The event of one status the operation took: `<kind>.<status>`, its record as the details endpoint shows it. */
export function statusEvent(state: Operation): NewEvent {
  const type = `${state.kind}.${state.status}`
  return {
    type,
    callbackUrl: state.urls.callbackUrl,
    render: (id, createdAtUs) =>
      JSON.stringify({
        id,
        type,
        createdAt: formatTimestamp(createdAtUs),
        mode: state.mode,
        data: { [operationKinds[state.kind].dataKey.details]: operationRecord(state) },
      }),
  }
}
