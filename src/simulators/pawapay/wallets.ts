import { toUnits, unitsPerWhole } from '../decimal-units.ts'
import { WalletBook } from '../wallet-book.ts'
import type { SimulatorConfig } from './config.ts'
import { isFinal, type Payment } from './ledger.ts'
import { providerByCode, providers } from './providers.ts'
import { allowedDecimals } from './rules.ts'
import type { SimulatorState } from './state.ts'

/**
 * The merchant's pawaPay wallets, one per country and currency ("wallets are issued per country",
 * SOURCES.md "Wallets and statements"), each with its books: a line for every payment that reached
 * a final status in it. A COMPLETED deposit credits the wallet, a COMPLETED payout or refund debits
 * it, each less or plus pawaPay's fee; a FAILED one is listed and moves nothing. GET
 * /v2/wallet-balances reads the balances, statements read the lines.
 */

/** What a statement row shows of a line besides its amounts. */
export interface WalletLine {
  /** DEPOSIT, PAYOUT, REFUND; the control paths add others. */
  readonly type: string
  readonly transactionId: string
  readonly msisdn: string
  readonly provider: string
  /** ISO 3166-1 alpha-3. */
  readonly country: string
  readonly clientReferenceId: string | undefined
  providerTransactionId: string | undefined
  /** When pawaPay recorded the payment (`created`). */
  readonly created: string
  status: 'COMPLETED' | 'FAILED'
}

export type Wallets = ReadonlyMap<string, WalletBook<WalletLine>>

/** A wallet's name: its country (alpha-3) and currency, `BEN/XOF`. */
export const walletKey = (country: string, currency: string) => `${country}/${currency}`

/** Every country and currency pawaPay serves has its wallet, each starting at `walletOpeningBalance`. */
export function newWallets(config: SimulatorConfig): Wallets {
  const keys = providers.flatMap((provider) =>
    Object.keys(provider.currencies).map((currency) => walletKey(provider.country, currency)),
  )
  const opening = toUnits(config.walletOpeningBalance)
  return new Map([...new Set(keys)].sort().map((key) => [key, new WalletBook<WalletLine>(opening)]))
}

/** pawaPay's fee on a payment: `feePercent` of it, to the provider's decimals (not published, SOURCES.md). */
export function feeUnits(config: SimulatorConfig, payment: Payment): bigint {
  const provider = providerByCode(payment.accountDetails.provider)
  const decimals = provider ? allowedDecimals(provider, payment.currency, payment.spec.kind) : 2
  const step = unitsPerWhole / 10n ** BigInt(decimals)
  const raw = (toUnits(payment.amount) * BigInt(Math.round(config.feePercent * 100))) / 10_000n
  return (raw / step) * step
}

/**
 * Puts a payment's final status in its wallet's books once: a line when it first ends, its status
 * followed when the control paths force another; a payment forced back to a non-final status is
 * no longer listed.
 */
export function bookPayment(state: SimulatorState, payment: Payment): void {
  const book = state.wallets.get(walletKey(payment.country, payment.currency))
  if (book === undefined) return
  const [line] = book.linesOf(payment.id)
  const final = isFinal(payment.status)
  const completed = payment.status === 'COMPLETED'
  if (line === undefined) {
    if (!final) return
    book.record({
      lineId: payment.id,
      paymentId: payment.id,
      atMs: payment.settledAtMs ?? Date.now(),
      direction: payment.spec.kind === 'deposit' ? 'in' : 'out',
      amountUnits: toUnits(payment.amount),
      feeUnits: feeUnits(state.config, payment),
      counted: completed,
      detail: {
        type: payment.spec.operationType,
        transactionId: payment.id,
        msisdn: payment.accountDetails.phoneNumber,
        provider: payment.accountDetails.provider,
        country: payment.country,
        clientReferenceId: payment.clientReferenceId,
        providerTransactionId: payment.providerTransactionId,
        created: payment.created,
        status: completed ? 'COMPLETED' : 'FAILED',
      },
    })
    return
  }
  Object.assign(line, { listed: final, counted: completed })
  if (line.detail !== undefined) {
    line.detail.status = completed ? 'COMPLETED' : 'FAILED'
    line.detail.providerTransactionId = payment.providerTransactionId
  }
  book.changed()
}
