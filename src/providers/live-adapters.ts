import type { MtnConnection } from './mtn-momo/client.ts'
import { createMtnMomoAdapter } from './mtn-momo/mtn-momo-adapter.ts'
import { type Connection, readOperatorsFile } from './operators-file.ts'
import { createOrangeMoneyAdapter } from './orange-money/orange-money-adapter.ts'
import { createPawapayAdapter } from './pawapay/pawapay-adapter.ts'
import type { ProviderAdapter } from './provider.ts'
import type { LiveConnection } from './registry.ts'
import { createWaveAdapter } from './wave/wave-adapter.ts'

/** How each adapter named in OPERATORS_FILE is built from its entry. */
const adapterFactories: Record<string, (connection: Connection, publicBaseUrl: string) => ProviderAdapter> = {
  'mtn-momo': (connection, publicBaseUrl) =>
    createMtnMomoAdapter({
      connection: { baseUrl: connection.baseUrl, ...(connection.settings as Omit<MtnConnection, 'baseUrl'>) },
      notificationUrl: `${publicBaseUrl}/providers/mtn-momo/notifications`,
    }),
  wave: (connection, publicBaseUrl) =>
    createWaveAdapter({
      baseUrl: connection.baseUrl,
      apiKey: String(connection.settings.apiKey),
      webhookSecret: String(connection.settings.webhookSecret),
      returnUrl: (token) => `${publicBaseUrl}/checkout/${token}/return`,
    }),
  'orange-money': (connection, publicBaseUrl) =>
    createOrangeMoneyAdapter({
      connection: {
        baseUrl: connection.baseUrl,
        clientId: String(connection.settings.clientId),
        clientSecret: String(connection.settings.clientSecret),
        merchantKey: String(connection.settings.merchantKey),
      },
      notificationUrl: `${publicBaseUrl}/providers/orange-money/notifications`,
      returnUrl: (token) => `${publicBaseUrl}/checkout/${token}/return`,
    }),
  pawapay: (connection, publicBaseUrl) =>
    createPawapayAdapter({
      baseUrl: connection.baseUrl,
      apiToken: String(connection.settings.apiToken),
      providers: connection.settings.providers as Record<string, string>,
      notificationUrl: `${publicBaseUrl}/providers/pawapay/notifications`,
      ...(typeof connection.settings.callbackPublicKey === 'string'
        ? { callbackPublicKey: connection.settings.callbackPublicKey }
        : {}),
    }),
}

/** The live connections of OPERATORS_FILE (none without it); a bad file stops the start. */
export function liveConnections(operatorsFile: string | undefined, publicBaseUrl: string): LiveConnection[] {
  if (!operatorsFile) return []
  return readOperatorsFile(operatorsFile).map((connection) => ({
    id: connection.id,
    channel: connection.channel,
    countries: connection.countries,
    baseUrl: connection.baseUrl,
    lowBalanceAlerts: connection.lowBalanceAlerts,
    adapter: adapterFactories[connection.adapter]!(connection, publicBaseUrl),
  }))
}
