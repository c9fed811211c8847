import { fromUnits } from '../decimal-units.ts'
import { effectUnits, type StatementEntry } from '../wallet-book.ts'
import { refusals } from './errors.ts'
import { queryOf, sendJson } from './http-io.ts'
import { waveTimestamp } from './ids.ts'
import { refuse } from './respond.ts'
import type { Exchange, SimulatorState } from './state.ts'
import { type WalletLine, walletCurrency } from './wallet.ts'

/**
 * The Balance & Reconciliation API (docs.wave.com/balance-api; SOURCES.md, "Balance and
 * transactions"): the wallet's balance, and its transactions of one day, page after page.
 */

/** GET /v1/balance → `{amount, currency}`. */
export function getBalance(state: SimulatorState, { response }: Exchange) {
  sendJson(response, 200, {
    amount: fromUnits(state.wallet.balanceUnits()),
    currency: walletCurrency(state.config),
  })
}

const dayMs = 86_400_000

/** A page's cursor: opaque to the client, the day and the last line's place for the simulator. */
interface Cursor {
  readonly date: string
  readonly atMs: number
  readonly sequence: number
}

const encodeCursor = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url')

function decodeCursor(text: string, date: string): Cursor | undefined {
  try {
    const cursor = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Partial<Cursor>
    const valid =
      cursor.date === date && Number.isSafeInteger(cursor.atMs) && Number.isSafeInteger(cursor.sequence)
    return valid ? (cursor as Cursor) : undefined
  } catch {
    return undefined
  }
}

/** The day a query names (YYYY-MM-DD, UTC), today's without one; undefined when it is no date. */
function dayOf(query: URLSearchParams): string | undefined {
  const date = query.get('date') ?? new Date().toISOString().slice(0, 10)
  const valid =
    /^\d{4}-\d{2}-\d{2}$/.test(date) && new Date(`${date}T00:00:00Z`).toISOString().startsWith(date)
  return valid ? date : undefined
}

/** A transaction item: fields with no value left out, `amount` what it changed on the wallet. */
function itemView(state: SimulatorState, { line, balanceAfterUnits }: StatementEntry<WalletLine>) {
  const detail: Partial<WalletLine> = line.detail ?? {}
  const item: Record<string, unknown> = {
    timestamp: waveTimestamp(line.atMs),
    transaction_id: line.lineId,
    transaction_type: detail.transactionType,
    amount: fromUnits(effectUnits(line)),
    fee: fromUnits(line.feeUnits),
    currency: walletCurrency(state.config),
    balance: fromUnits(balanceAfterUnits),
    counterparty_name: detail.counterpartyName,
    counterparty_mobile: detail.counterpartyMobile,
    client_reference: detail.clientReference,
    payment_reason: detail.paymentReason,
    checkout_api_session_id: detail.checkoutSessionId,
    is_reversal: detail.isReversal ? true : undefined,
  }
  for (const [name, value] of Object.entries(item)) if (value === undefined) delete item[name]
  return item
}

function invalidQuery(state: SimulatorState, exchange: Exchange, name: string, message: string) {
  refuse(
    exchange.response,
    refusals.validation(state.config.validationErrorStatus, [
      { loc: ['query', name], msg: message, type: 'value_error' },
    ]),
  )
}

/**
 * GET /v1/transactions?date=YYYY-MM-DD[&after=<end_cursor>] → `{page_info: {start_cursor,
 * end_cursor, has_next_page}, date, items}`: the day's transactions, oldest first, a page at a time.
 */
export function listTransactions(state: SimulatorState, exchange: Exchange) {
  const query = queryOf(exchange.request.url)
  const date = dayOf(query)
  if (date === undefined) return invalidQuery(state, exchange, 'date', 'invalid date format')
  const given = query.get('after')
  const after = given === null || given === '' ? undefined : decodeCursor(given, date)
  if (given !== null && given !== '' && after === undefined)
    return invalidQuery(state, exchange, 'after', 'invalid cursor')
  const startMs = Date.parse(`${date}T00:00:00Z`)
  const page = state.wallet.listedPage(startMs, startMs + dayMs, after, state.config.transactionsPageSize)
  const last = page.entries.at(-1)?.line
  const endCursor = last ? encodeCursor({ date, atMs: last.atMs, sequence: last.sequence }) : given
  sendJson(exchange.response, 200, {
    page_info: {
      start_cursor: after === undefined ? null : given,
      end_cursor: endCursor ?? encodeCursor({ date, atMs: startMs, sequence: -1 }),
      has_next_page: page.more,
    },
    date,
    items: page.entries.map((entry) => itemView(state, entry)),
  })
}
