import type { Direction } from './kinds.ts'

/** A fee schedule row as pricing needs it. Percentages are kept in thousandths of a percent. */
export interface FeeRule {
  /** 1500 means 1.5 %. */
  percentageMilli: number
  additionalFeeMinor: number
  /** true: the merchant's account bears the fee; false: the customer does. */
  supportedByAccount: boolean
}

export interface Price {
  amountMinor: number
  feesMinor: number
  /** What moves on the customer's wallet. */
  transactionAmountMinor: number
  /** What moves on the merchant's balance. */
  cashAmountMinor: number
}

/** One thousandth of a percent: the finest fee rate a schedule row can hold. */
export const percentageScale = 1000

/**
 * feesAmount = round_half_up(amount * percentageFee / 100 + additionalFee), in minor units.
 * additionalFee is already whole minor units, so only the percentage part needs rounding.
 * BigInt keeps amount * rate exact for every amount we accept.
 */
export function feesFor(amountMinor: number, rule: FeeRule): number {
  const divisor = 100n * BigInt(percentageScale)
  const scaled = BigInt(amountMinor) * BigInt(rule.percentageMilli)
  const rounded = (scaled * 2n + divisor) / (divisor * 2n)
  return Number(rounded) + rule.additionalFeeMinor
}

/**
 * Applies CONTRACT.md, Pricing. Returns undefined when the fee would leave a zero or
 * negative amount on either side, which the caller reports as a 422.
 */
export function price(amountMinor: number, direction: Direction, rule: FeeRule): Price | undefined {
  const feesMinor = feesFor(amountMinor, rule)
  const customerBears = !rule.supportedByAccount
  let transactionAmountMinor = amountMinor
  let cashAmountMinor = amountMinor
  if (direction === 'cash-in') {
    if (customerBears) transactionAmountMinor = amountMinor + feesMinor
    else cashAmountMinor = amountMinor - feesMinor
  } else {
    if (customerBears) transactionAmountMinor = amountMinor - feesMinor
    else cashAmountMinor = amountMinor + feesMinor
  }
  if (transactionAmountMinor <= 0 || cashAmountMinor <= 0) return undefined
  return { amountMinor, feesMinor, transactionAmountMinor, cashAmountMinor }
}

/** 1.5 -> 1500; undefined when the rate has more precision than a schedule row keeps. */
export function percentageToMilli(percentageFee: number): number | undefined {
  const milli = Math.round(percentageFee * percentageScale)
  return Math.abs(milli - percentageFee * percentageScale) < 1e-6 ? milli : undefined
}

export function milliToPercentage(percentageMilli: number): number {
  return percentageMilli / percentageScale
}

/**
 * Why a side cannot be priced, most fundamental first: when several apply to one request, the
 * first names the answer (a request that is malformed is that, whatever its channel says).
 */
export const pricingRefusals = ['invalid_input', 'channel_unavailable', 'amount_out_of_range'] as const
export type PricingRefusal = (typeof pricingRefusals)[number]

/** The refusal that names the answer among those found, or undefined when there are none. */
export function leadingPricingRefusal(found: readonly PricingRefusal[]): PricingRefusal | undefined {
  return pricingRefusals.find((refusal) => found.includes(refusal))
}
