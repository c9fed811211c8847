import { isIP } from 'node:net'
import { dirname, resolve } from 'node:path'
import { isTimeZone } from './domain/reconciliation-days.ts'
import {
  type DatabaseLocation,
  defaultDatabaseUrl,
  parseDatabaseLocation,
} from './store/database-location.ts'

/** The settings of one Sika process, read once from the environment and frozen. */
export interface Config {
  readonly port: number
  readonly host: string
  readonly database: DatabaseLocation
  /**
   * The longest a database statement may take before it is abandoned (DATABASE_STATEMENT_TIMEOUT,
   * or DATABASE_TIMEOUT, its older name, when the new one is unset). A frozen database then answers
   * 503 within a few seconds instead of holding requests.
   */
  readonly databaseStatementTimeoutMs: number
  readonly publicBaseUrl: string
  readonly logLevel: LogLevel
  /** Where the key that encrypts webhook secrets at rest comes from. */
  readonly secretsKey:
    | { readonly kind: 'value'; readonly value: Buffer }
    | { readonly kind: 'file'; readonly path: string }
  readonly operationTtlMs: number
  readonly sandboxDelayMs: number
  readonly rateLimitPerSecond: number
  /** API requests one instance works on at once (0: no limit); more wait up to admissionWaitMs, then 503. */
  readonly maxInFlight: number
  readonly admissionWaitMs: number
  /**
   * How long a stretch of the event loop starts API requests before the rest wait for a later turn
   * (REQUEST_TIME_PER_TURN_MS, or TURN_BUDGET_MS, its older name, when the new one is unset; 0: no
   * limit; SQLite only by default).
   */
  readonly requestTimePerTurnMs: number
  /** Failed authentications allowed per (api-key, client address) and per client address in 10 s (AUTH_FAILURE_LIMIT; 0: unlimited). */
  readonly authFailureLimit: number
  /**
   * TRUST_PROXY: the addresses and CIDRs of the proxies in front, whose X-Forwarded-For is believed
   * (Fastify's trustProxy), so per-address limits see the client; empty: the peer is the client.
   */
  readonly trustProxy: readonly string[]
  readonly redisUrl: string | undefined
  /** Whether this instance runs scheduled work and callback delivery (WORKERS=off: API only). */
  readonly runWorkers: boolean
  /** Whether callbacks are delivered from a thread of their own (DELIVERY_THREAD; off by default). */
  readonly deliveryThread: boolean
  /**
   * Callback deliveries in flight or being recorded at once in this instance, per mode
   * (CALLBACK_CONCURRENCY): sandbox and live each have as many. Shared fairly between merchants,
   * then between a merchant's endpoints (events/fair-shares.ts); a silent endpoint's stop counting.
   */
  readonly callbackConcurrency: number
  /** OPERATORS_FILE: the JSON file of live operator connections, read and checked at start. */
  readonly operatorsFile: string | undefined
  /**
   * RECONCILIATION_REVIEW_AMOUNT: a break worth more than this many XOF (100,000 by default; a
   * break in another currency valued at the fixed rates of domain/review-amount.ts) is resolved
   * or ignored only once a second finance member approves.
   */
  readonly reconciliationReviewAmount: number
  /** RECONCILIATION_TIMEZONE: the IANA zone whose calendar days the reconciliation's runs cover (UTC). */
  readonly reconciliationTimezone: string
  /** METRICS_TOKEN: when set, GET /metrics requires `Authorization: Bearer <token>`. */
  readonly metricsToken: string | undefined
  /** METRICS_HOST and METRICS_PORT: where /metrics listens, apart from the API (127.0.0.1:9464; port 0: any free one). */
  readonly metricsHost: string
  readonly metricsPort: number
  /**
   * Whether METRICS_PORT was given. The default port taken (a second Sika on this machine, whose
   * PORT alone differs) does not stop the start: /metrics listens on a free port instead, with a
   * warning that names METRICS_PORT. A port that was given and is taken stops the start.
   */
  readonly metricsPortGiven: boolean
  /**
   * SPEED_MECHANISMS_OFF: mechanisms that only make Sika faster, switched off (comma-separated
   * names from `speedMechanisms`), so that a bench can measure what each one earns. Every answer,
   * row and commit's durability is the same with any of them off. None by default.
   */
  readonly speedMechanismsOff: ReadonlySet<SpeedMechanism>
}

/**
 * The speed mechanisms that can be switched off: SQLite's group commit and its WAL sync off the
 * event loop, PostgreSQL's held writes, read batches and merchant group commit, and the grouped
 * writes of callback attempts and scheduled work's completions (docs/architecture.md names each).
 */
export const speedMechanisms = [
  'group-commit',
  'wal-sync',
  'held-writes',
  'read-batches',
  'merchant-group-commit',
  'grouped-writes',
] as const
export type SpeedMechanism = (typeof speedMechanisms)[number]

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof logLevels)[number]

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`)
  }
}

type Environment = Record<string, string | undefined>

/** Reads variables (blank is unset) and whole numbers in a range, adding a problem for each bad one. */
function environmentReader(environment: Environment, problems: string[]) {
  const read = (name: string): string | undefined => {
    const value = environment[name]
    return value === undefined || value.trim() === '' ? undefined : value.trim()
  }
  /**
   * The variable to read for a renamed setting: its name, or the older name kept as an alias so
   * that existing deployments keep working. The name wins when both are set.
   */
  const named = (name: string, olderName: string): string =>
    read(name) === undefined && read(olderName) !== undefined ? olderName : name
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name)
    if (raw === undefined) return fallback
    const value = Number(raw)
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`)
      return fallback
    }
    return value
  }
  return { read, named, integer }
}

/** Parses every setting, collecting all problems so the operator fixes them in one go. */
export function loadConfig(environment: Environment = process.env): Config {
  const problems: string[] = []
  const { read, named, integer } = environmentReader(environment, problems)

  const port = integer('PORT', 3000, 0, 65535)
  // This machine only, unless told (a first start prints demo keys); a container sets HOST=0.0.0.0.
  const host = read('HOST') ?? '127.0.0.1'
  const database = databaseLocation(read('DATABASE_URL') ?? defaultDatabaseUrl, problems)
  const statementTimeout = named('DATABASE_STATEMENT_TIMEOUT', 'DATABASE_TIMEOUT')
  const databaseStatementTimeoutMs = parseDuration(statementTimeout, read(statementTimeout), 2000, problems)

  const publicBaseUrl = (read('PUBLIC_BASE_URL') ?? `http://localhost:${port}`).replace(/\/+$/, '')
  if (!isHttpUrl(publicBaseUrl))
    problems.push(`PUBLIC_BASE_URL must be an http(s) URL, got "${publicBaseUrl}"`)

  const logLevel = parseLogLevel(read('LOG_LEVEL') ?? 'info', problems)

  const secretsKey = parseSecretsKey(read('SECRETS_KEY'), read('SECRETS_KEY_FILE'), database, problems)

  const operationTtlMs = parseDuration('OPERATION_TTL', read('OPERATION_TTL'), 15 * 60_000, problems)
  const sandboxDelayMs = integer('SANDBOX_DELAY_MS', 3000, 0, 3_600_000)
  const rateLimitPerSecond = integer('RATE_LIMIT_PER_SECOND', 100, 0, 1_000_000)
  const maxInFlight = integer('MAX_IN_FLIGHT', 64, 0, 100_000)
  const admissionWaitMs = integer('ADMISSION_WAIT_MS', 100, 1, 60_000)
  const requestTimePerTurn = named('REQUEST_TIME_PER_TURN_MS', 'TURN_BUDGET_MS')
  const requestTimePerTurnMs = integer(requestTimePerTurn, defaultRequestTimePerTurnMs(database), 0, 1_000)
  const authFailureLimit = integer('AUTH_FAILURE_LIMIT', 10, 0, 1_000_000)
  const trustProxy = parseTrustProxy(read('TRUST_PROXY'), problems)
  const redisUrl = read('REDIS_URL')
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl))
    problems.push(`REDIS_URL must start with redis:// or rediss://, got "${redisUrl}"`)

  const runWorkers = onOrOff('WORKERS', read('WORKERS'), true, problems)
  const deliveryThread = deliveryThreadSetting(read('DELIVERY_THREAD'), database, problems)
  const callbackConcurrency = integer('CALLBACK_CONCURRENCY', defaultCallbackConcurrency, 1, 1024)
  const metricsHost = read('METRICS_HOST') ?? '127.0.0.1'
  const metricsPort = integer('METRICS_PORT', 9464, 0, 65535)
  const reconciliation = reconciliationSettings(read, integer, problems)
  const speedMechanismsOff = parseSpeedMechanisms(read('SPEED_MECHANISMS_OFF'), problems)

  if (problems.length > 0) throw new ConfigError(problems)
  return Object.freeze({
    port,
    host,
    database,
    databaseStatementTimeoutMs,
    publicBaseUrl,
    logLevel,
    secretsKey,
    operationTtlMs,
    sandboxDelayMs,
    rateLimitPerSecond,
    maxInFlight,
    admissionWaitMs,
    requestTimePerTurnMs,
    authFailureLimit,
    trustProxy,
    redisUrl,
    runWorkers,
    deliveryThread,
    callbackConcurrency,
    operatorsFile: read('OPERATORS_FILE'),
    ...reconciliation,
    metricsToken: read('METRICS_TOKEN'),
    metricsHost,
    metricsPort,
    metricsPortGiven: read('METRICS_PORT') !== undefined,
    speedMechanismsOff,
  })
}

function reconciliationSettings(
  read: (name: string) => string | undefined,
  integer: (name: string, fallback: number, least: number, most: number) => number,
  problems: string[],
): Pick<Config, 'reconciliationReviewAmount' | 'reconciliationTimezone'> {
  const reconciliationTimezone = read('RECONCILIATION_TIMEZONE') ?? 'UTC'
  if (!isTimeZone(reconciliationTimezone))
    problems.push(
      `RECONCILIATION_TIMEZONE must be an IANA time zone such as Africa/Abidjan, got "${reconciliationTimezone}"`,
    )
  return {
    reconciliationReviewAmount: integer('RECONCILIATION_REVIEW_AMOUNT', 100_000, 0, 1_000_000_000_000),
    reconciliationTimezone,
  }
}

function parseSpeedMechanisms(raw: string | undefined, problems: string[]): ReadonlySet<SpeedMechanism> {
  const names = raw === undefined ? [] : raw.split(',').map((name) => name.trim())
  const known = names.filter((name): name is SpeedMechanism =>
    (speedMechanisms as readonly string[]).includes(name),
  )
  const unknown = names.filter((name) => !(speedMechanisms as readonly string[]).includes(name))
  if (unknown.length > 0)
    problems.push(
      `SPEED_MECHANISMS_OFF lists mechanisms separated by commas, from ${speedMechanisms.join(', ')}; not ${unknown.map((name) => `"${name}"`).join(', ')}`,
    )
  return new Set(known)
}

/** A comma-separated list of IPv4 or IPv6 addresses and CIDRs (10.0.0.0/8, fd00::/8). */
function parseTrustProxy(raw: string | undefined, problems: string[]): readonly string[] {
  if (raw === undefined) return Object.freeze([])
  const entries = raw.split(',').map((entry) => entry.trim())
  const wrong = entries.filter((entry) => !isAddressOrCidr(entry))
  if (wrong.length > 0)
    problems.push(
      `TRUST_PROXY must list the proxies' addresses or CIDRs, separated by commas (such as 10.0.0.5,10.1.0.0/16,fd00::/8); not ${wrong.map((entry) => `"${entry}"`).join(', ')}`,
    )
  return Object.freeze(entries.filter(isAddressOrCidr))
}

function isAddressOrCidr(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/')
  const family = isIP(address)
  if (family === 0 || rest.length > 0) return false
  if (prefix === undefined) return true
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128)
}

function parseLogLevel(raw: string, problems: string[]): LogLevel {
  const level = logLevels.find((known) => known === raw)
  if (!level) problems.push(`LOG_LEVEL must be one of ${logLevels.join(', ')}, got "${raw}"`)
  return level ?? 'info'
}

function onOrOff(name: string, raw: string | undefined, fallback: boolean, problems: string[]): boolean {
  if (raw === undefined) return fallback
  if (raw !== 'on' && raw !== 'off') problems.push(`${name} must be on or off, got "${raw}"`)
  return raw === 'on'
}

/**
 * Off unless asked for: the thread loads its own bundle and opens the store again, which costs
 * memory, and at saturation its callbacks run further behind the operations; what it gives back is
 * more collects a second on SQLite (`git show f72dada:BENCHMARKS.md`). A database in memory cannot be opened by a
 * second connection: the thread would deliver from an empty one.
 */
function deliveryThreadSetting(
  raw: string | undefined,
  database: DatabaseLocation,
  problems: string[],
): boolean {
  const on = onOrOff('DELIVERY_THREAD', raw, false, problems)
  if (on && database.kind === 'sqlite' && database.path === ':memory:')
    problems.push(
      'DELIVERY_THREAD=on needs a database the thread can open too: a SQLite file or PostgreSQL, not :memory:',
    )
  return on
}

/**
 * SQLite answers a request without yielding, so a burst of them holds the event loop (turn-budget.ts).
 * On PostgreSQL every query yields already: holding requests back leaves the loop as free as it is,
 * and makes each merchant's group commits smaller, so its writes slower (BENCHMARKS.md).
 */
function defaultRequestTimePerTurnMs(database: DatabaseLocation): number {
  return database.kind === 'sqlite' ? 4 : 0
}

/**
 * Callback deliveries at once per instance and mode: a merchant alone may hold half of them, 32,
 * and its endpoint 16 in flight once it has earned them (and as many waiting). Claims and records
 * take more events at a time with more slots, so a burst of collects leaves a backlog of callbacks
 * that drains sooner than with fewer (BENCHMARKS.md).
 */
const defaultCallbackConcurrency = 64

function databaseLocation(value: string, problems: string[]): DatabaseLocation {
  try {
    return parseDatabaseLocation(value)
  } catch (error) {
    problems.push(
      `DATABASE_URL must be a postgres:// URL, a SQLite file's path or its file: URL, got "${value}" (${(error as Error).message})`,
    )
    return parseDatabaseLocation(defaultDatabaseUrl)
  }
}

function parseSecretsKey(
  value: string | undefined,
  file: string | undefined,
  database: DatabaseLocation,
  problems: string[],
): Config['secretsKey'] {
  if (value !== undefined) {
    const key = /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64')
    if (key.length !== 32) problems.push('SECRETS_KEY must be 32 bytes, as 64 hex digits or base64')
    return { kind: 'value', value: key }
  }
  // Without an explicit key, one is kept in a file beside the SQLite database (or in ./data).
  const folder =
    database.kind === 'sqlite' && database.path !== ':memory:' ? dirname(database.path) : resolve('data')
  return { kind: 'file', path: resolve(file ?? `${folder}/secrets.key`) }
}

const durationUnits: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

/** Accepts milliseconds ("900000") or a number with a unit ("15m", "30s", "2h"). */
function parseDuration(name: string, raw: string | undefined, fallback: number, problems: string[]): number {
  if (raw === undefined) return fallback
  const match = /^(\d+)(ms|s|m|h)?$/.exec(raw)
  const value = match ? Number(match[1]) * (durationUnits[match[2] ?? 'ms'] ?? 1) : Number.NaN
  if (!Number.isSafeInteger(value) || value < 1000) {
    problems.push(`${name} must be a duration of at least 1s, such as 900000, 90s, 15m or 2h; got "${raw}"`)
    return fallback
  }
  return value
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:'
  } catch {
    return false
  }
}
