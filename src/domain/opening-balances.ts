import type { Operation } from './operation.ts'

/**
 * The sandbox opens a merchant's balances funded (CONTRACT.md, Sandbox): one recharge per
 * currency, from a number no customer has, under a reference of its own. The ledger keeps them as
 * the recharges they are; pages show them as what they mean to a person, opening balances.
 */
export const openingBalanceKind = 'recharge'

/** A sandbox wallet number whose outcome is "succeeded at once". */
export const openingBalancePhoneNumber = '0000000000'

export function openingBalanceReference(currency: string): string {
  return `opening-balance-${currency}`
}

/** Whether the operation is the sandbox's opening of a balance, not a recharge anyone made. */
export function isOpeningBalance(operation: Operation): boolean {
  return (
    operation.mode === 'sandbox' &&
    operation.kind === openingBalanceKind &&
    operation.merchantReference === openingBalanceReference(operation.currency)
  )
}
