import { createPublicKey } from 'node:crypto'
import { readFileSync } from 'node:fs'

/**
 * OPERATORS_FILE (CONTRACT.md, Operators): the live connections of this deployment. It holds
 * secrets, so no message here ever quotes a value: a bad entry is named by its index, channel
 * and field only.
 */
export interface Connection {
  channel: string
  countries: string[]
  adapter: string
  baseUrl: string
  /** The adapter's own fields (credentials, environment), checked by the adapter's field list. */
  settings: Record<string, unknown>
}

/** The credential fields each adapter needs, as paths into its entry. */
export const adapterFields: Record<string, readonly string[]> = {
  'mtn-momo': [
    'targetEnvironment',
    'collection.apiUser',
    'collection.apiKey',
    'collection.subscriptionKey',
    'disbursement.apiUser',
    'disbursement.apiKey',
    'disbursement.subscriptionKey',
  ],
  wave: ['apiKey', 'webhookSecret'],
  'orange-money': ['clientId', 'clientSecret', 'merchantKey'],
  pawapay: ['apiToken'],
}

/**
 * What an adapter's entry needs beyond its string fields: a problem, naming the field and never
 * quoting a value, or undefined.
 */
const adapterChecks: Record<
  string,
  (settings: Record<string, unknown>, countries: string[]) => string | undefined
> = {
  // pawaPay: the provider code of every country served ({"BJ": "MOOV_BEN"}), and optionally the
  // public key its callbacks are signed with.
  pawapay: (settings, countries) => {
    const providers = settings.providers
    if (typeof providers !== 'object' || providers === null || Array.isArray(providers))
      return 'providers is required (an object mapping each country to its pawaPay provider code)'
    for (const country of countries) {
      const code = (providers as Record<string, unknown>)[country]
      if (typeof code !== 'string' || !/^[A-Z][A-Z0-9_]*$/.test(code))
        return `providers.${country} is required (a pawaPay provider code, such as MOOV_BEN)`
    }
    return callbackKeyProblem(settings.callbackPublicKey)
  },
}

function callbackKeyProblem(key: unknown): string | undefined {
  if (key === undefined) return undefined
  try {
    if (typeof key === 'string') {
      createPublicKey(key)
      return undefined
    }
  } catch {}
  return "callbackPublicKey must be a public key in PEM (pawaPay's /v2/public-key/http)"
}

export class OperatorsFileError extends Error {}

export function readOperatorsFile(path: string): Connection[] {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    throw new OperatorsFileError(`OPERATORS_FILE ${path} cannot be read`)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new OperatorsFileError(`OPERATORS_FILE ${path} is not valid JSON`)
  }
  const connections = (parsed as { connections?: unknown } | null)?.connections
  if (!Array.isArray(connections))
    throw new OperatorsFileError('OPERATORS_FILE must be an object with a "connections" array')
  const read = connections.map((entry, index) => readConnection(entry, index))
  refuseOverlaps(read)
  return read
}

function readConnection(entry: unknown, index: number): Connection {
  const where = (field: string) => {
    const channel =
      typeof (entry as { channel?: unknown })?.channel === 'string'
        ? ` (${(entry as { channel: string }).channel})`
        : ''
    return `OPERATORS_FILE connections[${index}]${channel}: ${field}`
  }
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
    throw new OperatorsFileError(where('must be an object'))
  const { channel, countries, adapter, baseUrl, ...settings } = entry as Record<string, unknown>
  if (typeof channel !== 'string' || !/^[a-z0-9-]+$/.test(channel))
    throw new OperatorsFileError(where('channel must be a lower-case operator code, such as mtn-momo'))
  if (
    !Array.isArray(countries) ||
    countries.length === 0 ||
    !countries.every((c) => typeof c === 'string' && /^[A-Z]{2}$/.test(c))
  )
    throw new OperatorsFileError(where('countries must be a non-empty list of ISO codes, such as ["CI"]'))
  if (typeof adapter !== 'string' || !Object.hasOwn(adapterFields, adapter))
    throw new OperatorsFileError(where(`adapter must be one of ${Object.keys(adapterFields).join(', ')}`))
  if (typeof baseUrl !== 'string' || !/^https?:\/\/[^\s]+$/.test(baseUrl))
    throw new OperatorsFileError(where('baseUrl must be an http(s) URL'))
  for (const field of adapterFields[adapter]!) {
    const value = field
      .split('.')
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], settings)
    if (typeof value !== 'string' || value.length === 0)
      throw new OperatorsFileError(where(`${field} is required (a non-empty string)`))
  }
  const problem = adapterChecks[adapter]?.(settings, countries as string[])
  if (problem) throw new OperatorsFileError(where(problem))
  return {
    channel,
    countries: countries as string[],
    adapter,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    settings,
  }
}

/** One channel and country is served by one connection, or a payment could go two ways. */
function refuseOverlaps(connections: Connection[]): void {
  const seen = new Map<string, number>()
  connections.forEach((connection, index) => {
    for (const country of connection.countries) {
      const key = `${connection.channel}/${country}`
      const first = seen.get(key)
      if (first !== undefined)
        throw new OperatorsFileError(
          `OPERATORS_FILE connections[${index}] (${connection.channel}): ${country} is already served by connections[${first}]`,
        )
      seen.set(key, index)
    }
  })
}
