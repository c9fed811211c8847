import type {
  OperatorBalance,
  OperatorLine,
  OperatorLineKind,
  OperatorLineReferences,
} from '../../domain/operator-lines.ts'
import { instantUsOf, minorUnitsOf, sikaCurrencyOf } from '../operator-amounts.ts'
import { sideOfClientReference } from './wire.ts'

/**
 * Wave's Balance & Reconciliation API in Sika's terms (docs.wave.com/balance-api; the simulator's
 * SOURCES.md, "Balance and transactions", names the source of each field): the wallet's balance,
 * and each transaction item as an operator line. The API key is bound to one wallet, so the
 * connection has one account: `wallet`.
 */

export const walletAccount = 'wallet'

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** `GET /v1/balance` → `{amount, currency}` as the wallet's balance, or the problem with it. */
export function balanceOfWallet(body: unknown): OperatorBalance | string {
  const answer = isObject(body) ? body : {}
  const currency = sikaCurrencyOf(answer.currency)
  if (currency === undefined) return "Wave's balance is in a currency Sika does not hold."
  const balanceMinor = minorUnitsOf(answer.amount, currency)
  if (balanceMinor === undefined) return "Wave's balance has no readable amount."
  return { account: walletAccount, currency, balanceMinor, raw: answer }
}

/** One page of `GET /v1/transactions?date=`: its items, and where the next page starts, if any. */
export interface TransactionsPage {
  readonly items: readonly Record<string, unknown>[]
  readonly nextCursor: string | undefined
}

/** `{page_info: {end_cursor, has_next_page}, date, items}`, or undefined for a body that is none. */
export function pageOf(body: unknown): TransactionsPage | undefined {
  if (!isObject(body) || !Array.isArray(body.items) || !isObject(body.page_info)) return undefined
  const { end_cursor: endCursor, has_next_page: hasNextPage } = body.page_info
  if (hasNextPage === true && (typeof endCursor !== 'string' || endCursor === '')) return undefined
  return {
    items: body.items.filter(isObject),
    nextCursor: hasNextPage === true ? (endCursor as string) : undefined,
  }
}

/**
 * What a transaction is, from the fields Wave gives: `is_reversal` marks a refund or reversal of
 * an earlier payment, whose references name that payment. Every other transaction moved money
 * with a customer (a checkout paid, a payout, a payment to the business's till), so it is a
 * `payment`, matched to a side or, naming none Sika knows, a payment Sika does not have: Wave
 * publishes no list of transaction types, and an unknown type is never taken for a fee.
 */
function kindOf(item: Record<string, unknown>): OperatorLineKind {
  return item.is_reversal === true ? 'reversal' : 'payment'
}

/**
 * The side a transaction names: `client_reference` (`<token>.<role>`, which Sika sends with each
 * checkout and payout), the checkout session it paid (`checkout_api_session_id`, a checkout side's
 * `providerReference`), and a payout's own id (`pt-…`) when the transaction is listed under it.
 */
function referencesOf(
  item: Record<string, unknown>,
  direction: 'cash-in' | 'cash-out',
): OperatorLineReferences {
  const side = sideOfClientReference(item.client_reference)
  const session = typeof item.checkout_api_session_id === 'string' ? item.checkout_api_session_id : undefined
  const payout =
    direction === 'cash-out' &&
    typeof item.transaction_id === 'string' &&
    item.transaction_id.startsWith('pt-')
      ? item.transaction_id
      : undefined
  const providerReference = session ?? payout
  return { ...(side ? { side } : {}), ...(providerReference ? { providerReference } : {}) }
}

/**
 * A transaction item as a line, or the problem with it. `amount` is what the transaction changed
 * on the wallet (signed) and `fee` what Wave kept, so what moved with the customer is the amount
 * and the fee on a cash-in, and the amount less the fee on a cash-out. Wave lists transactions it
 * executed: every line succeeded.
 */
export function lineOfItem(item: Record<string, unknown>): OperatorLine | string {
  const currency = sikaCurrencyOf(item.currency)
  if (currency === undefined) return 'The transaction is in a currency Sika does not hold.'
  const effect = minorUnitsOf(item.amount, currency)
  const fee = item.fee === undefined ? 0 : minorUnitsOf(item.fee, currency)
  if (effect === undefined || fee === undefined || fee < 0)
    return `The transaction's amount or fee is no amount of ${currency}.`
  const atUs = instantUsOf(item.timestamp)
  if (atUs === undefined) return 'The transaction has no readable timestamp.'
  if (typeof item.transaction_id !== 'string' || item.transaction_id === '')
    return 'The transaction has no transaction_id.'
  const direction = effect >= 0 ? 'cash-in' : 'cash-out'
  const balance = item.balance === undefined ? undefined : minorUnitsOf(item.balance, currency)
  return {
    account: walletAccount,
    lineId: item.transaction_id,
    kind: kindOf(item),
    references: referencesOf(item, direction),
    direction,
    amountMinor: direction === 'cash-in' ? effect + fee : -effect - fee,
    feeMinor: fee,
    balanceEffectMinor: effect,
    currency,
    status: 'succeeded',
    atUs,
    ...(balance === undefined ? {} : { balanceAfterMinor: balance }),
    raw: item,
  }
}

/** The UTC days (YYYY-MM-DD) a window touches: Wave lists transactions one day at a time. */
export function daysOf(startAtUs: number, endAtUs: number): string[] {
  const days: string[] = []
  const dayMs = 86_400_000
  const lastMs = Math.ceil(endAtUs / 1000) - 1
  for (let dayStart = Math.floor(startAtUs / 1000 / dayMs) * dayMs; dayStart <= lastMs; dayStart += dayMs)
    days.push(new Date(dayStart).toISOString().slice(0, 10))
  return days
}
