import { fromUnitsWithDecimals } from '../decimal-units.ts'
import { effectUnits, type StatementEntry } from '../wallet-book.ts'
import type { WalletLine } from './wallets.ts'

/**
 * A statement's file: one row per line of the wallet in the window, oldest first. The columns
 * are those pawaPay's Dashboard docs name for statements, in their order (Creation Date, MSISDN,
 * Transaction ID, Amount, Currency, Country, MNO, Type), then the ones a pawaPay-staff kit names
 * (Status, Fee, Net Amount, Client Reference, Completed At, Provider Transaction ID) and the
 * running Balance, which no published source names (SOURCES.md, "Wallets and statements").
 */
export const statementColumns = [
  'Creation Date',
  'MSISDN',
  'Transaction ID',
  'Amount',
  'Currency',
  'Country',
  'MNO',
  'Type',
  'Status',
  'Fee',
  'Net Amount',
  'Balance',
  'Client Reference',
  'Completed At',
  'Provider Transaction ID',
] as const

/** RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled. */
function field(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value
}

const timestamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')

/** Amounts as pawaPay reads them back: two decimals (`"5000.00"`), signed where money left. */
const amount = (units: bigint) => fromUnitsWithDecimals(units, 2)

function row(currency: string, { line, balanceAfterUnits }: StatementEntry<WalletLine>): string {
  const detail = line.detail
  const cells: string[] = [
    detail?.created ?? timestamp(line.atMs),
    detail?.msisdn ?? '',
    detail?.transactionId ?? line.lineId,
    amount(line.amountUnits),
    currency,
    detail?.country ?? '',
    detail?.provider ?? '',
    detail?.type ?? '',
    detail?.status ?? 'COMPLETED',
    amount(line.feeUnits),
    amount(effectUnits(line)),
    amount(balanceAfterUnits),
    detail?.clientReferenceId ?? '',
    timestamp(line.atMs),
    detail?.providerTransactionId ?? '',
  ]
  return cells.map(field).join(',')
}

/** The whole CSV, with its header row, lines ending CRLF as RFC 4180 has them. */
export function statementCsv(currency: string, entries: readonly StatementEntry<WalletLine>[]): string {
  const rows = [statementColumns.join(','), ...entries.map((entry) => row(currency, entry))]
  return `${rows.join('\r\n')}\r\n`
}
