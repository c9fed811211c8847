import { currencies } from '../domain/money.ts'
import {
  openingBalancePhoneNumber,
  openingBalanceReference,
  openingBalanceKind as openingKind,
} from '../domain/opening-balances.ts'
import type { AppContext } from './context.ts'
import { initiateOperation } from './initiate.ts'

export const openingBalanceMajorUnits = 1_000_000

/**
 * Sandbox balances open funded, so a new merchant can pay out at once: a sandbox recharge of
 * 1,000,000 per currency of the catalogue, through the normal path (priced, posted, listed),
 * with no callback. Idempotent by its merchantReference, so a retry after a crash is safe.
 */
export async function openSandboxBalances(context: AppContext, merchantId: string): Promise<void> {
  const routes = await context.store.catalogue.listRoutes()
  const firstRechargeRoute = new Map<string, (typeof routes)[number]>()
  for (const route of routes) {
    if (route.kind === openingKind && !firstRechargeRoute.has(route.currency))
      firstRechargeRoute.set(route.currency, route)
  }
  const principal = { merchantId, merchantName: '', mode: 'sandbox' as const }
  for (const [currency, route] of firstRechargeRoute) {
    if (!(currency in currencies)) continue
    await initiateOperation(context, principal, openingKind, {
      amount: openingBalanceMajorUnits,
      channel: route.channel,
      country: route.country,
      customer: { phoneNumber: openingBalancePhoneNumber, fullName: 'Sika sandbox opening balance' },
      merchantReference: openingBalanceReference(currency),
    })
  }
}
