/**
 * Decimal amounts as operators write them ("5000", "100.50", "-20") held as a whole number of
 * ten-thousandths (bigint), so a simulator's sums and running balances stay exact whatever the
 * currency's decimals.
 */
export const unitsPerWhole = 10_000n
const scale = 4

/** "100.5" is 1005000n, "-20" is -200000n. Decimals past the fourth are cut (no operator sends them). */
export function toUnits(amount: string): bigint {
  const negative = amount.startsWith('-')
  const [whole = '0', fraction = ''] = amount.replace(/^[+-]/, '').split('.')
  const units = BigInt(whole || '0') * unitsPerWhole + BigInt(fraction.slice(0, scale).padEnd(scale, '0'))
  return negative ? -units : units
}

/** The shortest decimal for a number of units: 300000n is "30", 305000n is "30.5", -200000n is "-20". */
export function fromUnits(units: bigint): string {
  const sign = units < 0n ? '-' : ''
  const magnitude = units < 0n ? -units : units
  const whole = magnitude / unitsPerWhole
  const fraction = (magnitude % unitsPerWhole).toString().padStart(scale, '0').replace(/0+$/, '')
  return `${sign}${whole}${fraction === '' ? '' : `.${fraction}`}`
}

/** At least `decimals` decimals ("100.00" for 1000000n and 2), more only when the amount has more. */
export function fromUnitsWithDecimals(units: bigint, decimals: number): string {
  const shortest = fromUnits(units)
  const [whole, fraction = ''] = shortest.split('.')
  const padded = fraction.padEnd(decimals, '0')
  return padded === '' ? `${whole}` : `${whole}.${padded}`
}
