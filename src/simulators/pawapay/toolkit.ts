import { refuse } from './answers.ts'
import { technical } from './errors.ts'
import { parseObject, requiredString } from './fields.ts'
import { type Exchange, queryOf, sendJson } from './http-io.ts'
import { type OperationSpec, operations } from './operations.ts'
import { type Country, countries, countryOfNumber, type Provider, providers } from './providers.ts'
import { allowedDecimals } from './rules.ts'
import type { SimulatorState } from './state.ts'

/** One operation type of a provider's currency, as active configuration lists it. */
function operationConfig(state: SimulatorState, provider: Provider, currency: string, spec: OperationSpec) {
  const { config } = state
  const deposit =
    spec.kind === 'deposit'
      ? {
          authType: provider.authType,
          ...(provider.authType === 'PROVIDER_AUTH'
            ? { pinPrompt: 'AUTOMATIC', pinPromptRevivable: false }
            : {}),
        }
      : {}
  return {
    ...deposit,
    minAmount: config.minAmount,
    maxAmount: config.maxAmount,
    decimalsInAmount: allowedDecimals(provider, currency, spec.kind) === 2 ? 'TWO_PLACES' : 'NONE',
    status: config.closedProviders.includes(provider.code) ? 'CLOSED' : 'OPERATIONAL',
    ...(config.callbackUrls[spec.kind] === undefined ? {} : { callbackUrl: config.callbackUrls[spec.kind] }),
  }
}

function providerConfig(state: SimulatorState, provider: Provider, wanted: readonly OperationSpec[]) {
  return {
    provider: provider.code,
    displayName: provider.displayName,
    logo: `https://static-content.pawapay.io/company_logos/${provider.displayName.toLowerCase()}.png`,
    nameDisplayedToCustomer: state.config.companyName,
    currencies: Object.keys(provider.currencies).map((currency) => ({
      currency,
      displayName: currency,
      operationTypes: Object.fromEntries(
        wanted.map((spec) => [spec.operationType, operationConfig(state, provider, currency, spec)]),
      ),
    })),
  }
}

function countryConfig(state: SimulatorState, country: Country, wanted: readonly OperationSpec[]) {
  return {
    country: country.iso3,
    displayName: { ...country.names },
    prefix: country.prefix,
    flag: `https://static-content.pawapay.io/country_flags/${country.iso3.toLowerCase()}.svg`,
    providers: providers
      .filter((provider) => provider.country === country.iso3)
      .map((provider) => providerConfig(state, provider, wanted)),
  }
}

/** GET /v2/active-conf[?country=ISO3][&operationType=DEPOSIT|PAYOUT|REFUND]. */
export function activeConfiguration(state: SimulatorState, { request, response }: Exchange) {
  const query = queryOf(request.url)
  const country = query.get('country')
  const operationType = query.get('operationType')
  const wanted = operations.filter((spec) => operationType === null || spec.operationType === operationType)
  sendJson(response, 200, {
    companyName: state.config.companyName,
    signatureConfiguration: { signedRequestsOnly: false, signedCallbacks: state.config.signCallbacks },
    countries: countries
      .filter((candidate) => country === null || candidate.iso3 === country)
      .map((candidate) => countryConfig(state, candidate, wanted)),
  })
}

/**
 * POST /v2/predict-provider `{phoneNumber}`: strips everything but digits and leading zeros, finds
 * the country by its calling code and answers its first provider (pawaPay predicts from number
 * ranges the simulator does not have; SOURCES.md, "Predict provider").
 */
export function predictProvider(_state: SimulatorState, { response, body }: Exchange) {
  const parsed = parseObject(body)
  if (parsed.refusal) return refuse(response, parsed.refusal)
  const phoneNumber = requiredString(parsed.value, 'phoneNumber')
  if (phoneNumber.refusal) return refuse(response, phoneNumber.refusal)
  const digits = phoneNumber.value.replace(/\D/g, '').replace(/^0+/, '')
  const country = countryOfNumber(digits)
  const provider = providers.find((candidate) => candidate.country === country?.iso3)
  const national = country === undefined ? 0 : digits.length - country.prefix.length
  if (country === undefined || provider === undefined || !country.nationalLengths.includes(national)) {
    return refuse(
      response,
      technical.invalidParameter('phoneNumber', "the phone number does not match any provider's format."),
    )
  }
  sendJson(response, 200, { country: country.iso3, provider: provider.code, phoneNumber: digits })
}

/** GET /v2/public-key/http: the keys pawaPay signs callbacks with, `[{id, key}]`. */
export function publicKeys(state: SimulatorState, { response }: Exchange) {
  sendJson(response, 200, [{ id: state.signer.keyId, key: state.signer.publicKeyPem }])
}
