import type { Redis } from 'ioredis'
import type { Logger } from 'pino'
import { redisConnectTimeoutMs } from '../app/mechanisms/redis-client.ts'
import { ApiError } from '../errors.ts'

/** How long a Redis that failed a command is left alone before it is asked again. */
const redisCooldownMs = 2000

/**
 * What this instance knows of the health of the context's Redis client, for the rate limits that
 * it shares: whether a count may be asked of it now, and where counts are kept. Every change of
 * state is logged once.
 */
export class RedisLink {
  private down = false
  private released = false
  private skipUntil = 0

  constructor(
    readonly client: Redis,
    private readonly logger: Logger,
  ) {
    this.client.on('ready', () => this.answered())
    this.client.on('error', (error: Error) => this.markDown(error.message))
    this.client.on('close', () => this.markDown('the connection closed'))
  }

  /** Whether a count may be asked of Redis now; otherwise memory counts, without waiting. */
  usable(): boolean {
    return this.client.status === 'ready' && Date.now() >= this.skipUntil
  }

  /**
   * Counts in Redis while it answers, in this process's memory while it does not. The limit's own
   * 429 (an ApiError) is an answer of Redis; any other error is Redis failing.
   */
  async counted<T>(shared: () => Promise<T>, memory: () => Promise<T>): Promise<T> {
    if (!this.usable()) return memory()
    try {
      const result = await shared()
      this.answered()
      return result
    } catch (error) {
      if (error instanceof ApiError) {
        this.answered()
        throw error
      }
      this.failed(error instanceof Error ? error : new Error(String(error)))
      return memory()
    }
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

  state(): { rateLimit: 'memory' | 'redis'; detail?: string } {
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

  /** The server is closing: the connection's end, by the context's owner, is no failure to log. */
  release(): void {
    this.released = true
  }

  private markDown(reason: string): void {
    if (this.released || this.down) return
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
export async function connectRedis(client: Redis, logger: Logger): Promise<RedisLink> {
  const link = new RedisLink(client, logger)
  let timer: NodeJS.Timeout | undefined
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, redisConnectTimeoutMs + 200)
  })
  await Promise.race([link.client.connect().catch(() => {}), bound])
  clearTimeout(timer)
  if (!link.usable()) link.failed(new Error('no connection at start'))
  return link
}
