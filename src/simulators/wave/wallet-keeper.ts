import type { BookKeeper } from '../book-control.ts'
import { fromUnits, toUnits } from '../decimal-units.ts'
import type { Exchange } from '../http-io.ts'
import type { LineDirection } from '../wallet-book.ts'
import { payoutFee } from './amounts.ts'
import { forcePayout, forceSession } from './control-force.ts'
import { sendJson } from './http-io.ts'
import { checkoutSessionId, payoutId, transactionId } from './ids.ts'
import type { SimulatorState } from './state.ts'
import { type WalletLine, walletCurrency } from './wallet.ts'

/** The Wave side of the shared book control paths: one wallet, lines as Wave's transaction items. */
export function walletKeeper(state: SimulatorState): BookKeeper<WalletLine> {
  const fee = (amountUnits: bigint, percent: number) =>
    toUnits(payoutFee(fromUnits(amountUnits), walletCurrency(state.config), percent))
  const { checkoutFeePercent, payoutFeePercent } = state.config
  /** A paid checkout (in) or an executed payout (out), under a client reference when given. */
  const line = (direction: LineDirection, amountUnits: bigint, atMs: number, clientReference?: string) => {
    const paymentId = direction === 'in' ? checkoutSessionId() : payoutId()
    return {
      lineId: direction === 'in' ? transactionId() : paymentId,
      paymentId,
      atMs,
      direction,
      amountUnits,
      feeUnits: fee(amountUnits, direction === 'in' ? checkoutFeePercent : payoutFeePercent),
      detail: {
        transactionType: direction === 'in' ? 'merchant_payment' : 'payout',
        clientReference,
        ...(direction === 'in' ? { checkoutSessionId: paymentId } : {}),
        counterpartyMobile: '+221770000000',
      },
    }
  }
  return {
    accounts: () => new Map([['wallet', state.wallet]]),
    accountOf: (paymentId) => (state.wallet.linesOf(paymentId).length > 0 ? state.wallet : undefined),
    // Someone paid the business's till, or was paid from it, outside anything Sika asked.
    strangerLine: (_account, amountUnits, direction, atMs) => line(direction, amountUnits, atMs),
    seededLine: (_account, index, atMs) =>
      line(index % 2 === 0 ? 'in' : 'out', BigInt(100 + (index % 900)) * 10_000n, atMs, `seed${index}.main`),
    copyLineId: () => transactionId(),
    succeedSilently: (paymentId) => {
      const session = state.checkout.get(paymentId)
      if (session !== undefined) return forceSession(state, session, { status: 'succeeded', webhook: false })
      const payout = state.payouts.get(paymentId)
      if (payout !== undefined) forcePayout(state, payout, { status: 'succeeded' })
      return payout !== undefined
    },
    sendJson: ({ response }: Exchange, status, body) => sendJson(response, status, body),
  }
}
