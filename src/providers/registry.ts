import type { Mode } from '../domain/kinds.ts'
import type { ProviderAdapter } from './provider.ts'
import { sandboxAdapter } from './sandbox/sandbox-adapter.ts'

/** Which adapter moves a side's money: sandbox mode always uses the sandbox; live mode asks the channel. */
export interface ProviderRegistry {
  adapterFor(mode: Mode, channel: string): ProviderAdapter
}

/** Live mode with no adapter for the channel: answered as a technical error, and no money moves. */
const unconnectedOperator: ProviderAdapter = {
  name: 'unconnected',
  async initiate(request) {
    return {
      status: 'error',
      reason: {
        code: 'operator_not_connected',
        message: `No live connection to ${request.channel} is configured.`,
      },
    }
  },
}

export function createProviderRegistry(liveAdapters: Record<string, ProviderAdapter> = {}): ProviderRegistry {
  return {
    adapterFor(mode, channel) {
      if (mode === 'sandbox') return sandboxAdapter
      return liveAdapters[channel] ?? unconnectedOperator
    },
  }
}
