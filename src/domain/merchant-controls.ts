import type { Mode } from './kinds.ts'

/**
 * What the platform controls of one merchant in one mode, read on the API's hot path with its
 * credentials: whether its payouts are paused, and its limits per currency (minor units; null: no
 * limit). A collect only ever compares `maxAmountMinor`.
 */
export interface CurrencyLimits {
  maxAmountMinor: number | null
  dailyPayoutLimitMinor: number | null
}

export interface PayoutsPause {
  /** Why the platform paused them, as it said; null when it gave no reason. */
  reason: string | null
  atUs: number
}

export interface MerchantControls {
  payoutsPaused: PayoutsPause | null
  /** By currency code. */
  limits: Readonly<Record<string, CurrencyLimits>>
}

/** One currency's limits of one mode, as listed. */
export interface LimitRow extends CurrencyLimits {
  mode: Mode
  currency: string
}

export const noControls: MerchantControls = Object.freeze({ payoutsPaused: null, limits: Object.freeze({}) })

const dayUs = 86_400_000_000

/** The start of the UTC day of `nowUs`: a daily payout limit counts the payouts made since then. */
export function utcDayStartUs(nowUs: number): number {
  return Math.floor(nowUs / dayUs) * dayUs
}
