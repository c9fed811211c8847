import { decimalsOf, toUnits } from './amounts.ts'
import type { AccountDetails } from './bodies.ts'
import type { SimulatorConfig } from './config.ts'
import { type Refusal, rejections } from './errors.ts'
import type { Checked } from './fields.ts'
import type { OperationKind } from './operations.ts'
import { countryByIso3, type Provider, providerByCode } from './providers.ts'

/** Decimal places the provider accepts for this operation; refunds move money out, like payouts. */
export function allowedDecimals(provider: Provider, currency: string, kind: OperationKind): number {
  const decimals = provider.currencies[currency]
  if (decimals === undefined) return 0
  return kind === 'deposit' ? decimals.deposit : decimals.payout
}

/** The phone number: digits only, the provider's country code first, then a national number. */
export function phoneNumberFits(phoneNumber: string, provider: Provider): boolean {
  const country = countryByIso3(provider.country)
  if (country === undefined || !/^\d+$/.test(phoneNumber) || !phoneNumber.startsWith(country.prefix)) {
    return false
  }
  return country.nationalLengths.includes(phoneNumber.length - country.prefix.length)
}

/** Amount checks shared by every operation: decimals, then the transaction limits. */
export function checkAmount(
  config: SimulatorConfig,
  provider: Provider,
  amount: string,
  currency: string,
  kind: OperationKind,
): Refusal | undefined {
  if (decimalsOf(amount) > allowedDecimals(provider, currency, kind)) {
    return rejections.invalidAmount(provider.code)
  }
  const units = toUnits(amount)
  if (units < toUnits(config.minAmount) || units > toUnits(config.maxAmount)) {
    return rejections.amountOutOfBounds(config.minAmount, config.maxAmount)
  }
  return undefined
}

/** The provider itself: known, and not CLOSED. */
export function checkProvider(config: SimulatorConfig, code: string): Checked<Provider> {
  const provider = providerByCode(code)
  if (provider === undefined) return { refusal: rejections.invalidProvider(code) }
  if (config.closedProviders.includes(code)) return { refusal: rejections.providerUnavailable(code) }
  return { value: provider }
}

/**
 * A deposit's or payout's values, checked against the provider as pawaPay does before accepting:
 * each failure is answered 200 REJECTED with its code (failure-codes table).
 */
export function checkPaymentRules(
  config: SimulatorConfig,
  kind: OperationKind,
  details: AccountDetails,
  amount: string,
  currency: string,
): Checked<Provider> {
  const provider = checkProvider(config, details.provider)
  if (provider.refusal) return provider
  if (provider.value.currencies[currency] === undefined) {
    return { refusal: rejections.invalidCurrency(currency, provider.value.code) }
  }
  if (!phoneNumberFits(details.phoneNumber, provider.value)) {
    return { refusal: rejections.invalidPhoneNumber(details.phoneNumber, provider.value.code) }
  }
  const refusal = checkAmount(config, provider.value, amount, currency, kind)
  return refusal ? { refusal } : provider
}
