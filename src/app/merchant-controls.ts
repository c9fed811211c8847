import type { Mode } from '../domain/kinds.ts'
import {
  type CurrencyLimits,
  type LimitRow,
  type MerchantControls,
  noControls,
  type PayoutsPause,
} from '../domain/merchant-controls.ts'
import { toMajorUnits } from '../domain/money.ts'
import { ApiError } from '../errors.ts'
import { auditMerchantChange, type PlatformActor } from './console/platform-audit.ts'
import type { AppContext } from './context.ts'
import type { Principal } from './principal.ts'

/**
 * The platform's controls of a merchant on the paths that initiate: an API request has them from
 * its credential (the credential cache, refreshed within 500 ms on every instance: no read of its
 * own); a principal made elsewhere (the dashboard, a payment link's page) reads them now.
 */
export async function controlsFor(context: AppContext, principal: Principal): Promise<MerchantControls> {
  if (principal.controls) return principal.controls
  const { merchantId, mode } = principal
  const read = await context.merchantControls.read(`${merchantId}/${mode}`, () =>
    context.store.merchants.controls(merchantId, mode),
  )
  return read ?? noControls
}

/** A payout of a merchant whose payouts the platform paused: refused before anything is written. */
export function refusePausedPayouts(controls: MerchantControls): void {
  const pause = controls.payoutsPaused
  if (!pause) return
  const reason = pause.reason ? ` Reason: ${pause.reason}` : ''
  throw new ApiError(
    'payouts_paused',
    `The platform has paused this merchant's payouts: disbursements, withdraws, transfers and payout batches are refused until it resumes them; collects go on.${reason}`,
  )
}

/** One amount of an initiation, as priced: its field, currency and amount in minor units. */
export interface PricedAmount {
  field: string
  currency: string
  amountMinor: number
}

/** An amount above the merchant's maxAmount in its currency and mode: 422 limit_exceeded naming it. */
export function refuseAboveMaxAmount(
  controls: MerchantControls,
  mode: Mode,
  amounts: readonly PricedAmount[],
) {
  for (const { field, currency, amountMinor } of amounts) {
    const limit = controls.limits[currency]?.maxAmountMinor ?? null
    if (limit === null || amountMinor <= limit) continue
    const major = (minor: number) => toMajorUnits(minor, currency as never)
    throw new ApiError(
      'limit_exceeded',
      `${field} ${major(amountMinor)} ${currency} is above this merchant's maxAmount of ${major(limit)} ${currency} in ${mode} mode; at most ${major(limit)} ${currency} may be asked in one operation.`,
      [
        {
          field,
          code: 'max_amount',
          message: `At most ${major(limit)} ${currency} (the merchant's maxAmount).`,
        },
      ],
      undefined,
      { limit: 'maxAmount', currency, limitAmount: major(limit), left: major(limit) },
    )
  }
}

/** The daily payout limit of a currency in the principal's mode, in minor units, or undefined for none. */
export function dailyPayoutLimitOf(controls: MerchantControls, currency: string): number | undefined {
  return controls.limits[currency]?.dailyPayoutLimitMinor ?? undefined
}

/** A payout that would take the day's payouts past the limit: 422 limit_exceeded, saying what is left. */
export function dailyLimitExceeded(
  mode: Mode,
  currency: string,
  {
    limitMinor,
    paidOutMinor,
    neededMinor,
  }: { limitMinor: number; paidOutMinor: number; neededMinor: number },
): ApiError {
  const major = (minor: number) => toMajorUnits(minor, currency as never)
  const left = Math.max(0, limitMinor - paidOutMinor)
  return new ApiError(
    'limit_exceeded',
    `This payout needs ${major(neededMinor)} ${currency}, and ${major(left)} ${currency} is left today (UTC) under this merchant's dailyPayoutLimit of ${major(limitMinor)} ${currency} in ${mode} mode (${major(paidOutMinor)} ${currency} paid out or pending today).`,
    [
      {
        field: 'amount',
        code: 'daily_payout_limit',
        message: `${major(left)} ${currency} is left of today's dailyPayoutLimit of ${major(limitMinor)} ${currency}.`,
      },
    ],
    undefined,
    { limit: 'dailyPayoutLimit', currency, limitAmount: major(limitMinor), left: major(left) },
  )
}

export type { CurrencyLimits, LimitRow, PayoutsPause }

/**
 * The platform's changes to a merchant (the CLI's, the console's): each audited in the merchant's
 * audit log and the platform's, in its own transaction, with what it was before and after
 * (`auditMerchantChange`), and forgotten at once by
 * this instance's caches; every other instance reads it within 500 ms (its caches' freshness).
 */

/** Pauses the merchant's payouts, with the reason the platform gives; false for an unknown merchant. */
export function pausePayouts(
  context: AppContext,
  merchantId: string,
  reason: string | null,
  actor: PlatformActor,
): Promise<boolean> {
  const after = { atUs: context.clock.nowUs(), reason }
  return changePause(context, merchantId, after, actor)
}

/** Resumes the merchant's payouts; false for an unknown merchant. */
export function resumePayouts(
  context: AppContext,
  merchantId: string,
  actor: PlatformActor,
): Promise<boolean> {
  return changePause(context, merchantId, null, actor)
}

async function changePause(
  context: AppContext,
  merchantId: string,
  pause: PayoutsPause | null,
  actor: PlatformActor,
): Promise<boolean> {
  const changed = await context.store.transaction(async (tx) => {
    const before = await tx.merchants.controls(merchantId, 'live')
    if (!before || !(await tx.merchants.setPayoutsPaused(merchantId, pause))) return false
    const view = (paused: PayoutsPause | null) => ({
      payoutsPaused: paused !== null,
      reason: paused?.reason ?? null,
    })
    const change = {
      merchantId,
      action: pause ? 'payouts.paused' : 'payouts.resumed',
      target: merchantId,
      before: view(before.payoutsPaused),
      after: view(pause),
    }
    await auditMerchantChange(context, actor, change, pause ? 'payouts_paused' : 'payouts_resumed', tx)
    return true
  })
  forgetControls(context)
  return changed
}

/** One mode and currency's limits, in minor units; null removes that limit. */
export interface LimitsChange extends CurrencyLimits {
  merchantId: string
  mode: Mode
  currency: string
}

/** Sets (or, both null, removes) a mode and currency's limits; false for an unknown merchant. */
export async function setLimits(
  context: AppContext,
  change: LimitsChange,
  actor: PlatformActor,
): Promise<boolean> {
  const { merchantId, mode, currency, maxAmountMinor, dailyPayoutLimitMinor } = change
  const changed = await context.store.transaction(async (tx) => {
    const before = await tx.merchants.controls(merchantId, mode)
    if (!before) return false
    const limits = { maxAmountMinor, dailyPayoutLimitMinor }
    await tx.merchants.setLimits(merchantId, mode, currency, limits)
    const major = (limit: CurrencyLimits | undefined) => ({
      maxAmount: majorOrNull(limit?.maxAmountMinor ?? null, currency),
      dailyPayoutLimit: majorOrNull(limit?.dailyPayoutLimitMinor ?? null, currency),
    })
    const audited = {
      merchantId,
      mode,
      action: 'limits.set',
      target: `${mode} ${currency}`,
      before: major(before.limits[currency]),
      after: major(limits),
    }
    await auditMerchantChange(context, actor, audited, 'limits_set', tx)
    return true
  })
  forgetControls(context)
  return changed
}

function majorOrNull(minor: number | null, currency: string): number | null {
  return minor === null ? null : toMajorUnits(minor, currency as never)
}

/** What the platform controls of a merchant, both modes: undefined for an unknown merchant. */
export async function merchantControlsOf(
  context: AppContext,
  merchantId: string,
): Promise<{ payoutsPaused: PayoutsPause | null; limits: LimitRow[] } | undefined> {
  const controls = await context.store.merchants.controls(merchantId, 'live')
  if (!controls) return undefined
  return { payoutsPaused: controls.payoutsPaused, limits: await context.store.merchants.limits(merchantId) }
}

function forgetControls(context: AppContext): void {
  context.credentials.forgetAll()
  context.merchantControls.forgetAll()
}
