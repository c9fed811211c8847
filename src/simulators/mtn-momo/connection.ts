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
  const { collection, disbursement } = state.config.credentials
  return {
    channel,
    countries: [...countries],
    adapter: 'mtn-momo',
    baseUrl: state.url,
    targetEnvironment: state.config.targetEnvironment,
    collection: { ...collection },
    disbursement: { ...disbursement },
  }
}
