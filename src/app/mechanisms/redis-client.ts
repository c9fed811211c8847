import type { Redis } from 'ioredis'

/** How long a connection may take to open; the rate limiter waits no longer for it at start. */
export const redisConnectTimeoutMs = 1000
/** A command unanswered this long fails, so a frozen Redis holds no request longer. */
const redisCommandTimeoutMs = 150

/**
 * The client of REDIS_URL, built unconnected: only the HTTP rate limiter uses it, and connects it
 * when a server is built, so a command or a delivery thread opens no connection. ioredis is loaded
 * only when REDIS_URL is set.
 */
export async function createRedisClient(url: string): Promise<Redis> {
  const { Redis } = await import('ioredis')
  return new Redis(url, {
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
}
