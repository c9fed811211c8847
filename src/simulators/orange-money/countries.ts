/**
 * The country path segments of /orange-money-webpay/{country}/v1 and the currencies each takes.
 * `dev` is the sandbox, which takes only "OUV" ("On API DEV we use OUV as currency. On API
 * country is the country currency", Orange's WebPay Dev guide). The country list and the
 * currencies are from public integrations, not from an Orange table (SOURCES.md, "Countries").
 */
export const countryCurrencies: Readonly<Record<string, readonly string[]>> = {
  dev: ['OUV'],
  bf: ['XOF'],
  ci: ['XOF'],
  ml: ['XOF'],
  ne: ['XOF'],
  sn: ['XOF'],
  cf: ['XAF'],
  cm: ['XAF'],
  gn: ['GNF'],
  mg: ['MGA'],
  cd: ['CDF', 'USD'],
  bw: ['BWP'],
  lr: ['LRD', 'USD'],
  sl: ['SLE', 'SLL'],
}

export function isKnownCountry(segment: string): boolean {
  return Object.hasOwn(countryCurrencies, segment)
}

export function acceptsCurrency(segment: string, currency: string): boolean {
  return countryCurrencies[segment]?.includes(currency) ?? false
}
