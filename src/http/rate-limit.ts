import { createHash } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import rateLimit, {
  normalizeIP,
  type RateLimitOptions,
  type RateLimitPluginOptions,
} from '@fastify/rate-limit'
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import type { AppContext } from '../app/context.ts'
import { ApiError } from '../errors.ts'
import { createKeyLimit, type KeyLimit, type LimitCount } from './key-limit.ts'
import { connectRedis, type RedisLink } from './redis-link.ts'

/**
 * Rate limits (CONTRACT.md, Limits):
 * - every authenticated /api/v1 request, per api-key: RATE_LIMIT_PER_SECOND a second; a request
 *   without credentials, per address. Only a request that proved its key counts against the key,
 *   so knowing an api-key is not enough to spend its merchant's budget. Counted by key-limit.ts,
 *   before admission for a request whose key the front door proved (front-door.ts), so that a
 *   merchant's burst meets its own limit before it takes any of the instance's capacity;
 * - failed authentications, per (api-key, address): AUTH_FAILURE_LIMIT in 10 s, and per address:
 *   five times that, after which that pair or that address is refused before its credentials are
 *   even looked up. The merchant presenting the right secret from any other address is served;
 * - the checkout pages, the dashboard, the console, the payment links' pages, operators' notifications (/providers/*), /docs and /openapi.json, per
 *   address, one count for all of them: a generous ten times the API limit (anyone may call them;
 *   an operator calls from a few addresses);
 * - payments started on a payment link's page (POST /pay/{token}), per address: PAYMENTS_PER_MINUTE
 *   a minute, since each one asks an operator to charge a customer.
 * /health, /ready and /metrics are never limited. RATE_LIMIT_PER_SECOND=0 turns all of it off. An
 * address is the client's as Fastify's trustProxy reads it (TRUST_PROXY): behind a proxy, the
 * forwarded client, not the proxy.
 *
 * The others are counted by @fastify/rate-limit. With REDIS_URL the counts are shared by every
 * instance, through the context's Redis client; while Redis does not answer they are kept in
 * memory, per instance, so the service keeps serving: the log says so once, and /ready's detail.
 * The plugin is registered twice, each in a scope of its own: once counting in memory, once in
 * Redis (its `redis` option); each limit is made on both, and RedisLink chooses which counts.
 */
export interface RateLimits {
  /**
   * In front of admission (front-door.ts): counts a request whose api-key was proven there against
   * that key's limit; undefined when the limit is off. perKey then does not count it again.
   */
  countProvenKey(request: IncomingMessage, apiKey: string): LimitCount | Promise<LimitCount> | undefined
  /**
   * After authentication: the per-key limit's headers, and a 429 past it. Counted here per api-key
   * once the request is authenticated (unless the front door counted it), per address for a
   * request without credentials.
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
  countProvenKey: () => undefined,
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
const counterCacheSize = 10_000
const redisNamespace = 'sika-rate-limit:'
/** Payments a payment link's page starts from one address in a minute. */
export const paymentsPerMinute = 20
const pagePaths = /^\/(checkout|console|dashboard|docs|pay|providers)(\/|$)|^\/openapi\.json$/

/** Registers the limits on the root instance, before any route they cover is declared. */
export async function registerRateLimits(app: FastifyInstance, context: AppContext): Promise<void> {
  const { rateLimitPerSecond: perSecond, authFailureLimit } = context.config
  if (perSecond === 0) {
    app.decorate('sikaRateLimits', off)
    return
  }
  const counters = await registerCounters(app, context)
  const keyLimit = createKeyLimit(perSecond, 1000, counters.link)
  const { countProvenKey, perKey } = perKeyLimit(keyLimit)
  const pages = counters.hook({
    max: perSecond * 10,
    timeWindow: 1000,
    keyGenerator: (request) => `page-${addressKey(request)}`,
    errorResponseBuilder: (_request, limit) =>
      tooMany(`at most ${limit.max} requests a second from one address`, limit.ttl),
  })
  // A limiter, not a hook: the plugin runs one of its hooks per request, and the pages' runs first.
  const paymentsLimit = counters.limiter({
    max: paymentsPerMinute,
    timeWindow: 60_000,
    keyGenerator: (request) => `pay-${addressKey(request)}`,
  })
  const payments: Hook = async (request) => {
    const outcome = await paymentsLimit(request)
    if (!outcome.isAllowed && outcome.isExceeded)
      throw tooMany(`at most ${paymentsPerMinute} payments a minute from one address`, outcome.ttl)
  }
  app.addHook('onRoute', (route: RouteOptions) => {
    if (pagePaths.test(route.url)) route.onRequest = [...asArray(route.onRequest), pages as never]
    if (route.url === '/pay/:token' && asArray(route.method).includes('POST'))
      route.onRequest = [...asArray(route.onRequest), payments as never]
  })
  const failures = authFailureLimit === 0 ? undefined : failureLimits(counters, authFailureLimit)
  app.decorate('sikaRateLimits', {
    countProvenKey,
    perKey,
    refuseWhileFailing: (request, apiKey) => failures?.refuseWhileFailing(request, apiKey),
    countFailure: async (request, reply, apiKey) => failures?.countFailure(request, reply, apiKey),
    state: () => counters.link?.state() ?? { rateLimit: 'memory' },
  } satisfies RateLimits)
}

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>

/**
 * The per-key limit's two places: in front of admission for a request whose key was proven there,
 * and after authentication for the others. A request is counted once, in the first.
 */
function perKeyLimit(keyLimit: KeyLimit): Pick<RateLimits, 'countProvenKey' | 'perKey'> {
  const countedInFront = new WeakMap<IncomingMessage, LimitCount>()
  const remember = (request: IncomingMessage, count: LimitCount) => {
    countedInFront.set(request, count)
    return count
  }
  return {
    countProvenKey(request, apiKey) {
      const count = keyLimit.count(`key:${counterKey(apiKey)}`)
      return count instanceof Promise
        ? count.then((counted) => remember(request, counted))
        : remember(request, count)
    },
    async perKey(request, reply) {
      const apiKey = request.headers['api-key']
      const counted =
        countedInFront.get(request.raw) ??
        (await keyLimit.count(
          request.principal && typeof apiKey === 'string' ? `key:${counterKey(apiKey)}` : addressKey(request),
        ))
      reply.headers(limitHeaders(counted))
      if (counted.exceeded) throw overKeyLimit(counted)
    },
  }
}

/** The headers every answer of /api/v1 carries: the limit, what is left of it, and when the window ends. */
function limitHeaders(count: LimitCount): Record<string, string> {
  return {
    'x-ratelimit-limit': String(count.limit),
    'x-ratelimit-remaining': String(count.remaining),
    'x-ratelimit-reset': String(count.resetSeconds),
  }
}

/** 429 `rate_limited` for a request past its api-key's limit (or its address's, without credentials). */
export function overKeyLimit(count: LimitCount): ApiError {
  return tooMany(
    `at most ${count.limit} requests a second for one api-key`,
    count.resetSeconds * 1000,
    limitHeaders(count),
  )
}
type Limiter = ReturnType<FastifyInstance['createRateLimit']>
type Outcome = Awaited<ReturnType<Limiter>>
type Counted = Extract<Outcome, { isAllowed: false }>

/** Every limit, made once in each place counts are kept; RedisLink says which place counts. */
interface Counters {
  /** Undefined without REDIS_URL: then memory alone counts. */
  link: RedisLink | undefined
  /** A limit as the onRequest hook the plugin writes (headers, and a 429 past it). */
  hook(options: RateLimitOptions): Hook
  /** A limit as a function answering the count, for a caller that decides what it means. */
  limiter(options: RateLimitOptions): Limiter
}

/** Memory alone without REDIS_URL; with it, Redis while it answers and memory while it does not. */
async function registerCounters(app: FastifyInstance, context: AppContext): Promise<Counters> {
  const plugin = { global: false, cache: counterCacheSize }
  const memory = await registerScoped(app, plugin)
  const client = context.redis
  if (!client) {
    return {
      link: undefined,
      hook: (options) => hookOf(memory.rateLimit({ cache: counterCacheSize, ...options })),
      limiter: (options) => memory.createRateLimit(options),
    }
  }
  // A Redis failure must reach RedisLink, which then counts in memory, rather than let the request pass.
  const shared = await registerScoped(app, {
    ...plugin,
    redis: client,
    nameSpace: redisNamespace,
    skipOnError: false,
  })
  const link = await connectRedis(client, context.logger)
  app.addHook('onClose', async () => link.release())
  return {
    link,
    hook: (options) => {
      const inMemory = hookOf(memory.rateLimit({ cache: counterCacheSize, ...options }))
      const inRedis = hookOf(shared.rateLimit(options))
      return (request, reply) =>
        link.counted(
          () => inRedis(request, reply),
          () => inMemory(request, reply),
        )
    },
    limiter: (options) => {
      const inMemory = memory.createRateLimit(options)
      const inRedis = shared.createRateLimit(options)
      return (request, callOptions) =>
        link.counted(
          () => inRedis(request, callOptions),
          () => inMemory(request, callOptions),
        )
    },
  }
}

/** What one registration of the plugin makes limits with. */
type Registration = Pick<FastifyInstance, 'rateLimit' | 'createRateLimit'>

/**
 * The plugin registered in a scope of its own, so that each registration keeps its own counts:
 * its decorators are the scope's, and the limits made from them serve any route. (Not the scope
 * itself: an instance is thenable, so an async function cannot return it.)
 */
async function registerScoped(app: FastifyInstance, options: RateLimitPluginOptions): Promise<Registration> {
  let registration: Registration | undefined
  await app.register(async (scope) => {
    await scope.register(rateLimit, options)
    registration = { rateLimit: scope.rateLimit, createRateLimit: scope.createRateLimit }
  })
  if (!registration) throw new Error('the rate-limit plugin was not registered')
  return registration
}

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
function failureLimits(counters: Counters, max: number) {
  const shared = counters.link !== undefined
  let lastFailureAtMs = Number.NEGATIVE_INFINITY
  const noneCounted = () => !shared && performance.now() - lastFailureAtMs > failureWindowMs
  const limiter = (limit: number, keyGenerator: (request: FastifyRequest) => string) =>
    counters.limiter({ max: limit, timeWindow: failureWindowMs, keyGenerator })
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
