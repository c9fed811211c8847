import type { Direction } from '../../domain/kinds.ts'
import { type Currency, countries, isCountry } from '../../domain/money.ts'
import type {
  OperatorBalance,
  OperatorLine,
  OperatorLineKind,
  OperatorLineStatus,
  StatementWindow,
} from '../../domain/operator-lines.ts'
import { instantUsOf, minorUnitsOf, sikaCurrencyOf } from '../operator-amounts.ts'
import { sideOfClientReference } from '../side-reference.ts'

/**
 * pawaPay's finances in Sika's terms (docs.pawapay.io/v2/api-reference/finances; the simulator's
 * SOURCES.md, "Wallets and statements", names the page behind each line): the wallets of the
 * connection's countries, their balances, and each row of a statement's CSV as an operator line.
 */

/** ISO 3166-1 alpha-3 of the countries Sika serves: pawaPay names wallets and countries by it. */
const alpha3: Readonly<Record<keyof typeof countries, string>> = {
  BJ: 'BEN',
  BF: 'BFA',
  CI: 'CIV',
  GW: 'GNB',
  ML: 'MLI',
  NE: 'NER',
  SN: 'SEN',
  TG: 'TGO',
  CM: 'CMR',
  CF: 'CAF',
  TD: 'TCD',
  CG: 'COG',
  GQ: 'GNQ',
  GA: 'GAB',
  GH: 'GHA',
  KE: 'KEN',
  UG: 'UGA',
}

/** A wallet of the connection: pawaPay's country (alpha-3) and currency, and its provider when it is a provider's own. */
export interface PawapayWallet {
  readonly country: string
  readonly currency: Currency
  readonly provider: string
  /** Its name in Sika: `BEN/XOF`, or `BEN/XOF/MOOV_BEN` for a provider's own wallet. */
  readonly account: string
  /** The connection's provider codes in the wallet's country: only their lines are the connection's. */
  readonly providers: readonly string[]
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The wallets of `GET /v2/wallet-balances` that belong to the connection: in one of its countries,
 * in that country's currency, and either the country's wallet (no provider) or the own wallet of
 * one of the connection's providers ("If the response includes a not empty provider, it should be
 * passed into the request as well", the Statements page). Each with its balance, as read.
 */
export function walletsOf(
  body: unknown,
  providers: Readonly<Record<string, string>>,
): { wallet: PawapayWallet; balance: OperatorBalance | undefined }[] {
  const entries = isObject(body) && Array.isArray(body.balances) ? body.balances.filter(isObject) : []
  return Object.entries(providers).flatMap(([country, code]) => {
    if (!isCountry(country)) return []
    const currency = countries[country]
    return entries
      .filter((entry) => entry.country === alpha3[country] && entry.currency === currency)
      .filter((entry) => !entry.provider || entry.provider === code)
      .map((entry) => {
        const provider = typeof entry.provider === 'string' ? entry.provider : ''
        const account = [alpha3[country], currency, ...(provider ? [provider] : [])].join('/')
        const wallet = { country: alpha3[country], currency, provider, account, providers: [code] }
        const balanceMinor = minorUnitsOf(entry.balance, currency)
        const balance =
          balanceMinor === undefined ? undefined : { account, currency, balanceMinor, raw: entry }
        return { wallet, balance }
      })
  })
}

/** pawaPay's date-times as its examples write them: UTC, to the second, without a zone. */
const dateTime = (ms: number) => new Date(ms).toISOString().slice(0, 19)

/** The longest range one statement covers (the Statements page). */
export const largestStatementRangeUs = 31 * 86_400_000 * 1000

/** POST /v2/statements: the wallet, the window to the second (its end rounded up), and where the callback goes. */
export function statementBody(
  wallet: PawapayWallet,
  window: StatementWindow,
  callbackUrl: string,
  compressed: boolean,
): Record<string, unknown> {
  return {
    wallet: {
      country: wallet.country,
      currency: wallet.currency,
      ...(wallet.provider ? { provider: wallet.provider } : {}),
    },
    callbackUrl,
    startDate: dateTime(Math.floor(window.startAtUs / 1_000_000) * 1000),
    endDate: dateTime(Math.ceil(window.endAtUs / 1_000_000) * 1000),
    compressed,
  }
}

/** `failureReason: {failureCode, failureMessage}` in a sentence's parentheses, or ''. */
export function failureOf(body: unknown): string {
  const reason = isObject(body) && isObject(body.failureReason) ? body.failureReason : {}
  const said = [reason.failureCode, reason.failureMessage].filter((part) => typeof part === 'string')
  return said.length === 0 ? '' : ` (${said.join(': ')})`
}

/** A statement's state from its status check (`{status: FOUND, data}`) or its initiation. */
export interface StatementState {
  readonly status: string
  readonly downloadUrl: string | undefined
}

export function statementStateOf(body: unknown): StatementState | undefined {
  const data = isObject(body) && body.status === 'FOUND' && isObject(body.data) ? body.data : undefined
  if (data === undefined || typeof data.status !== 'string') return undefined
  return {
    status: data.status,
    downloadUrl: typeof data.downloadUrl === 'string' ? data.downloadUrl : undefined,
  }
}

/**
 * The columns read, by the names pawaPay's Dashboard docs give a statement's columns, then the
 * names a pawaPay-staff kit gives them ("the schema can evolve"), in any case.
 */
const columnNames = {
  id: ['transaction id'],
  type: ['type', 'transaction type'],
  status: ['status'],
  amount: ['amount'],
  fee: ['fee'],
  net: ['net amount'],
  balance: ['balance', 'balance after'],
  currency: ['currency'],
  created: ['creation date', 'created at'],
  completed: ['completed at'],
  provider: ['mno', 'provider'],
  clientReference: ['client reference', 'client reference id'],
  providerTransactionId: ['provider transaction id', 'financial transaction id'],
} as const

export type Column = keyof typeof columnNames

/** Where each column is in a file: its header as written, for the names the file uses. */
export function columnsOf(header: readonly string[]): Partial<Record<Column, string>> {
  const found: Partial<Record<Column, string>> = {}
  for (const [column, names] of Object.entries(columnNames) as [Column, readonly string[]][]) {
    const name = header.find((candidate) => names.includes(candidate.trim().toLowerCase()))
    if (name !== undefined) found[column] = name
  }
  return found
}

/**
 * A row's type (Dashboard docs: Deposits, Payouts, Refunds, Remittances, Fees, Withdrawals, Top
 * ups, Adjustments, Compensations): a customer's payment, or the account's own movement, which
 * no side explains. A type not here is taken for a payment, so that money moved for a reason Sika
 * does not know is seen, never counted as a fee.
 */
const types: Readonly<Record<string, { kind: OperatorLineKind; direction?: Direction }>> = {
  DEPOSIT: { kind: 'payment', direction: 'cash-in' },
  PAYOUT: { kind: 'payment', direction: 'cash-out' },
  REFUND: { kind: 'payment', direction: 'cash-out' },
  REMITTANCE: { kind: 'payment', direction: 'cash-out' },
  FEE: { kind: 'other', direction: 'cash-out' },
  WITHDRAWAL: { kind: 'other', direction: 'cash-out' },
  TOPUP: { kind: 'other', direction: 'cash-in' },
  TOP_UP: { kind: 'other', direction: 'cash-in' },
  ADJUSTMENT: { kind: 'other' },
  COMPENSATION: { kind: 'other' },
}

/**
 * A row's status (PP-KIT statements.md: "COMPLETED, FAILED, etc."; the payment statuses of
 * D-STATUS): COMPLETED moved the money, FAILED did not; anything else is pending, never taken
 * for a success.
 */
const statuses: Readonly<Record<string, OperatorLineStatus>> = {
  COMPLETED: 'succeeded',
  FAILED: 'failed',
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A row read: its line, and whether it is another connection's (a provider of the wallet not this connection's). */
export type ReadRow = { line: OperatorLine; excluded: boolean } | { problem: string }

/**
 * One row as a line of `wallet`. `Amount` is what moved with the customer, `Fee` what pawaPay
 * kept, `Net Amount` (signed) what the wallet gained or lost, `Balance` the wallet after it. The
 * side is named by `Transaction ID` (the depositId, payoutId or refundId Sika chose), `Client
 * Reference` (Sika's `<token>.<role>`) and `Provider Transaction ID` (what Sika keeps as the
 * side's providerReference).
 */
export function lineOfRow(
  row: Readonly<Record<string, string>>,
  columns: Partial<Record<Column, string>>,
  wallet: PawapayWallet,
): ReadRow {
  const cell = (column: Column) => {
    const value = columns[column] === undefined ? undefined : row[columns[column]!]?.trim()
    return value === '' ? undefined : value
  }
  const currency = cell('currency') === undefined ? wallet.currency : sikaCurrencyOf(cell('currency'))
  if (currency === undefined) return { problem: 'The row is in a currency Sika does not hold.' }
  const id = cell('id')
  if (id === undefined) return { problem: 'The row has no Transaction ID.' }
  const amount = minorUnitsOf(cell('amount'), currency)
  const fee = cell('fee') === undefined ? 0 : minorUnitsOf(cell('fee'), currency)
  const net = cell('net') === undefined ? undefined : minorUnitsOf(cell('net'), currency)
  if (amount === undefined || fee === undefined || (cell('net') !== undefined && net === undefined))
    return { problem: `The row's Amount, Fee or Net Amount is no amount of ${currency}.` }
  const atUs = instantUsOf(cell('completed') ?? cell('created'))
  if (atUs === undefined) return { problem: 'The row has no readable Completed At or Creation Date.' }
  const type = types[(cell('type') ?? '').toUpperCase().replaceAll(' ', '_')] ?? { kind: 'payment' as const }
  const status = statuses[(cell('status') ?? 'COMPLETED').toUpperCase()] ?? 'pending'
  const signed = net ?? amount
  const direction: Direction = type.direction ?? (signed < 0 ? 'cash-out' : 'cash-in')
  const effect =
    net ??
    (status !== 'succeeded'
      ? 0
      : direction === 'cash-in'
        ? Math.abs(amount) - Math.abs(fee)
        : -Math.abs(amount) - Math.abs(fee))
  const balance = cell('balance') === undefined ? undefined : minorUnitsOf(cell('balance'), currency)
  const side = sideOfClientReference(cell('clientReference'))
  const providerReference = cell('providerTransactionId')
  const payment = type.kind === 'payment'
  const line: OperatorLine = {
    account: wallet.account,
    lineId: id,
    kind: type.kind,
    references: payment
      ? {
          operatorReference: uuid.test(id) ? id.toLowerCase() : id,
          ...(providerReference ? { providerReference } : {}),
          ...(side ? { side } : {}),
        }
      : {},
    direction,
    amountMinor: Math.abs(amount),
    feeMinor: Math.abs(fee),
    balanceEffectMinor: effect,
    currency,
    status,
    atUs,
    ...(balance === undefined ? {} : { balanceAfterMinor: balance }),
    raw: row,
  }
  const provider = cell('provider')
  return { line, excluded: provider !== undefined && !wallet.providers.includes(provider) }
}
