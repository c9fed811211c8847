import type { Mode } from '../domain/kinds.ts'
import type { ProviderAdapter } from './provider.ts'

/** Which adapter moves a side's money: sandbox mode always uses the sandbox; live mode asks the channel. */
export interface ProviderRegistry {
  adapterFor(mode: Mode, channel: string, country: string): ProviderAdapter
  /** By adapter name, for operators' notifications (POST /providers/:name/notifications). */
  byName(name: string): ProviderAdapter | undefined
}

const notConnected = (channel: string) => ({
  status: 'error' as const,
  reason: { code: 'operator_not_connected', message: `No live connection to ${channel} is configured.` },
})

/** Live mode with no adapter for the channel: a technical error, and no money moves. */
const unconnectedOperator: ProviderAdapter = {
  name: 'unconnected',
  initiate: async (request) => notConnected(request.channel),
  pollStatus: async (request) => notConnected(request.channel),
  parseNotification: async () => undefined,
}

/** A live adapter and the channel and country pairs it serves (one OPERATORS_FILE entry). */
export interface LiveConnection {
  channel: string
  countries: readonly string[]
  adapter: ProviderAdapter
}

export function createProviderRegistry(
  sandbox: ProviderAdapter,
  live: readonly LiveConnection[] = [],
): ProviderRegistry {
  const named = new Map<string, ProviderAdapter>([[sandbox.name, sandbox]])
  const byRoute = new Map<string, ProviderAdapter>()
  for (const connection of live) {
    named.set(connection.adapter.name, connection.adapter)
    for (const country of connection.countries)
      byRoute.set(`${connection.channel}/${country}`, connection.adapter)
  }
  return {
    adapterFor: (mode, channel, country) =>
      mode === 'sandbox' ? sandbox : (byRoute.get(`${channel}/${country}`) ?? unconnectedOperator),
    byName: (name) => named.get(name),
  }
}
