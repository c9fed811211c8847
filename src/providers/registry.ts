import type { Direction, Mode } from '../domain/kinds.ts'
import type { LowBalanceAlert } from './operators-file.ts'
import type { ProviderAdapter } from './provider.ts'

/** Which adapter moves a side's money: sandbox mode always uses the sandbox; live mode asks the channel. */
export interface ProviderRegistry {
  adapterFor(mode: Mode, channel: string, country: string): ProviderAdapter
  /**
   * Whether a side can go anywhere: always in the sandbox; in live mode only through a connected
   * (channel, country) whose adapter moves money that way (CONTRACT.md, Operators).
   */
  connects(mode: Mode, channel: string, country: string, direction: Direction): boolean
  /**
   * By adapter name, for operators' notifications (POST /providers/:name/notifications): every
   * connection of that adapter, as two Wave wallets sign with two secrets.
   */
  byName(name: string): readonly ProviderAdapter[]
  /** Every live connection of OPERATORS_FILE, in the file's order (the console's operator accounts, the reconciliation's runs). */
  liveConnections(): readonly LiveConnection[]
  /** The live connection with this id, or undefined. */
  liveConnection(id: string): LiveConnection | undefined
}

const notConnected = (channel: string) => ({
  status: 'error' as const,
  reason: { code: 'operator_not_connected', message: `No live connection to ${channel} is configured.` },
})

/**
 * A live side whose connection is no longer in OPERATORS_FILE (removed since its initiation). A
 * side never submitted moved nothing, so it is an error; one already submitted stays pending, as
 * its money may have moved, until the connection returns or the operation expires.
 */
const unconnectedOperator: ProviderAdapter = {
  name: 'unconnected',
  directions: [],
  initiate: async (request) => notConnected(request.channel),
  pollStatus: async () => ({ status: 'pending', pollAfterMs: 60_000 }),
  parseNotification: async () => undefined,
}

/** A live adapter and the channel and country pairs it serves (one OPERATORS_FILE entry). */
export interface LiveConnection {
  /** Its name in the console, the reconciliation and the CLI: unique among the connections. */
  id: string
  channel: string
  countries: readonly string[]
  /** Where the adapter calls: /metrics tells each operator call's adapter by it. */
  baseUrl: string
  /** Its accounts' balances below which the console and /metrics raise an alert, per currency. */
  lowBalanceAlerts: readonly LowBalanceAlert[]
  adapter: ProviderAdapter
}

export function createProviderRegistry(
  sandbox: ProviderAdapter,
  live: readonly LiveConnection[] = [],
): ProviderRegistry {
  const named = new Map<string, ProviderAdapter[]>([[sandbox.name, [sandbox]]])
  const byRoute = new Map<string, ProviderAdapter>()
  for (const connection of live) {
    named.set(connection.adapter.name, [...(named.get(connection.adapter.name) ?? []), connection.adapter])
    for (const country of connection.countries)
      byRoute.set(`${connection.channel}/${country}`, connection.adapter)
  }
  return {
    adapterFor: (mode, channel, country) =>
      mode === 'sandbox' ? sandbox : (byRoute.get(`${channel}/${country}`) ?? unconnectedOperator),
    connects: (mode, channel, country, direction) =>
      mode === 'sandbox' || (byRoute.get(`${channel}/${country}`)?.directions.includes(direction) ?? false),
    byName: (name) => named.get(name) ?? [],
    liveConnections: () => live,
    liveConnection: (id) => live.find((connection) => connection.id === id),
  }
}
