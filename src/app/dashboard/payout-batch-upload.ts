import { parse } from 'csv-parse/sync'
import type { Currency } from '../../domain/money.ts'
import type { Side } from '../../domain/operation.ts'
import { ApiError } from '../../errors.ts'
import type { AppContext } from '../context.ts'
import { priceEachInTurns } from '../price-sides.ts'
import type { Principal } from '../principal.ts'
import { type DashboardRefusal, refusal } from './refusals.ts'

/** The columns of a payout batch's CSV, in this order, named on its first line. */
export const batchColumns = [
  'amount',
  'channel',
  'country',
  'phoneNumber',
  'fullName',
  'merchantReference',
] as const
export type BatchColumn = (typeof batchColumns)[number]

/** A batch has 1 to 1,000 items (CONTRACT.md, Payout batches). */
export const largestUpload = 1_000

/** One line of the file as the member wrote it; `line` is its line in the file (the header is line 1). */
export type UploadedRow = Record<BatchColumn, string> & { line: number }

/** Why a cell is refused: a code the dashboard words itself, or the API's own sentence (`message`). */
export interface RowError {
  field: BatchColumn
  code:
    | 'amount_invalid'
    | 'phone_invalid'
    | 'name_too_long'
    | 'reference_invalid'
    | 'reference_repeated'
    | 'reference_used'
    | 'refused'
  message?: string
}

/** A batch item as the API takes it. */
export interface BatchItemInput {
  amount: number
  channel: string
  country: string
  customer: { phoneNumber: string; fullName?: string }
  merchantReference: string
}

export interface PreviewRow {
  row: UploadedRow
  errors: RowError[]
  /** Present when the row is good: the item, priced. */
  item?: BatchItemInput
  priced?: { currency: Currency; amountMinor: number; feesMinor: number; cashAmountMinor: number }
}

export interface CurrencyTotal {
  currency: Currency
  count: number
  amountMinor: number
  feesMinor: number
  /** What the batch holds on the balance: the items' cashAmounts. */
  cashAmountMinor: number
}

export interface BatchPreview {
  rows: PreviewRow[]
  faulty: number
  totals: CurrencyTotal[]
  /** A batch is of one currency: more than one here is a fault of the file as a whole. */
  mixedCurrencies: boolean
}

/** The API's merchantReference: 1 to 64 characters, none a control, format or separator character. */
const referencePattern =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is refused
  /^[^\u0000-\u001F\u007F-\u009F\u00AD\u200B-\u200F\u2028-\u202E\u2060-\u206F\uFEFF]{1,64}$/u

/**
 * Reads a batch's CSV with a CSV parser (quoted fields, commas and line breaks inside quotes),
 * never by splitting on commas. The first line names the columns, in any order; every column is
 * required and no other is taken.
 */
export function readPayoutCsv(text: string): UploadedRow[] | DashboardRefusal {
  let records: string[][]
  try {
    records = parse(text.replace(/^\uFEFF/, ''), {
      skip_empty_lines: true,
      trim: true,
      relax_column_count: false,
      max_record_size: 4096,
    }) as string[][]
  } catch (error) {
    const line = (error as { lines?: number }).lines
    return refusal('csv_unreadable', { line: Number(line ?? 1) })
  }
  const [header, ...lines] = records
  if (!header) return refusal('csv_empty')
  const names = header.map((name) => name.trim())
  const missing = batchColumns.filter((column) => !names.includes(column))
  const unknown = names.filter((name) => !(batchColumns as readonly string[]).includes(name))
  if (missing.length > 0 || unknown.length > 0)
    return refusal('csv_columns', { expected: batchColumns.join(',') })
  if (lines.length === 0) return refusal('csv_empty')
  if (lines.length > largestUpload)
    return refusal('csv_too_many_rows', { rows: lines.length, largest: largestUpload })
  return lines.map((cells, index) => {
    const row = { line: index + 2 } as UploadedRow
    for (const column of batchColumns) row[column] = cells[names.indexOf(column)] ?? ''
    return row
  })
}

/**
 * Each row checked as the API checks a disbursement (its fields, then its pricing against the
 * catalogue and the merchant's fees in this mode), references checked for repeats in the file
 * and among the merchant's disbursements, and the totals of the good rows per currency. The rows
 * are priced in one pass (a chunk a turn of the process's long work) and their references looked
 * up together: no read per row.
 */
export async function previewPayoutBatch(
  context: AppContext,
  principal: Principal,
  rows: readonly UploadedRow[],
): Promise<BatchPreview> {
  const seen = new Map<string, number>()
  for (const { merchantReference } of rows)
    seen.set(merchantReference, (seen.get(merchantReference) ?? 0) + 1)
  const checked = rows.map((row) => {
    const errors = fieldErrorsOf(row)
    if ((seen.get(row.merchantReference) ?? 0) > 1)
      errors.push({ field: 'merchantReference', code: 'reference_repeated' })
    return { row, errors }
  })
  const items = checked.filter(({ errors }) => errors.length === 0).map(({ row }) => itemOf(row))
  const [priced, used] = await Promise.all([
    priceEachInTurns(context, principal, 'disbursement', items as unknown as Record<string, unknown>[]),
    context.store.operations.takenReferences(
      principal.merchantId,
      principal.mode,
      'disbursement',
      items.map((item) => item.merchantReference),
    ),
  ])
  let next = 0
  const previews = checked.map(({ row, errors }): PreviewRow => {
    if (errors.length > 0) return { row, errors }
    const index = next++
    return previewRow(row, items[index]!, priced[index]!, used)
  })
  const totals = totalsOf(previews)
  return {
    rows: previews,
    faulty: previews.filter((row) => row.errors.length > 0).length,
    totals,
    mixedCurrencies: totals.length > 1,
  }
}

function previewRow(
  row: UploadedRow,
  item: BatchItemInput,
  priced: Side[] | ApiError,
  used: ReadonlySet<string>,
): PreviewRow {
  if (priced instanceof ApiError) {
    if (priced.status >= 500) throw priced
    return { row, errors: apiErrorsOf(priced) }
  }
  if (used.has(item.merchantReference))
    return { row, errors: [{ field: 'merchantReference', code: 'reference_used' }] }
  const [side] = priced
  if (!side) return { row, errors: [{ field: 'amount', code: 'refused' }] }
  const { currency, amountMinor, feesMinor, cashAmountMinor } = side
  return { row, errors: [], item, priced: { currency, amountMinor, feesMinor, cashAmountMinor } }
}

/** The checks the API's request schema makes, on text: the CSV has no types. */
function fieldErrorsOf(row: UploadedRow): RowError[] {
  const errors: RowError[] = []
  if (!/^[0-9]+(\.[0-9]+)?$/.test(row.amount) || Number(row.amount) <= 0)
    errors.push({ field: 'amount', code: 'amount_invalid' })
  if (!/^\+?[0-9]{8,15}$/.test(phoneOf(row))) errors.push({ field: 'phoneNumber', code: 'phone_invalid' })
  if (row.fullName.length > 100) errors.push({ field: 'fullName', code: 'name_too_long' })
  if (!referencePattern.test(row.merchantReference))
    errors.push({ field: 'merchantReference', code: 'reference_invalid' })
  return errors
}

/** Spreadsheets write phone numbers with spaces, dots, dashes or brackets: the digits and a leading + are kept. */
function phoneOf(row: UploadedRow): string {
  return row.phoneNumber.replace(/[\s.()-]/g, '')
}

export function itemOf(row: UploadedRow): BatchItemInput {
  return {
    amount: Number(row.amount),
    channel: row.channel,
    country: row.country.toUpperCase(),
    customer: { phoneNumber: phoneOf(row), ...(row.fullName ? { fullName: row.fullName } : {}) },
    merchantReference: row.merchantReference,
  }
}

/** The API's field errors put back on the CSV's columns. */
function apiErrorsOf(error: ApiError): RowError[] {
  const fields = error.errors ?? []
  const column = (field: string): BatchColumn => {
    if (field.endsWith('phoneNumber')) return 'phoneNumber'
    if (field.endsWith('fullName')) return 'fullName'
    return (batchColumns as readonly string[]).includes(field) ? (field as BatchColumn) : 'amount'
  }
  if (fields.length === 0) return [{ field: 'amount', code: 'refused', message: error.message }]
  return fields.map((field) => ({ field: column(field.field), code: 'refused', message: field.message }))
}

function totalsOf(rows: readonly PreviewRow[]): CurrencyTotal[] {
  const totals = new Map<Currency, CurrencyTotal>()
  for (const { priced } of rows) {
    if (!priced) continue
    const total = totals.get(priced.currency) ?? {
      currency: priced.currency,
      count: 0,
      amountMinor: 0,
      feesMinor: 0,
      cashAmountMinor: 0,
    }
    total.count += 1
    total.amountMinor += priced.amountMinor
    total.feesMinor += priced.feesMinor
    total.cashAmountMinor += priced.cashAmountMinor
    totals.set(priced.currency, total)
  }
  return [...totals.values()]
}
