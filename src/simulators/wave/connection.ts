import { connectionId } from '../simulator.ts'
import type { SimulatorState } from './state.ts'

/**
 * The `connections` entry of Sika's OPERATORS_FILE (CONTRACT.md, Operators) for this simulator:
 * the API key it accepts and the secret its webhooks are signed with.
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
    adapter: 'wave',
    baseUrl: state.url,
    apiKey: state.config.apiKey,
    webhookSecret: state.config.webhookSecret,
  }
}
