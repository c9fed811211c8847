import { type Currency, currencies } from './money.ts'

/**
 * The reconciliation's review amount across currencies (CONTRACT.md, Reconciliation: "a break of
 * more than 100,000 XOF (or the same value in another currency, set by
 * RECONCILIATION_REVIEW_AMOUNT)"). RECONCILIATION_REVIEW_AMOUNT is an amount of XOF; a break in
 * another currency is valued in XOF at the fixed rates below, which serve this threshold only
 * (never an amount paid, a fee or a balance).
 *
 * XAF is at par with XOF (both are pegged to the euro at 655.957). The other rates float: each is
 * rounded up from the market (late 2025), so that a foreign currency is, if anything, worth more
 * here than in fact, and a break near the threshold goes to a second member rather than past
 * one. docs/guide/reconciliation.md lists them; change them here when a currency moves far.
 */
export const xofPerUnit: Readonly<Record<Currency, { xof: number; per: number }>> = {
  XOF: { xof: 1, per: 1 },
  XAF: { xof: 1, per: 1 },
  // About 52 XOF a cedi.
  GHS: { xof: 60, per: 1 },
  // About 4.4 XOF a shilling.
  KES: { xof: 5, per: 1 },
  // About 0.155 XOF a shilling: 1 XOF for 5.
  UGX: { xof: 1, per: 5 },
}

const minorPerUnit = (currency: Currency) => 10n ** BigInt(currencies[currency].scale)

/** Whether `amountMinor` of `currency` is worth more than `reviewAmountXof` XOF, in exact integers. */
export function exceedsReviewAmount(
  amountMinor: number,
  currency: Currency,
  reviewAmountXof: number,
): boolean {
  const { xof, per } = xofPerUnit[currency]
  return BigInt(amountMinor) * BigInt(xof) > BigInt(reviewAmountXof) * BigInt(per) * minorPerUnit(currency)
}

/** The review amount in `currency`, in its minor units (rounded down): what the console shows. */
export function reviewAmountIn(currency: Currency, reviewAmountXof: number): number {
  const { xof, per } = xofPerUnit[currency]
  return Number((BigInt(reviewAmountXof) * BigInt(per) * minorPerUnit(currency)) / BigInt(xof))
}
