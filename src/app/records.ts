import { formatTimestamp } from '../domain/clock.ts'
import { isSingleSided, operationKinds, refundedKindOf } from '../domain/kinds.ts'
import { type Currency, toMajorUnits } from '../domain/money.ts'
import type { Customer, Operation, Side } from '../domain/operation.ts'
import { milliToPercentage } from '../domain/pricing.ts'
import type { LedgerEntry } from '../store/repositories/ledger.ts'
import type { NewEvent } from '../store/repositories/outbox.ts'

/**
 * The published record shapes (spec: Operation, Transfer and Transaction records), plus
 * CONTRACT.md's additive fields. A single-sided kind's record is flat; a kind with named sides
 * nests each side under its role: the shape follows from the kinds table.
 *
 * Records are built field by field in their published order, never by spreading partial objects:
 * V8 copies spread objects through its slow paths, and every read and callback renders a record
 * (callbacks render the same record, in this key order).
 */
export function operationRecord(operation: Operation): Record<string, unknown> {
  const refundedKind = refundedKindOf(operation.kind)
  if (refundedKind) return refundRecord(operation, refundedKind)
  const record: Record<string, unknown> = {
    operation: operation.kind,
    token: operation.token,
    status: operation.status,
  }
  if (operation.redirectUrl) record.redirectUrl = operation.redirectUrl
  if (!isSingleSided(operation.kind)) {
    for (const side of operation.sides) {
      const nested: Record<string, unknown> = {}
      addSideFields(nested, side, true)
      addOperatorReference(nested, operation, side)
      record[side.role] = nested
    }
    addClosingFields(record, operation)
    return record
  }
  const side = operation.sides[0]!
  addSideFields(record, side, false)
  addClosingFields(record, operation)
  record.channel = side.channel
  record.country = side.country
  addOperatorReference(record, operation, side)
  if (side.batch) record.batch = side.batch.token
  return record
}

/**
 * CONTRACT.md, Operators: a live side's id at its operator, for the merchant to quote to it: the
 * operator's transaction id once it gave one, the reference Sika submitted it under before that.
 */
function addOperatorReference(record: Record<string, unknown>, operation: Operation, side: Side): void {
  if (operation.mode !== 'live') return
  const reference = side.providerReference ?? side.operatorReference
  if (reference) record.operatorReference = reference
}

function addClosingFields(record: Record<string, unknown>, operation: Operation): void {
  record.merchantReference = operation.merchantReference
  record.initiationDate = formatTimestamp(operation.initiatedAtUs)
  record.currency = operation.currency
  addOutcomeFields(record, operation)
  if (operation.refunds)
    record.refundedAmount = toMajorUnits(operation.refunds.refundedMinor, operation.currency)
  if (operation.metadata) record.metadata = operation.metadata
  if (operation.paymentLink) record.paymentLink = operation.paymentLink
}

/** CONTRACT.md, Statuses: failureReason on failed, canceled and error; completionDate once final. */
function addOutcomeFields(record: Record<string, unknown>, operation: Operation): void {
  if (operation.failure) record.failureReason = operation.failure
  if (operation.completedAtUs !== null) record.completionDate = formatTimestamp(operation.completedAtUs)
}

/**
 * CONTRACT.md, Refunds: the refunded operation's token under its kind's name, the customer paid
 * back, and the additive fields of operations. A refund carries no fee, so no pricing.
 */
function refundRecord(operation: Operation, refundedKind: string): Record<string, unknown> {
  const side = operation.sides[0]!
  const record: Record<string, unknown> = {
    operation: operation.kind,
    token: operation.token,
    status: operation.status,
    amount: toMajorUnits(side.amountMinor, side.currency),
    currency: operation.currency,
  }
  // A customer refund names the transfer it pays a customer of back; a refund, the collect it refunds.
  record[side.refundedPayment?.kind ?? refundedKind] = operation.refundOf?.token ?? null
  record.customer = customerRecord(side)
  record.merchantReference = operation.merchantReference
  record.initiationDate = formatTimestamp(operation.initiatedAtUs)
  addOutcomeFields(record, operation)
  record.channel = side.channel
  record.country = side.country
  if (operation.metadata) record.metadata = operation.metadata
  addOperatorReference(record, operation, side)
  return record
}

function addSideFields(record: Record<string, unknown>, side: Side, withSideDetails: boolean): void {
  const major = (minor: number) => toMajorUnits(minor, side.currency)
  record.amount = major(side.amountMinor)
  record.pricing = {
    percentageFee: milliToPercentage(side.percentageMilli),
    additionalFee: major(side.additionalFeeMinor),
    feesAmount: major(side.feesMinor),
    supportedByAccount: side.supportedByAccount,
  }
  record.cashAmount = major(side.cashAmountMinor)
  record.transactionAmount = major(side.transactionAmountMinor)
  record.customer = customerRecord(side)
  if (!withSideDetails) return
  record.channel = side.channel
  record.country = side.country
  record.currency = side.currency
  record.status = side.status
  if (side.failure) record.failureReason = side.failure
}

function customerRecord(side: Side): Customer {
  const { fullName, phoneNumber, email } = side.customer
  return { fullName, phoneNumber, email }
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
