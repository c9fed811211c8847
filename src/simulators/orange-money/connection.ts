import { connectionId } from '../simulator.ts'
import type { SimulatorState } from './state.ts'

/**
 * The `connections` entry of Sika's OPERATORS_FILE (CONTRACT.md, Operators) for this simulator,
 * with the credentials it accepts.
 */
export function connectionEntry(
  state: SimulatorState,
  channel: string,
  countries: readonly string[],
): Record<string, unknown> {
  return {
    id: connectionId(channel, countries),
    channel,
    countries: [...countries],
    adapter: 'orange-money',
    baseUrl: state.url,
    clientId: state.config.clientId,
    clientSecret: state.config.clientSecret,
    merchantKey: state.config.merchantKey,
  }
}
