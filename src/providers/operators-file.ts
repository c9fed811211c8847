import { createPublicKey } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { type Currency, isCountry, countries as sikaCountries, toMinorUnits } from '../domain/money.ts'

/**
 * OPERATORS_FILE (CONTRACT.md, Operators): the live connections of this deployment. It holds
 * secrets, so no message here ever quotes a value: a bad entry is named by its index, channel
 * and field only.
 */
export interface Connection {
  /**
   * What the console, the reconciliation and the CLI call it (`sika reconcile --connection <id>`):
   * unique in the file; the adapter's name when only one connection uses that adapter.
   */
  id: string
  channel: string
  countries: string[]
  adapter: string
  baseUrl: string
  /** Below these balances of its operator accounts, the console and /metrics raise an alert (`lowBalanceAlert`). */
  lowBalanceAlerts: readonly LowBalanceAlert[]
  /** The adapter's own fields (credentials, environment), checked by the adapter's field list. */
  settings: Record<string, unknown>
}

/** An account balance in `currency` below `amountMinor` (minor units) is an alert. */
export interface LowBalanceAlert {
  currency: Currency
  amountMinor: number
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
  return identified(read)
}

/** What a connection is named by in messages: its index, and its channel once known. */
const whereIn = (index: number, channel?: string) =>
  `OPERATORS_FILE connections[${index}]${channel === undefined ? '' : ` (${channel})`}`

/** An entry, checked field by field; its id, when it gives none, is settled once every entry is read. */
type ReadConnection = Omit<Connection, 'id'> & { id: string | undefined }

function readConnection(entry: unknown, index: number): ReadConnection {
  const where = (field: string) => {
    const channel = (entry as { channel?: unknown })?.channel
    return `${whereIn(index, typeof channel === 'string' ? channel : undefined)}: ${field}`
  }
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
    throw new OperatorsFileError(where('must be an object'))
  const { id, lowBalanceAlert, channel, countries, adapter, baseUrl, ...settings } = entry as Record<
    string,
    unknown
  >
  if (id !== undefined && (typeof id !== 'string' || !connectionIdPattern.test(id)))
    throw new OperatorsFileError(
      where('id must be 1 to 64 lower-case letters, digits, hyphens or underscores, such as wave-sn'),
    )
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
  const alerts = readLowBalanceAlert(lowBalanceAlert, countries as string[])
  if (typeof alerts === 'string') throw new OperatorsFileError(where(alerts))
  return {
    id,
    channel,
    countries: countries as string[],
    adapter,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    lowBalanceAlerts: alerts,
    settings,
  }
}

/** Names that read the same in a URL, a Prometheus label and a shell argument. */
const connectionIdPattern = /^[a-z0-9][a-z0-9_-]{0,63}$/

/** The currencies of the countries a connection serves, when Sika knows every one of them. */
function currenciesOf(countries: readonly string[]): Currency[] | undefined {
  if (!countries.every(isCountry)) return undefined
  return [...new Set(countries.map((country) => sikaCountries[country as keyof typeof sikaCountries]))]
}

/**
 * `lowBalanceAlert`: an amount in the major units of the connection's currency (`100000`), or one
 * per currency when its countries hold several (`{"XOF": 100000, "GHS": 500}`). The alerts, or
 * the problem, naming the field and never quoting its value.
 */
function readLowBalanceAlert(value: unknown, countries: readonly string[]): LowBalanceAlert[] | string {
  if (value === undefined) return []
  const held = currenciesOf(countries)
  const perCurrency =
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? Object.entries(value as Record<string, unknown>)
      : held?.length === 1
        ? [[held[0]!, value] as const]
        : undefined
  if (perCurrency === undefined || perCurrency.length === 0)
    return 'lowBalanceAlert must be an amount per currency of the connection, such as {"XOF": 100000}, when its countries hold several currencies'
  const alerts: LowBalanceAlert[] = []
  for (const [currency, amount] of perCurrency) {
    if (held === undefined || !held.includes(currency as Currency))
      return `lowBalanceAlert.${currency} is not a currency of the connection's countries`
    const amountMinor = typeof amount === 'number' ? toMinorUnits(amount, currency as Currency) : undefined
    if (amountMinor === undefined || amountMinor <= 0)
      return `lowBalanceAlert${perCurrency.length > 1 || typeof value === 'object' ? `.${currency}` : ''} must be a positive amount in ${currency}, in major units with at most its decimals`
    alerts.push({ currency: currency as Currency, amountMinor })
  }
  return alerts
}

/**
 * Every connection's id: the one it gives, or its adapter's name when no other connection uses
 * that adapter. A missing id where several connections share an adapter, or an id given twice,
 * stops the start.
 */
function identified(connections: readonly ReadConnection[]): Connection[] {
  const perAdapter = new Map<string, number>()
  for (const { adapter } of connections) perAdapter.set(adapter, (perAdapter.get(adapter) ?? 0) + 1)
  const firstWithId = new Map<string, number>()
  return connections.map((connection, index) => {
    const where = (field: string) => `${whereIn(index, connection.channel)}: ${field}`
    if (connection.id === undefined && perAdapter.get(connection.adapter)! > 1)
      throw new OperatorsFileError(
        where(`id is required when several connections use the ${connection.adapter} adapter`),
      )
    const id = connection.id ?? connection.adapter
    const first = firstWithId.get(id)
    if (first !== undefined)
      throw new OperatorsFileError(where(`id is already the id of connections[${first}]; each id is unique`))
    firstWithId.set(id, index)
    return { ...connection, id }
  })
}

/** One channel and country is served by one connection, or a payment could go two ways. */
function refuseOverlaps(connections: readonly ReadConnection[]): void {
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
