/**
 * Amounts are decimal strings. The v2 schema's pattern: no leading zeros (except a lone 0 before the
 * point), at most 18 integer digits, at most 4 decimals, the last of them not a zero.
 */
export const amountPattern = /^([0]|([1-9][0-9]{0,17}))([.][0-9]{0,3}[1-9])?$/

export { fromUnits, toUnits } from '../decimal-units.ts'

export function decimalsOf(amount: string): number {
  const point = amount.indexOf('.')
  return point === -1 ? 0 : amount.length - point - 1
}

/**
 * How pawaPay shows an amount in status checks and callbacks: with two decimals ("100" initiated
 * is read back as "100.00" in pawaPay's examples), more only when the amount has more.
 */
export function displayAmount(amount: string): string {
  const [whole = '0', fraction = ''] = amount.split('.')
  return `${whole}.${fraction.padEnd(2, '0')}`
}
