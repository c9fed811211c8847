import type { Result } from 'ioredis'
import type { RedisLink } from './redis-link.ts'

/** One request counted against a limit: what its headers say, and whether it went past. */
export interface LimitCount {
  readonly limit: number
  readonly remaining: number
  /** Whole seconds until the window ends (x-ratelimit-reset; Retry-After past the limit, at least 1). */
  readonly resetSeconds: number
  readonly exceeded: boolean
}

/**
 * The per-key limit's counts: `limit` requests in a window of `windowMs` for each key (an api-key,
 * or the address of a request without credentials), in fixed windows that open at a key's first
 * request, as @fastify/rate-limit counts the other limits.
 *
 * Counted in this instance's memory first: a key this instance alone has counted past the limit is
 * refused at once, without a round trip, so a burst's excess costs no more than a map lookup. With
 * a RedisLink the rest are then counted in Redis, shared by every instance, while it answers (and
 * in memory while it does not: RedisLink says which). The memory's window is this instance's own,
 * so it may refuse a little earlier than Redis would: never before the key sent more than `limit`
 * requests within `windowMs`.
 */
export interface KeyLimit {
  count(key: string): LimitCount | Promise<LimitCount>
}

const countedKeys = 10_000
const redisNamespace = 'sika-key-limit:'

/**
 * INCR with the window set on the first request of a window; PTTL for the headers. A key found
 * without an expiry (an expiry lost) is given one, so that it never counts for ever.
 */
const countScript = `
local current = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if current == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {current, ttl}
`

declare module 'ioredis' {
  interface RedisCommander<Context> {
    sikaCountKey(key: string, windowMs: number): Result<[number, number], Context>
  }
}

export function createKeyLimit(limit: number, windowMs: number, link?: RedisLink): KeyLimit {
  const memory = new WindowCounts(limit, windowMs)
  if (!link) return { count: (key) => memory.count(key) }
  const client = link.client
  if (!client.sikaCountKey) client.defineCommand('sikaCountKey', { numberOfKeys: 1, lua: countScript })
  const shared = async (key: string) => {
    const [current, ttlMs] = await client.sikaCountKey(`${redisNamespace}${key}`, windowMs)
    return countOf(limit, current, ttlMs)
  }
  return {
    count(key) {
      const local = memory.count(key)
      if (local.exceeded || !link.usable()) return local
      return link.counted(
        () => shared(key),
        async () => local,
      )
    },
  }
}

/** Fixed windows per key, in memory; at most `countedKeys` keys, the oldest window out first. */
class WindowCounts {
  private readonly windows = new Map<string, { count: number; endsAtMs: number }>()

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  count(key: string): LimitCount {
    const now = performance.now()
    let window = this.windows.get(key)
    if (!window || window.endsAtMs <= now) {
      // Set again, a key's new window goes to the end of the map's order: the oldest stay first.
      this.windows.delete(key)
      if (this.windows.size >= countedKeys) this.windows.delete(this.windows.keys().next().value as string)
      window = { count: 0, endsAtMs: now + this.windowMs }
      this.windows.set(key, window)
    }
    window.count += 1
    return countOf(this.limit, window.count, window.endsAtMs - now)
  }
}

function countOf(limit: number, current: number, ttlMs: number): LimitCount {
  return {
    limit,
    remaining: Math.max(0, limit - current),
    resetSeconds: Math.max(1, Math.ceil(ttlMs / 1000)),
    exceeded: current > limit,
  }
}
