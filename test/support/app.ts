import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import type { Kysely } from 'kysely'
import { closeContext, createContext } from '../../src/app/bootstrap.ts'
import type { AppContext } from '../../src/app/context.ts'
import { createMerchant, type IssuedMerchant, type KeyPair } from '../../src/app/merchants.ts'
import { createWorkers, type Workers } from '../../src/app/workers.ts'
import { loadConfig } from '../../src/config.ts'
import type { Clock } from '../../src/domain/clock.ts'
import { defaultChannels } from '../../src/domain/default-catalogue.ts'
import { listenForMetrics } from '../../src/http/metrics-server.ts'
import { buildServer } from '../../src/http/server.ts'
import { createLogger } from '../../src/logger.ts'
import { startMtnMomoSimulator } from '../../src/simulators/mtn-momo/mtn-momo-simulator.ts'
import type { Database } from '../../src/store/schema.ts'
import { rawDatabase } from '../../src/store/store.ts'
import { checkResponse } from './openapi-check.ts'
import type { StoreTarget } from './stores.ts'

export const testPublicBaseUrl = 'http://sika.test'
export const testSecretsKey = '0f'.repeat(32)

export interface TestApp {
  /** http://127.0.0.1:<port>: the real server, listening. */
  readonly url: string
  /** http://127.0.0.1:<port>/metrics: the metrics listener, apart from the API. */
  readonly metricsUrl: string
  readonly context: AppContext
  readonly server: FastifyInstance
  /** The store's raw handle: tests read, and damage, real rows. */
  readonly db: Kysely<Database>
  /** Every log line the server wrote, as text. */
  readonly logs: string[]
  /** Scheduled work and callbacks: in the background, or run by hand with `workers.runDue()`. */
  readonly workers: Workers
  createMerchant(name?: string): Promise<IssuedMerchant>
  client(keys: KeyPair | { apiKey?: string; secretKey?: string }): ApiClient
  close(): Promise<void>
}

export interface ApiResponse<T = any> {
  status: number
  headers: Headers
  body: T
  text: string
}

export interface ApiClient {
  get<T = any>(path: string, query?: Record<string, string | number>): Promise<ApiResponse<T>>
  post<T = any>(path: string, body?: unknown): Promise<ApiResponse<T>>
  request<T = any>(
    method: string,
    path: string,
    init?: { body?: string; headers?: Record<string, string> },
  ): Promise<ApiResponse<T>>
}

export interface StartOptions {
  clock?: Clock
  /** 'manual' (the default): nothing runs in the background; the test calls app.workers.runDue(). */
  workers?: 'background' | 'manual'
  environment?: Record<string, string>
  /**
   * Connects every catalogue channel and country, in live mode, to one MTN MoMo simulator (a real
   * server on 127.0.0.1): for tests of live keys that are not about an operator. Without it a live
   * initiation is 422 channel_unavailable, as it is with no OPERATORS_FILE.
   */
  liveOperators?: boolean
}

/** Starts the real service on a real port over the target store, as `sika serve` would. */
export async function startApp(target: StoreTarget, options: StartOptions = {}): Promise<TestApp> {
  const operators = options.liveOperators ? await simulatedOperators() : undefined
  const config = loadConfig({
    DATABASE_URL: target.databaseUrl,
    PUBLIC_BASE_URL: testPublicBaseUrl,
    SECRETS_KEY: testSecretsKey,
    LOG_LEVEL: 'info',
    // Tests of behaviour send bursts no merchant would; test/rate-limit.test.ts and
    // test/admission.test.ts set their own limits.
    RATE_LIMIT_PER_SECOND: '0',
    MAX_IN_FLIGHT: '0',
    METRICS_PORT: '0',
    ...(operators ? { OPERATORS_FILE: operators.file } : {}),
    ...options.environment,
  })
  const logs: string[] = []
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk))
      done()
    },
  })
  const context = await createContext(config, createLogger(config.logLevel, sink), options.clock)
  const server = await buildServer(context)
  await server.listen({ port: Number(options.environment?.PORT ?? 0), host: '127.0.0.1' })
  const metrics = await listenForMetrics(context)
  // Background work (and so callback delivery) only where a test asks for it: no test sends a callback by accident.
  const workers = createWorkers(context, { manual: options.workers !== 'background', idleMs: 50 })
  const address = server.server.address()
  if (!address || typeof address === 'string') throw new Error('the server has no TCP address')
  const url = `http://127.0.0.1:${address.port}`
  return {
    url,
    metricsUrl: metrics.url,
    context,
    server,
    db: rawDatabase(context.store),
    logs,
    workers,
    createMerchant: (name = 'Test merchant') => createMerchant(context, name),
    client: (keys) => apiClient(url, keys),
    close: async () => {
      await metrics.close()
      await server.close()
      await workers.stop()
      await closeContext(context)
      await operators?.close()
    },
  }
}

export function apiClient(url: string, keys: { apiKey?: string; secretKey?: string }): ApiClient {
  const credentials: Record<string, string> = {}
  if (keys.apiKey !== undefined) credentials['api-key'] = keys.apiKey
  if (keys.secretKey !== undefined) credentials['secret-key'] = keys.secretKey
  const request = async (
    method: string,
    path: string,
    init: { body?: string; headers?: Record<string, string> } = {},
  ) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { ...credentials, ...init.headers },
      body: init.body,
      redirect: 'manual',
    })
    const text = await response.text()
    // Every response, success or error, against the document the server publishes: a mismatch fails the test.
    const contentType = response.headers.get('content-type')
    await checkResponse(url, { method, path, status: response.status, contentType, text })
    let body: any
    try {
      body = text ? JSON.parse(text) : undefined
    } catch {
      body = undefined
    }
    return { status: response.status, headers: response.headers, body, text }
  }
  return {
    request,
    get: (path, query) => {
      const search = query
        ? `?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`
        : ''
      return request('GET', `${path}${search}`)
    },
    post: (path, body) =>
      request('POST', path, {
        body: body === undefined ? undefined : JSON.stringify(body),
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
      }),
  }
}

/** A clock the test moves by hand: retries and expiry without waiting. */
export function manualClock(startUs = Date.UTC(2026, 10, 21, 10, 0, 0) * 1000) {
  let now = startUs
  return {
    nowUs: () => ++now,
    advance(milliseconds: number) {
      now += milliseconds * 1000
    },
  }
}

/** One MTN MoMo simulator behind every catalogue channel and country (see StartOptions.liveOperators). */
async function simulatedOperators(): Promise<{ file: string; close(): Promise<void> }> {
  const simulator = await startMtnMomoSimulator({ settleDelayMs: 100 })
  const directory = mkdtempSync(join(tmpdir(), 'sika-operators-'))
  const file = join(directory, 'operators.json')
  const connections = defaultChannels.map(({ channel, countries }) =>
    simulator.connection(channel, countries),
  )
  writeFileSync(file, JSON.stringify({ connections }))
  return {
    file,
    close: async () => {
      await simulator.close()
      rmSync(directory, { recursive: true, force: true })
    },
  }
}
