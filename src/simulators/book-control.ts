import { fromUnits, toUnits } from './decimal-units.ts'
import { type Exchange, queryOf, sendText } from './http-io.ts'
import type { BookLine, LineDirection, NewLine, WalletBook } from './wallet-book.ts'

/**
 * The control paths every simulator with books has (/_simulator/books/...), not part of any
 * operator's API: they show the books, set an account's float, fill a day with lines, and make
 * each break of the reconciliation (CONTRACT.md, Reconciliation) on purpose.
 *
 *   GET  /_simulator/books                  each account: its balance and how many lines it has
 *   POST /_simulator/books/opening          {"amount": "1000000", "account"?}: the account's float
 *   POST /_simulator/books/seed             {"count": 100000, "date": "2026-11-20", "account"?, …}:
 *        that many lines spread over the UTC day, as a busy day would leave (they exist only in
 *        the books: a status check does not know them)
 *   POST /_simulator/books/breaks           {"kind", "payment"?, "amount"?, "direction"?, "account"?}:
 *        unknown-line    a line Sika never asked for: money moved for a reference it does not have
 *        missing-line    the payment's line is left out, and its money with it
 *        other-amount    the payment's line says `amount` instead
 *        duplicate       the payment's line is there twice, and so is its money
 *        silent-success  the payment succeeds at the operator and no notification is ever sent
 *        balance-drift   the balance moves by `amount` (`direction` in or out) with no line to show it
 *   GET  /_simulator/books/export?date=YYYY-MM-DD&account=
 *        the account's listed lines of that UTC day as the CSV a portal would export, in the
 *        columns docs/guide/reconciliation.md documents (only a simulator whose operator has a
 *        portal export and no statement API: MTN MoMo)
 */
export const booksPath = 'books'

/** What one simulator lends the shared paths: its accounts, and how its lines look. */
export interface BookKeeper<Detail> {
  /** Every account by its name, the first being the one used when a request names none. */
  accounts(): ReadonlyMap<string, WalletBook<Detail>>
  /** The account holding a payment's line, if the payment has moved money. */
  accountOf(paymentId: string): WalletBook<Detail> | undefined
  /**
   * A line of `account` for money that moved for a reference Sika never gave (a new random id);
   * `request` is the control request, for what a simulator lets it choose (pawaPay's provider).
   */
  strangerLine(
    account: string,
    amountUnits: bigint,
    direction: LineDirection,
    atMs: number,
    request: Readonly<Record<string, unknown>>,
  ): NewLine<Detail>
  /** The `index`-th line of a seeded day of `account`, at `atMs`: an ordinary payment, in or out. */
  seededLine(
    account: string,
    index: number,
    atMs: number,
    request: Readonly<Record<string, unknown>>,
  ): NewLine<Detail>
  /** Another line id for the copy of a line (a duplicate keeps the payment, not the line id). */
  copyLineId(line: BookLine<Detail>): string
  /**
   * A listed line as a row of the operator portal's export, by column; absent when the
   * operator's reconciliation reads a statement API instead.
   */
  exportRow?(account: string, line: BookLine<Detail>): Record<string, string>
  /** Succeeds the payment without its notification; false when the operator does not hold it. */
  succeedSilently(paymentId: string): boolean
  sendJson(exchange: Exchange, status: number, body: unknown): void
}

type Body = Record<string, unknown>

const breakKinds = [
  'unknown-line',
  'missing-line',
  'other-amount',
  'duplicate',
  'silent-success',
  'balance-drift',
] as const
type BreakKind = (typeof breakKinds)[number]

function parseBody(text: string): Body | undefined {
  try {
    const parsed: unknown = JSON.parse(text === '' ? '{}' : text)
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Body)
      : undefined
  } catch {
    return undefined
  }
}

const isDecimal = (value: unknown): value is string =>
  typeof value === 'string' && /^\d+(\.\d{1,4})?$/.test(value) && Number(value) > 0

function describe<Detail>(line: BookLine<Detail>) {
  return {
    lineId: line.lineId,
    payment: line.paymentId,
    at: new Date(line.atMs).toISOString(),
    direction: line.direction,
    amount: fromUnits(line.amountUnits),
    fee: fromUnits(line.feeUnits),
    listed: line.listed,
    counted: line.counted,
  }
}

/** The account a request names, or the first; undefined when it names none there is. */
function bookNamed<Detail>(keeper: BookKeeper<Detail>, account: unknown) {
  const accounts = [...keeper.accounts()]
  const found = account === undefined ? accounts[0] : accounts.find(([name]) => name === account)
  return found === undefined ? undefined : { name: found[0], book: found[1] }
}

/** Applies one break to the books; the lines it made or changed, or why it could not. */
function applyBreak<Detail>(
  keeper: BookKeeper<Detail>,
  kind: BreakKind,
  body: Body,
): { status: number; lines?: BookLine<Detail>[]; error?: string } {
  const direction: LineDirection = body.direction === 'out' ? 'out' : 'in'
  if (kind === 'unknown-line' || kind === 'balance-drift') {
    const named = bookNamed(keeper, body.account)
    if (named === undefined) return { status: 404, error: 'No such account' }
    if (!isDecimal(body.amount)) return { status: 400, error: 'Expected "amount": a positive decimal string' }
    const amountUnits = toUnits(body.amount)
    const book = named.book
    const line =
      kind === 'unknown-line'
        ? keeper.strangerLine(named.name, amountUnits, direction, Date.now(), body)
        : {
            lineId: `drift-${Date.now()}`,
            paymentId: undefined,
            atMs: Date.now(),
            direction,
            amountUnits,
            feeUnits: 0n,
            detail: undefined,
            listed: false,
          }
    return { status: 200, lines: [book.record(line)] }
  }
  const payment = typeof body.payment === 'string' ? body.payment : undefined
  if (payment === undefined) return { status: 400, error: 'Expected "payment": the payment\u2019s id' }
  if (kind === 'silent-success')
    return keeper.succeedSilently(payment)
      ? { status: 200, lines: [] }
      : { status: 404, error: 'No such payment' }
  const book = keeper.accountOf(payment)
  const [line] = book?.linesOf(payment) ?? []
  if (book === undefined || line === undefined)
    return { status: 404, error: 'No line of that payment in the books' }
  if (kind === 'duplicate')
    return { status: 200, lines: [book.record({ ...line, lineId: keeper.copyLineId(line) })] }
  if (kind === 'missing-line') {
    for (const each of book.linesOf(payment)) Object.assign(each, { listed: false, counted: false })
  } else {
    if (!isDecimal(body.amount)) return { status: 400, error: 'Expected "amount": a positive decimal string' }
    line.amountUnits = toUnits(body.amount)
  }
  book.changed()
  return { status: 200, lines: book.linesOf(payment) }
}

function seed<Detail>(keeper: BookKeeper<Detail>, body: Body): { status: number; body: unknown } {
  const named = bookNamed(keeper, body.account)
  const count = body.count
  const day =
    typeof body.date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(body.date)
      ? Date.parse(`${body.date}T00:00:00Z`)
      : Number.NaN
  if (named === undefined) return { status: 404, body: { error: 'No such account' } }
  if (
    typeof count !== 'number' ||
    !Number.isInteger(count) ||
    count < 1 ||
    count > 1_000_000 ||
    Number.isNaN(day)
  )
    return {
      status: 400,
      body: { error: 'Expected {"count": 1 to 1000000, "date": "YYYY-MM-DD", "account"?}' },
    }
  const spacingMs = 86_400_000 / count
  const { name, book } = named
  for (let index = 0; index < count; index++)
    book.record(keeper.seededLine(name, index, day + Math.floor(index * spacingMs), body))
  return { status: 200, body: { seeded: count, balance: fromUnits(book.balanceUnits()) } }
}

const csvCell = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value)

/** The listed lines of one UTC day as a portal's CSV export, or the reason there is none. */
function exportDay<Detail>(
  keeper: BookKeeper<Detail>,
  query: URLSearchParams,
): { status: number; csv?: string; error?: string } {
  const named = bookNamed(keeper, query.get('account') ?? undefined)
  const date = query.get('date') ?? ''
  const startMs = /^\d{4}-\d{2}-\d{2}$/.test(date) ? Date.parse(`${date}T00:00:00Z`) : Number.NaN
  if (keeper.exportRow === undefined) return { status: 404, error: 'This operator has no portal export' }
  if (named === undefined) return { status: 404, error: 'No such account' }
  if (Number.isNaN(startMs)) return { status: 400, error: 'Expected ?date=YYYY-MM-DD' }
  const rows = named.book
    .listedBetween(startMs, startMs + 86_400_000)
    .map(({ line }) => keeper.exportRow!(named.name, line))
  const columns = Object.keys(rows[0] ?? {})
  const text = [columns, ...rows.map((row) => columns.map((column) => row[column] ?? ''))]
    .map((cells) => cells.map(csvCell).join(','))
    .join('\r\n')
  return { status: 200, csv: `${text}\r\n` }
}

/** Answers /_simulator/books/...; false when the path is none of them. */
export function answerBookControl<Detail>(
  exchange: Exchange,
  name: string,
  rest: readonly string[],
  keeper: BookKeeper<Detail>,
): boolean {
  if (name !== booksPath) return false
  const method = exchange.request.method ?? 'GET'
  const [action] = rest
  if (action === undefined && method === 'GET') {
    const account = queryOf(exchange.request.url).get('account')
    const accounts = [...keeper.accounts()]
      .filter(([named]) => account === null || named === account)
      .map(([named, book]) => ({
        account: named,
        balance: fromUnits(book.balanceUnits()),
        lines: book.listedBetween(0, Number.MAX_SAFE_INTEGER).length,
      }))
    keeper.sendJson(exchange, 200, accounts)
    return true
  }
  if (action === 'export' && rest.length === 1 && method === 'GET') {
    const exported = exportDay(keeper, queryOf(exchange.request.url))
    if (exported.csv === undefined) keeper.sendJson(exchange, exported.status, { error: exported.error })
    else sendText(exchange.response, 200, { 'content-type': 'text/csv; charset=utf-8' }, exported.csv)
    return true
  }
  const body = method === 'POST' ? parseBody(exchange.body) : undefined
  if (body === undefined || rest.length !== 1) {
    keeper.sendJson(exchange, method === 'POST' ? 400 : 404, {
      error: `Unknown control path ${exchange.path}, or a body that is no JSON object`,
    })
    return true
  }
  if (action === 'opening') {
    const book = bookNamed(keeper, body.account)?.book
    if (book === undefined) keeper.sendJson(exchange, 404, { error: 'No such account' })
    else if (typeof body.amount !== 'string' || !/^-?\d+(\.\d{1,4})?$/.test(body.amount))
      keeper.sendJson(exchange, 400, { error: 'Expected {"amount": "1000000", "account"?}' })
    else {
      book.setOpening(toUnits(body.amount))
      keeper.sendJson(exchange, 200, { balance: fromUnits(book.balanceUnits()) })
    }
  } else if (action === 'seed') {
    const answer = seed(keeper, body)
    keeper.sendJson(exchange, answer.status, answer.body)
  } else if (action === 'breaks' && breakKinds.includes(body.kind as BreakKind)) {
    const applied = applyBreak(keeper, body.kind as BreakKind, body)
    keeper.sendJson(
      exchange,
      applied.status,
      applied.error === undefined
        ? { kind: body.kind, lines: applied.lines?.map(describe) }
        : { error: applied.error },
    )
  } else keeper.sendJson(exchange, 400, { error: `Expected {"kind": ${breakKinds.join('|')}, …}` })
  return true
}
