import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import rateLimit, { normalizeIP } from '@fastify/rate-limit'
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { Redis } from 'ioredis'
import type { Logger } from 'pino'
import type { AppContext } from '../app/context.ts'
import { ApiError } from '../errors.ts'

/**
 * Rate limits (CONTRACT.md, Limits), counted by @fastify/rate-limit:
 * - every authenticated /api/v1 request, per api-key: RATE_LIMIT_PER_SECOND a second; a request
 *   without credentials, per address. Only a request that proved its key counts against the key,
 *   so knowing an api-key is not enough to spend its merchant's budget;
 * - failed authentications, per (api-key, address): AUTH_FAILURE_LIMIT in 10 s, and per address:
 *   five times that, after which that pair or that address is refused before its credentials are
 *   even looked up. The merchant presenting the right secret from any other address is served;
 * - the checkout pages, operators' notifications, /docs and /openapi.json, per address: a generous
 *   ten times the API limit (anyone may call them; an operator calls from a few addresses).
 * /health, /ready, /metrics and operators' notifications (/providers/*) are never limited.
 * RATE_LIMIT_PER_SECOND=0 turns all of it off. An address is the client's as Fastify's trustProxy
 * reads it (TRUST_PROXY): behind a proxy, the forwarded client, not the proxy.
 *
 * With REDIS_URL the counts are shared by every instance; while Redis does not answer they are kept
 * in memory, per instance, so the service keeps serving: the log says so once, and /ready's detail.
 */
export interface RateLimits {
  /**
   * After authentication: the per-key limit (a 429 past it). Counted per api-key once the request
   * is authenticated, per address for a request without credentials.
   */
  perKey(request: FastifyRequest, reply: FastifyReply): Promise<void>
  /**
   * Before credentials are checked: a 429 while the (api-key, address) pair or the address has
   * failed too often. Undefined when nothing needs to be asked (so the request does not wait a
   * turn for nothing).
   */
  refuseWhileFailing(request: FastifyRequest, apiKey: string | undefined): Promise<void> | undefined
  /** After a failed authentication: counts it, sets the headers, and answers 429 past the limit. */
  countFailure(request: FastifyRequest, reply: FastifyReply, apiKey: string | undefined): Promise<void>
  /** For /ready: where the counts are kept, and a sentence when that is not where they should be. */
  state(): { rateLimit: 'off' | 'memory' | 'redis'; detail?: string }
}

declare module 'fastify' {
  interface FastifyInstance {
    sikaRateLimits: RateLimits
  }
}

const off: RateLimits = {
  perKey: async () => {},
  refuseWhileFailing: () => undefined,
  countFailure: async () => {},
  state: () => ({ rateLimit: 'off' }),
}

/** The limits a server was built with (all off for a server built without registerRateLimits). */
export function rateLimitsOf(app: FastifyInstance): RateLimits {
  return app.hasDecorator('sikaRateLimits') ? app.sikaRateLimits : off
}

const failureWindowMs = 10_000
/** How long a Redis that failed a command is left alone before it is asked again. */
const redisCooldownMs = 2000
/** The bounds that keep a dead or frozen Redis from holding any request. */
const redisCommandTimeoutMs = 150
const redisConnectTimeoutMs = 1000
const counterCacheSize = 10_000
const pagePaths = /^\/(checkout|docs|providers)(\/|$)|^\/openapi\.json$/

/** Registers the limits on the root instance, before any route they cover is declared. */
export async function registerRateLimits(app: FastifyInstance, context: AppContext): Promise<void> {
  const { rateLimitPerSecond: perSecond, authFailureLimit, redisUrl } = context.config
  if (perSecond === 0) {
    app.decorate('sikaRateLimits', off)
    return
  }
  const link = redisUrl === undefined ? undefined : await connectRedis(redisUrl, context.logger)
  if (link) app.addHook('onClose', async () => link.close())
  await app.register(rateLimit, {
    global: false,
    store: counterClass(link) as never,
    skipOnError: true,
    cache: counterCacheSize,
  })
  const perKey = hookOf(
    app.rateLimit({
      max: perSecond,
      timeWindow: 1000,
      cache: counterCacheSize,
      // Called once the request is authenticated (its principal set) or refused for lack of credentials.
      keyGenerator: (request) => {
        const apiKey = request.headers['api-key']
        return request.principal && typeof apiKey === 'string'
          ? `key:${counterKey(apiKey)}`
          : addressKey(request)
      },
      errorResponseBuilder: (_request, limit) =>
        tooMany(`at most ${limit.max} requests a second for one api-key`, limit.ttl),
    }),
  )
  const pages = hookOf(
    app.rateLimit({
      max: perSecond * 10,
      timeWindow: 1000,
      cache: counterCacheSize,
      keyGenerator: (request) => `page-${addressKey(request)}`,
      errorResponseBuilder: (_request, limit) =>
        tooMany(`at most ${limit.max} requests a second from one address`, limit.ttl),
    }),
  )
  app.addHook('onRoute', (route: RouteOptions) => {
    if (pagePaths.test(route.url)) route.onRequest = [...asArray(route.onRequest), pages as never]
  })
  const failures =
    authFailureLimit === 0 ? undefined : failureLimits(app, authFailureLimit, link !== undefined)
  app.decorate('sikaRateLimits', {
    perKey,
    refuseWhileFailing: (request, apiKey) => failures?.refuseWhileFailing(request, apiKey),
    countFailure: async (request, reply, apiKey) => failures?.countFailure(request, reply, apiKey),
    state: () => link?.state() ?? { rateLimit: 'memory' },
  } satisfies RateLimits)
}

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>

/** The plugin's handler, as the onRequest hook it is written to be. */
function hookOf(handler: unknown): Hook {
  return handler as Hook
}

function asArray<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return []
  return Array.isArray(value) ? value : [value]
}

/** An api-key as sent is kept readable in the counters' keys; anything odd is hashed to a fixed size. */
function counterKey(value: string): string {
  return /^[\w-]{1,100}$/.test(value) ? value : createHash('sha256').update(value).digest('base64url')
}

/** IPv6 clients are counted by /64, as one host usually holds the whole prefix. */
function addressKey(request: FastifyRequest): string {
  return `address:${normalizeIP(request.ip)}`
}

function retryAfterSeconds(ttlMs: number): number {
  return Math.max(1, Math.ceil(ttlMs / 1000))
}

function tooMany(why: string, ttlMs: number, headers: Record<string, string> = {}): ApiError {
  const seconds = retryAfterSeconds(ttlMs)
  return new ApiError('rate_limited', `Too many requests: ${why}. Retry after ${seconds} s.`, undefined, {
    ...headers,
    'retry-after': String(seconds),
  })
}

type Limiter = ReturnType<FastifyInstance['createRateLimit']>
type Outcome = Awaited<ReturnType<Limiter>>
type Counted = Extract<Outcome, { isAllowed: false }>

/**
 * An address may fail this many times the limit of one (api-key, address) pair: one merchant's
 * client with a wrong secret then locks out its own key from there, not every merchant behind the
 * same address (a NAT, an office), while an address trying key after key is still stopped.
 */
const addressFailureFactor = 5

/**
 * Failed authentications, per (api-key, address) (AUTH_FAILURE_LIMIT in 10 s) and per address
 * (five times that), then refused. A count per api-key alone would let anyone who knows a key keep
 * its merchant at 429 from anywhere with a few wrong secrets a second. Counted in memory only (no
 * Redis), nothing can be refused while this instance has counted no failure for a whole window:
 * requests then skip the two reads (4 % of a details read). Shared in Redis, every request asks,
 * since another instance may have counted the failures.
 */
function failureLimits(app: FastifyInstance, max: number, shared: boolean) {
  let lastFailureAtMs = Number.NEGATIVE_INFINITY
  const noneCounted = () => !shared && performance.now() - lastFailureAtMs > failureWindowMs
  const limiter = (limit: number, keyGenerator: (request: FastifyRequest) => string) =>
    app.createRateLimit({ max: limit, timeWindow: failureWindowMs, keyGenerator })
  const byAddress = limiter(max * addressFailureFactor, (request) => `failed-${addressKey(request)}`)
  const byKeyAtAddress = limiter(
    max,
    (request) => `failed-key:${counterKey(String(request.headers['api-key']))}@${addressKey(request)}`,
  )
  const limitersFor = (apiKey: string | undefined) => (apiKey ? [byAddress, byKeyAtAddress] : [byAddress])
  const counted = (outcomes: Outcome[]) =>
    outcomes.filter((outcome): outcome is Counted => !outcome.isAllowed)
  const why = 'too many failed authentications from this address'
  /** The headers of the tighter count: the one with the fewest failures left. */
  const headersOf = (outcomes: Counted[]) => {
    const tightest = outcomes.reduce((tighter, outcome) =>
      outcome.remaining < tighter.remaining ? outcome : tighter,
    )
    return {
      'x-ratelimit-limit': String(tightest.max),
      'x-ratelimit-remaining': String(tightest.remaining),
      'x-ratelimit-reset': String(Math.max(...outcomes.map((outcome) => outcome.ttlInSeconds))),
    }
  }
  const refuseIfSpent = async (request: FastifyRequest, apiKey: string | undefined) => {
    const outcomes = counted(
      await Promise.all(limitersFor(apiKey).map((check) => check(request, { increment: false }))),
    )
    const spent = outcomes.filter((outcome) => outcome.remaining === 0 && outcome.ttl > 0)
    if (spent.length > 0)
      throw tooMany(why, Math.max(...spent.map((outcome) => outcome.ttl)), headersOf(outcomes))
  }
  return {
    refuseWhileFailing(request: FastifyRequest, apiKey: string | undefined): Promise<void> | undefined {
      return noneCounted() ? undefined : refuseIfSpent(request, apiKey)
    },
    async countFailure(request: FastifyRequest, reply: FastifyReply, apiKey: string | undefined) {
      lastFailureAtMs = performance.now()
      const outcomes = counted(await Promise.all(limitersFor(apiKey).map((check) => check(request))))
      if (outcomes.length === 0) return
      const headers = headersOf(outcomes)
      const exceeded = outcomes.filter((outcome) => outcome.isExceeded)
      if (exceeded.length > 0)
        throw tooMany(why, Math.max(...exceeded.map((outcome) => outcome.ttl)), headers)
      reply.headers(headers)
    },
  }
}

// ---- The counters: @fastify/rate-limit's own Redis and memory stores, with a fallback between them.

interface Count {
  current: number
  ttl: number
}
type CountCallback = (error: Error | null, result?: Count) => void
interface CounterOptions {
  continueExceeding?: boolean
  exponentialBackoff?: boolean
  cache?: number
}
interface Counter {
  incr(key: string, callback: CountCallback, timeWindow: number, max: number): void
  read(key: string, callback: CountCallback, timeWindow: number, max: number): void
  child(options: CounterOptions): Counter
}

// The plugin's stores are CommonJS files without type declarations: their shapes are written above.
const require = createRequire(import.meta.url)
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  cache?: number,
) => Counter
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: Redis,
  key?: string,
) => Counter

const redisNamespace = 'sika-rate-limit:'

/** Counts in Redis while it answers, in this process's memory while it does not. */
class FallbackCounter implements Counter {
  constructor(
    private readonly local: Counter,
    private readonly shared: Counter | undefined,
    private readonly link: RedisLink | undefined,
  ) {}

  incr(key: string, callback: CountCallback, timeWindow: number, max: number): void {
    this.count('incr', key, callback, timeWindow, max)
  }

  read(key: string, callback: CountCallback, timeWindow: number, max: number): void {
    this.count('read', key, callback, timeWindow, max)
  }

  child(options: CounterOptions): Counter {
    const continueExceeding = options.continueExceeding ?? false
    const exponentialBackoff = options.exponentialBackoff ?? false
    // One namespace for all: the limiters' keys already say which limit they count.
    const shared =
      this.link && new RedisStore(continueExceeding, exponentialBackoff, this.link.client, redisNamespace)
    return new FallbackCounter(this.local.child(options), shared, this.link)
  }

  private count(
    method: 'incr' | 'read',
    key: string,
    callback: CountCallback,
    timeWindow: number,
    max: number,
  ): void {
    const { shared, link, local } = this
    if (!shared || !link?.usable()) {
      local[method](key, callback, timeWindow, max)
      return
    }
    shared[method](
      key,
      (error, result) => {
        if (error || !result) {
          link.failed(error ?? new Error('Redis gave no count'))
          local[method](key, callback, timeWindow, max)
          return
        }
        link.answered()
        callback(null, result)
      },
      timeWindow,
      max,
    )
  }
}

/** The store class the plugin instantiates (it calls `new Store(options)`), bound to one Redis link. */
function counterClass(link: RedisLink | undefined) {
  return class extends FallbackCounter {
    constructor(options: CounterOptions) {
      const local = new LocalStore(false, false, options.cache ?? counterCacheSize)
      super(local, link && new RedisStore(false, false, link.client, redisNamespace), link)
    }
  }
}

/** One Redis connection and what this instance knows of its health; every state change is logged once. */
class RedisLink {
  readonly client: Redis
  private down = false
  private closing = false
  private skipUntil = 0

  constructor(
    url: string,
    private readonly logger: Logger,
  ) {
    this.client = new Redis(url, {
      lazyConnect: true,
      connectTimeout: redisConnectTimeoutMs,
      commandTimeout: redisCommandTimeoutMs,
      // Nothing waits for a connection: while there is none, a command fails at once and memory counts.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      // Reconnecting goes on in the background, at most every 2 s, for as long as the process runs.
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    })
    this.client.on('ready', () => this.answered())
    this.client.on('error', (error: Error) => this.markDown(error.message))
    this.client.on('close', () => this.markDown('the connection closed'))
  }

  /** Whether a count may be asked of Redis now; otherwise memory counts, without waiting. */
  usable(): boolean {
    return this.client.status === 'ready' && Date.now() >= this.skipUntil
  }

  failed(error: Error): void {
    this.skipUntil = Date.now() + redisCooldownMs
    this.markDown(error.message)
  }

  answered(): void {
    this.skipUntil = 0
    if (!this.down) return
    this.down = false
    this.logger.info(
      { redis: this.where() },
      'Redis answers again: rate limits are shared across instances again',
    )
  }

  state(): ReturnType<RateLimits['state']> {
    if (!this.down && this.client.status === 'ready') return { rateLimit: 'redis' }
    // A Redis that froze keeps its connection: the probe asks it, in the background, whether it is back.
    if (this.usable()) {
      this.client.ping().then(
        () => this.answered(),
        (error: Error) => this.failed(error),
      )
    }
    return {
      rateLimit: 'memory',
      detail: `Redis (${this.where()}) does not answer: rate limits are counted in memory, per instance, until it does.`,
    }
  }

  close(): void {
    this.closing = true
    this.client.disconnect()
  }

  private markDown(reason: string): void {
    if (this.closing || this.down) return
    this.down = true
    this.logger.warn(
      { redis: this.where(), reason },
      'Redis does not answer: rate limits are counted in memory, per instance, until it does',
    )
  }

  /** host:port only: a URL may carry a password. */
  private where(): string {
    const { host, port } = this.client.options
    return `${host}:${port}`
  }
}

/** Connects within a bound; a Redis that is down at start leaves the service serving, counting in memory. */
async function connectRedis(url: string, logger: Logger): Promise<RedisLink> {
  const link = new RedisLink(url, logger)
  let timer: NodeJS.Timeout | undefined
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, redisConnectTimeoutMs + 200)
  })
  await Promise.race([link.client.connect().catch(() => {}), bound])
  clearTimeout(timer)
  if (!link.usable()) link.failed(new Error('no connection at start'))
  return link
}
