/**
 * Money is an integer count of minor units with the currency's scale beside it.
 * Floats exist only at the JSON boundary, converted here and nowhere else.
 */
export const currencies = {
  XOF: { scale: 0, name: 'West African CFA franc' },
  XAF: { scale: 0, name: 'Central African CFA franc' },
  GHS: { scale: 2, name: 'Ghanaian cedi' },
  KES: { scale: 2, name: 'Kenyan shilling' },
  UGX: { scale: 0, name: 'Ugandan shilling' },
} as const

export type Currency = keyof typeof currencies

export function isCurrency(value: string): value is Currency {
  return Object.hasOwn(currencies, value)
}

/** ISO 3166-1 alpha-2 countries served, each with the currency its wallets hold. */
export const countries = {
  BJ: 'XOF',
  BF: 'XOF',
  CI: 'XOF',
  GW: 'XOF',
  ML: 'XOF',
  NE: 'XOF',
  SN: 'XOF',
  TG: 'XOF',
  CM: 'XAF',
  CF: 'XAF',
  TD: 'XAF',
  CG: 'XAF',
  GQ: 'XAF',
  GA: 'XAF',
  GH: 'GHS',
  KE: 'KES',
  UG: 'UGX',
} as const satisfies Record<string, Currency>

export type Country = keyof typeof countries

export function isCountry(value: string): value is Country {
  return Object.hasOwn(countries, value)
}

/** Largest amount accepted anywhere, in minor units: keeps every product below 2^53. */
export const maximumMinorUnits = 1_000_000_000_000

/**
 * Converts a JSON number in major units to minor units, or undefined when it has more
 * decimals than the currency allows. It reads the number's shortest decimal form (what the
 * client wrote), never float arithmetic: 8192.03 GHS is 819203 pesewas, 1.005 GHS is refused.
 */
export function toMinorUnits(amount: number, currency: Currency): number | undefined {
  const scale = currencies[currency].scale
  // Exponent forms (1e21, 1e-7) are never valid amounts.
  const match = /^(-?\d+)(?:\.(\d+))?$/.exec(String(amount))
  if (!match) return undefined
  const [, whole = '', fraction = ''] = match
  if (fraction.length > scale) return undefined
  const minor = Number(whole + fraction.padEnd(scale, '0'))
  return Number.isSafeInteger(minor) ? minor : undefined
}

export function toMajorUnits(minor: number, currency: Currency): number {
  const scale = currencies[currency].scale
  return scale === 0 ? minor : Number((minor / 10 ** scale).toFixed(scale))
}

/** How to fix an amount above the largest accepted: "XOF amounts are at most 1000000000000." */
export function largestAmountRule(currency: Currency): string {
  return `${currency} amounts are at most ${toMajorUnits(maximumMinorUnits, currency)}.`
}

/** How to fix an amount with too many decimals: "XOF amounts take no decimals." */
export function precisionRule(currency: Currency): string {
  const { scale } = currencies[currency]
  return `${currency} amounts take ${scale === 0 ? 'no decimals' : `at most ${scale} decimals`}.`
}
