import { type OperationKind, operationKinds, type SideKind, sideKinds } from '../domain/kinds.ts'
import { type Currency, toMajorUnits } from '../domain/money.ts'
import { milliToPercentage } from '../domain/pricing.ts'
import type { ChannelRoute, FeeRow } from '../store/repositories/catalogue.ts'
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

/** Gives a merchant its own fee row; false for an unknown merchant. */
export async function setFeeRow(context: AppContext, row: FeeRow): Promise<boolean> {
  if (!(await context.store.merchants.exists(row.merchantId))) return false
  await context.store.catalogue.setFeeRow(row)
  context.pricingRules.forgetAll()
  return true
}
