import { connectionId } from '../simulator.ts'
import { countryByIso2, countryByIso3, providerFor } from './providers.ts'
import type { SimulatorState } from './state.ts'

/**
 * The `connections` entry of Sika's OPERATORS_FILE for this simulator: its base URL, the API token
 * it accepts, and for each country the pawaPay provider code of the channel there (`moov-money` in
 * BJ is MOOV_BEN). A country where pawaPay has no provider for the channel is left out of `providers`.
 */
export function connectionEntry(
  state: SimulatorState,
  channel: string,
  countries: readonly string[],
): Record<string, unknown> {
  const providers: Record<string, string> = {}
  for (const code of countries) {
    const country = countryByIso2(code) ?? countryByIso3(code.toUpperCase())
    const provider = country === undefined ? undefined : providerFor(channel, country.iso3)
    if (provider) providers[code] = provider.code
  }
  return {
    id: connectionId(channel, countries),
    channel,
    countries: [...countries],
    adapter: 'pawapay',
    baseUrl: state.url,
    apiToken: state.tokens.current,
    providers,
  }
}
