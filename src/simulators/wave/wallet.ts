import { toUnits } from '../decimal-units.ts'
import { WalletBook } from '../wallet-book.ts'
import { payoutFee } from './amounts.ts'
import type { CheckoutSession } from './checkout-store.ts'
import type { SimulatorConfig } from './config.ts'
import { transactionId } from './ids.ts'
import type { Payout } from './payout-store.ts'
import type { SimulatorState } from './state.ts'

/**
 * The business wallet behind the API key, as Wave's Balance & Reconciliation API reads it
 * (SOURCES.md, "Balance and transactions"): its float, then a transaction for every payment that
 * moved it: a checkout paid (in, less Wave's fee), a payout executed (out, with its fee), a
 * checkout refunded or a payout reversed (a reversal).
 */

/** What a transaction item shows besides its amounts. */
export interface WalletLine {
  readonly transactionType: string
  readonly clientReference?: string
  readonly checkoutSessionId?: string
  readonly paymentReason?: string
  readonly counterpartyName?: string
  readonly counterpartyMobile?: string
  readonly isReversal?: boolean
}

export function newWallet(config: SimulatorConfig): WalletBook<WalletLine> {
  return new WalletBook<WalletLine>(toUnits(config.openingBalance))
}

/** The wallet's one currency: the first of the business's currencies. */
export const walletCurrency = (config: SimulatorConfig) => config.currencies[0] ?? 'XOF'

const isReversal = (line: { detail: WalletLine | undefined }) => line.detail?.isReversal === true

/**
 * A checkout session's money: in once paid (its transaction id is the line's), out again once
 * refunded, Wave's fee kept (no published source says it is returned).
 */
export function bookSession(state: SimulatorState, session: CheckoutSession): void {
  const { wallet, config } = state
  const lines = wallet.linesOf(session.id)
  const { amount, currency, clientReference } = session.request
  if (currency !== walletCurrency(config)) return
  const detail = { clientReference, checkoutSessionId: session.id, counterpartyMobile: session.payerMobile }
  if (session.paymentStatus === 'succeeded' && !lines.some((line) => !isReversal(line))) {
    wallet.record({
      lineId: session.transactionId ?? transactionId(),
      paymentId: session.id,
      atMs: session.completedAtMs ?? Date.now(),
      direction: 'in',
      amountUnits: toUnits(amount),
      feeUnits: toUnits(payoutFee(amount, currency, config.checkoutFeePercent)),
      detail: { transactionType: 'merchant_payment', ...detail },
    })
  }
  if (session.refundedAtMs !== undefined && !lines.some(isReversal)) {
    wallet.record({
      lineId: transactionId(),
      paymentId: session.id,
      atMs: session.refundedAtMs,
      direction: 'out',
      amountUnits: toUnits(amount),
      feeUnits: 0n,
      detail: { transactionType: 'merchant_payment_refund', isReversal: true, ...detail },
    })
  }
}

/**
 * A payout's money: out with its fee once it succeeded (the payout's id is the line's), back with
 * its fee once reversed; a payout forced away from succeeded no longer moves it.
 */
export function bookPayout(state: SimulatorState, payout: Payout): void {
  const { wallet, config } = state
  const { request } = payout
  if (request.currency !== walletCurrency(config)) return
  const lines = wallet.linesOf(payout.id)
  const paid = lines.find((line) => !isReversal(line))
  const moved = payout.status === 'succeeded' || payout.status === 'reversed'
  const detail = {
    clientReference: request.clientReference,
    paymentReason: request.paymentReason,
    counterpartyName: request.name,
    counterpartyMobile: request.mobile,
  }
  if (moved && paid === undefined)
    wallet.record({
      lineId: payout.id,
      paymentId: payout.id,
      atMs: payout.settledAtMs ?? Date.now(),
      direction: 'out',
      amountUnits: toUnits(request.receiveAmount),
      feeUnits: toUnits(payout.fee),
      detail: { transactionType: 'payout', ...detail },
    })
  else if (paid !== undefined && paid.counted !== moved) {
    Object.assign(paid, { counted: moved, listed: moved })
    wallet.changed()
  }
  // A reversal gives back what the payout took, its fee included.
  if (payout.status === 'reversed' && !lines.some(isReversal))
    wallet.record({
      lineId: transactionId(),
      paymentId: payout.id,
      atMs: payout.reversedAtMs ?? Date.now(),
      direction: 'in',
      amountUnits: toUnits(request.receiveAmount) + toUnits(payout.fee),
      feeUnits: 0n,
      detail: { transactionType: 'payout_reversal', ...detail, isReversal: true },
    })
}
