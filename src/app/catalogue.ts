import { type OperationKind, operationKinds, type SideKind, sideKinds } from '../domain/kinds.ts'
import { type Currency, toMajorUnits } from '../domain/money.ts'
import { milliToPercentage } from '../domain/pricing.ts'
import type { ChannelRoute, FeeRow } from '../store/repositories/catalogue.ts'
import { auditMerchantChange, type PlatformActor } from './console/platform-audit.ts'
import type { AppContext } from './context.ts'
import type { Principal } from './principal.ts'

export type { FeeRow }

/** One channel in one country: its currency, and per side kind its limits and this merchant's fees. */
export interface ChannelView {
  channel: string
  name: string
  country: string
  currency: string
  operations: {
    operation: string
    minAmount: number
    maxAmount: number
    pricing: { percentageFee: number; additionalFee: number; supportedByAccount: boolean }
  }[]
}

/** GET /api/v1/channels filters: each one given narrows the list. */
export interface ChannelFilters {
  country?: string
  /** An operation kind: the routes of its sides' kinds (a transfer's are collect and disbursement). */
  kind?: OperationKind
  channel?: string
}

const specificity = (row: FeeRow) =>
  (row.merchantId !== '*' ? 4 : 0) + (row.channel !== '*' ? 2 : 0) + (row.country !== '*' ? 1 : 0)

/**
 * GET /api/v1/channels: what the calling merchant may use, with its limits and its own fees; a
 * channel and country left with no operation by the filters is left out.
 */
export async function listChannels(
  context: AppContext,
  principal: Principal,
  filters: ChannelFilters = {},
): Promise<ChannelView[]> {
  const [routes, fees] = await Promise.all([
    context.store.catalogue.listRoutes(),
    context.store.catalogue.listFeeRows(principal.merchantId),
  ])
  fees.sort((a, b) => specificity(b) - specificity(a))
  const channels = new Map<string, ChannelView>()
  // Live mode lists only what an operator connection can carry (CONTRACT.md, Operators).
  const connected = (route: ChannelRoute) =>
    context.providers.connects(principal.mode, route.channel, route.country, sideKinds[route.kind].direction)
  for (const route of routes.filter(routeFilter(filters)).filter(connected)) {
    const fee = fees.find((row) => feeApplies(row, route))
    if (!fee) continue
    const key = `${route.channel}/${route.country}`
    const entry = channels.get(key) ?? {
      channel: route.channel,
      name: route.channelName,
      country: route.country,
      currency: route.currency,
      operations: [],
    }
    const major = (minor: number) => toMajorUnits(minor, route.currency as Currency)
    entry.operations.push({
      operation: route.kind,
      minAmount: major(route.minAmountMinor),
      maxAmount: major(route.maxAmountMinor),
      pricing: {
        percentageFee: milliToPercentage(fee.percentageMilli),
        additionalFee: major(fee.additionalFeeMinor),
        supportedByAccount: fee.supportedByAccount,
      },
    })
    channels.set(key, entry)
  }
  return [...channels.values()]
}

function routeFilter({ country, kind, channel }: ChannelFilters): (route: ChannelRoute) => boolean {
  const sideKinds: SideKind[] | undefined = kind && operationKinds[kind].sides.map((side) => side.sideKind)
  return (route) =>
    (country === undefined || route.country === country) &&
    (channel === undefined || route.channel === channel) &&
    (sideKinds === undefined || sideKinds.includes(route.kind))
}

function feeApplies(row: FeeRow, route: ChannelRoute): boolean {
  return (
    row.kind === route.kind &&
    (row.channel === route.channel || row.channel === '*') &&
    (row.country === route.country || row.country === '*')
  )
}

export function listFeeRows(context: AppContext, merchantId?: string): Promise<FeeRow[]> {
  return context.store.catalogue.listFeeRows(merchantId)
}

/**
 * Gives a merchant its own fee row; false for an unknown merchant. With an actor (the CLI, the
 * platform's console), audited in the same transaction as `fee.set`, with the row it replaced.
 * This instance prices with it at once; every other within 500 ms (its pricing rules' freshness).
 */
export async function setFeeRow(context: AppContext, row: FeeRow, actor?: PlatformActor): Promise<boolean> {
  const set = await context.store.transaction(async (tx) => {
    if (!(await tx.merchants.exists(row.merchantId))) return false
    const sameKey = (other: FeeRow) =>
      other.merchantId === row.merchantId &&
      other.kind === row.kind &&
      other.channel === row.channel &&
      other.country === row.country
    const before = actor ? (await tx.catalogue.listFeeRows(row.merchantId)).find(sameKey) : undefined
    await tx.catalogue.setFeeRow(row)
    if (actor) {
      const change = {
        merchantId: row.merchantId,
        action: 'fee.set',
        target: `${row.kind} ${row.channel} ${row.country}`,
        before: before ? feeView(before) : null,
        after: feeView(row),
      }
      await auditMerchantChange(context, actor, change, 'fee_set', tx)
    }
    return true
  })
  context.pricingRules.forgetAll()
  return set
}

function feeView(row: FeeRow) {
  return {
    percentage: milliToPercentage(row.percentageMilli),
    additionalFeeMinor: row.additionalFeeMinor,
    bearer: row.supportedByAccount ? 'merchant' : 'customer',
  }
}
