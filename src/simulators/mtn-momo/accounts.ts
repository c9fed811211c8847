import { fromUnits, toUnits } from '../decimal-units.ts'
import { WalletBook } from '../wallet-book.ts'
import type { SimulatorConfig } from './config.ts'
import type { MomoTransaction } from './ledger.ts'
import { type ProductName, products } from './operations.ts'
import type { SimulatorState } from './state.ts'

/**
 * The partner's account of each product, as `GET /{product}/v1_0/account/balance` reads it
 * (SOURCES.md, "Account balance"): the collection account receives what requests to pay
 * collected, the disbursement account pays transfers and refunds. Each starts at its float
 * (`availableBalance`) and moves when a transaction in the account's currency succeeds. MoMo
 * publishes no statement, so the lines are only the simulator's own books.
 */

/** What the simulator keeps of the transaction behind a line. */
export interface AccountLine {
  readonly referenceId: string
  readonly resource: string
}

export type Accounts = ReadonlyMap<ProductName, WalletBook<AccountLine>>

export function newAccounts(config: SimulatorConfig): Accounts {
  const opening = toUnits(config.availableBalance)
  return new Map(products.map((product) => [product, new WalletBook<AccountLine>(opening)]))
}

/** The account's currency: the first the partner's contract takes, or MTN sandbox's EUR. */
export function accountCurrency(config: SimulatorConfig): string {
  return config.currencies?.[0] ?? 'EUR'
}

/**
 * A transaction that reaches SUCCESSFUL moves its product's account once; one forced away from
 * SUCCESSFUL afterwards moves it back (its line no longer counts).
 */
export function bookTransaction(state: SimulatorState, transaction: MomoTransaction): void {
  if (transaction.currency !== accountCurrency(state.config)) return
  const book = state.accounts.get(transaction.spec.product)!
  const [line] = book.linesOf(transaction.referenceId)
  const succeeded = transaction.status === 'SUCCESSFUL'
  if (line === undefined && succeeded) {
    book.record({
      lineId: transaction.financialTransactionId ?? transaction.referenceId,
      paymentId: transaction.referenceId,
      atMs: transaction.settledAtMs ?? Date.now(),
      direction: transaction.spec.product === 'collection' ? 'in' : 'out',
      amountUnits: toUnits(transaction.amount),
      feeUnits: 0n,
      detail: { referenceId: transaction.referenceId, resource: transaction.spec.resource },
    })
  } else if (line !== undefined && line.counted !== succeeded) {
    line.counted = succeeded
    line.listed = succeeded
    book.changed()
  }
}

/** `{availableBalance, currency}` of the product's account, the amount without trailing zeros as MoMo writes it. */
export function balanceView(state: SimulatorState, product: ProductName) {
  return {
    availableBalance: fromUnits(state.accounts.get(product)!.balanceUnits()),
    currency: accountCurrency(state.config),
  }
}
