import { type Currency, currencies, isCurrency, maximumMinorUnits } from '../domain/money.ts'

/**
 * Amounts as operators write them in balances and statements ("5000", "5000.00", "-1010",
 * "21798.03") in a currency's minor units. Trailing zeros past the currency's precision are the
 * operator's formatting ("5000.00" XOF is 5000); any other digit there is no amount of that
 * currency. Undefined for anything that is not such a decimal.
 */
export function minorUnitsOf(text: unknown, currency: Currency): number | undefined {
  if (typeof text !== 'string') return undefined
  const match = /^\s*([+-]?)(\d+)(?:\.(\d+))?\s*$/.exec(text)
  if (match === null) return undefined
  const [, sign = '', whole = '', fraction = ''] = match
  const scale = currencies[currency].scale
  if (/[1-9]/.test(fraction.slice(scale))) return undefined
  const minor = Number(whole + fraction.slice(0, scale).padEnd(scale, '0'))
  if (!Number.isSafeInteger(minor) || minor > maximumMinorUnits) return undefined
  return sign === '-' ? -minor : minor
}

/** The currency an operator named, when Sika holds it (its scale is then known). */
export function sikaCurrencyOf(text: unknown): Currency | undefined {
  return typeof text === 'string' && isCurrency(text) ? text : undefined
}

/**
 * An instant as operators write it, in microseconds: ISO 8601 with or without its zone (no zone is
 * UTC, as pawaPay's statement dates and its dashboard's times are), or `2026-11-21 10:00:00`.
 */
export function instantUsOf(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined
  const match = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)(Z|[+-]\d{2}:?\d{2})?$/.exec(
    text.trim(),
  )
  if (match === null) return undefined
  const [, date, time, zone = 'Z'] = match
  const ms = Date.parse(`${date}T${time}${zone}`)
  return Number.isNaN(ms) ? undefined : ms * 1000
}
