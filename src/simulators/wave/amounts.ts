/**
 * Wave's Amount and Currency types (docs.wave.com/payout "Types"; docs.wave.com/checkout, whose
 * changelog of 2022-05-10 says amounts are validated "as per the rules in the Amount section").
 */

/**
 * ISO 4217 codes the simulator knows. Wave answers an unknown code with a validation error naming
 * it (the docs' example: "Unknown currency identifier: ABC").
 */
const knownCurrencies = new Set([
  'XOF',
  'XAF',
  'GMD',
  'UGX',
  'SLE',
  'SLL',
  'GNF',
  'GHS',
  'KES',
  'NGN',
  'CDF',
  'MAD',
  'USD',
  'EUR',
])

/** Currencies without minor units: the CFA francs ("XOF has no decimals"), the Ugandan and Guinean francs. */
const wholeCurrencies = new Set(['XOF', 'XAF', 'UGX', 'GNF'])

export function isKnownCurrency(value: string): boolean {
  return knownCurrencies.has(value)
}

export function currencyMessage(value: unknown): string {
  return `Unknown currency identifier: ${String(value)}. We require the currency to be a three-letter ISO 4217 code.`
}

function decimalsOf(currency: string): number {
  return wholeCurrencies.has(currency) ? 0 : 2
}

/**
 * Why an amount is refused, or undefined when it is valid: a string of digits, no leading zero
 * when it is one or more, positive, and no more decimals than the currency has (none for XOF).
 */
export function amountProblem(value: unknown, currency: string | undefined): string | undefined {
  if (typeof value !== 'string') return 'Amounts are represented as strings.'
  const match = /^(\d+)(?:\.(\d+))?$/.exec(value)
  if (match === null) return `Invalid amount: ${value}.`
  const [, whole = '', fraction = ''] = match
  if (whole.length > 1 && whole.startsWith('0')) return 'Amounts must not have leading zeroes.'
  if (Number(value) <= 0) return 'The amount must be positive.'
  const allowed = currency !== undefined && isKnownCurrency(currency) ? decimalsOf(currency) : 2
  if (fraction.length > allowed) {
    return allowed === 0
      ? `${currency} amounts must be round numbers, without decimals.`
      : `${currency} amounts have at most ${allowed} decimals.`
  }
  return undefined
}

/**
 * The payout fee: 1% in every example of the Payout API (500 → 5, 1000 → 10, 15000 → 150,
 * 16000 → 160); the real schedule is per contract and not published. Rounded to the currency.
 */
export function payoutFee(receiveAmount: string, currency: string, percent: number): string {
  const fee = (Number(receiveAmount) * percent) / 100
  const decimals = decimalsOf(currency)
  const rounded = Math.round(fee * 10 ** decimals) / 10 ** decimals
  return decimals === 0 ? String(rounded) : String(Number(rounded.toFixed(decimals)))
}
