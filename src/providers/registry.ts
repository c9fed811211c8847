import type { Mode } from '../domain/kinds.ts'
import type { ProviderAdapter } from './provider.ts'

/** Which adapter moves a side's money: sandbox mode always uses the sandbox; live mode asks the channel. */
export interface ProviderRegistry {
  adapterFor(mode: Mode, channel: string): ProviderAdapter
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

export function createProviderRegistry(
  sandbox: ProviderAdapter,
  liveAdapters: Record<string, ProviderAdapter> = {},
): ProviderRegistry {
  const named = new Map<string, ProviderAdapter>([[sandbox.name, sandbox]])
  for (const adapter of Object.values(liveAdapters)) named.set(adapter.name, adapter)
  return {
    adapterFor: (mode, channel) =>
      mode === 'sandbox' ? sandbox : (liveAdapters[channel] ?? unconnectedOperator),
    byName: (name) => named.get(name),
  }
}
