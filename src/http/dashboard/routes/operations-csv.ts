import { formatTimestamp } from '../../../domain/clock.ts'
import { type Currency, toMajorUnits } from '../../../domain/money.ts'
import type { Operation } from '../../../domain/operation.ts'

/** The operations CSV: a row per operation, both sides of a transfer, amounts in major units. */
export const csvColumns = [
  'initiatedAt',
  'token',
  'kind',
  'status',
  'amount',
  'currency',
  'fees',
  'channel',
  'country',
  'phoneNumber',
  'fullName',
  'toChannel',
  'toCountry',
  'toPhoneNumber',
  'toFullName',
  'merchantReference',
  'completedAt',
  'failureCode',
] as const

export function csvRow(operation: Operation): unknown[] {
  const [first, second] = operation.sides
  const major = (minor: number | undefined) =>
    minor === undefined ? '' : toMajorUnits(minor, operation.currency as Currency)
  return [
    formatTimestamp(operation.initiatedAtUs),
    operation.token,
    operation.kind,
    operation.status,
    major(first?.amountMinor),
    operation.currency,
    major(first?.feesMinor),
    first?.channel,
    first?.country,
    first?.customer.phoneNumber,
    first?.customer.fullName,
    second?.channel,
    second?.country,
    second?.customer.phoneNumber,
    second?.customer.fullName,
    operation.merchantReference,
    operation.completedAtUs === null ? '' : formatTimestamp(operation.completedAtUs),
    operation.failure?.code,
  ]
}
