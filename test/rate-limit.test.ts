import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Agent, fetch } from 'undici'
import type { IssuedMerchant, KeyPair } from '../src/app/merchants.ts'
import { startApp, type TestApp } from './support/app.ts'
import { freePort } from './support/process.ts'
import { OwnRedis } from './support/redis.ts'
import { describeEachStore, type StoreTarget } from './support/stores.ts'
import { sleep, waitFor } from './support/wait.ts'

// CONTRACT.md, Limits. Requests go through undici directly, not the suite's apiClient: a 429 is not
// in the OpenAPI document (no route documents it), and some requests must come from another local
// address (127.0.0.2, ...) to tell the per-address limit from the per-key one.

interface Answer {
  status: number
  headers: Headers
  body: any
  text: string
  elapsedMs: number
}

const agents = new Map<string, Agent>()
function agentFrom(address: string): Agent {
  let agent = agents.get(address)
  if (!agent) {
    agent = new Agent({ localAddress: address })
    agents.set(address, agent)
  }
  return agent
}
after(async () => {
  await Promise.all([...agents.values()].map((agent) => agent.close()))
})

async function send(
  url: string,
  path: string,
  options: { keys?: Partial<KeyPair>; from?: string; method?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {}
  if (options.keys?.apiKey !== undefined) headers['api-key'] = options.keys.apiKey
  if (options.keys?.secretKey !== undefined) headers['secret-key'] = options.keys.secretKey
  const started = performance.now()
  const response = await fetch(`${url}${path}`, {
    method: options.method ?? 'GET',
    headers,
    dispatcher: agentFrom(options.from ?? '127.0.0.1'),
    signal: AbortSignal.timeout(10_000),
  })
  const text = await response.text()
  let body: any
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    body = undefined
  }
  return {
    status: response.status,
    headers: response.headers as Headers,
    body,
    text,
    elapsedMs: performance.now() - started,
  }
}

function assertRateLimited(answer: Answer, limit: number): void {
  assert.equal(answer.status, 429, answer.text)
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/)
  assert.deepEqual(Object.keys(answer.body).sort(), ['code', 'message', 'requestId', 'statusCode', 'success'])
  assert.equal(answer.body.success, false)
  assert.equal(answer.body.statusCode, 429)
  assert.equal(answer.body.code, 'rate_limited')
  assert.equal(answer.body.requestId, answer.headers.get('x-request-id'))
  const retryAfter = Number(answer.headers.get('retry-after'))
  assert.ok(
    Number.isInteger(retryAfter) && retryAfter >= 1,
    `Retry-After ${answer.headers.get('retry-after')}`,
  )
  assert.match(answer.body.message, new RegExp(`Retry after ${retryAfter} s`))
  assert.equal(answer.headers.get('x-ratelimit-limit'), String(limit))
  assert.equal(answer.headers.get('x-ratelimit-remaining'), '0')
}

function assertLimitHeaders(answer: Answer, limit: number): void {
  assert.equal(
    answer.headers.get('x-ratelimit-limit'),
    String(limit),
    `x-ratelimit-limit on a ${answer.status}`,
  )
  const remaining = Number(answer.headers.get('x-ratelimit-remaining'))
  assert.ok(Number.isInteger(remaining) && remaining >= 0 && remaining < limit, `remaining ${remaining}`)
  assert.match(answer.headers.get('x-ratelimit-reset') ?? '', /^\d+$/)
}

const wrongSecret = `sk_test_${'x'.repeat(40)}`
const unknownKey = (n: number) => `pk_test_unknown${String(n).padStart(10, '0')}`

describeEachStore('Rate limits, counted in memory', (store) => {
  const limit = 20
  let app: TestApp
  before(async () => {
    app = await startApp(store(), { environment: { RATE_LIMIT_PER_SECOND: String(limit) } })
  })
  after(() => app.close())

  test('every answer of /api/v1 carries the limit headers: a 200, a 404, a 401', async () => {
    const merchant = await app.createMerchant()
    assertLimitHeaders(await send(app.url, '/api/v1/channels', { keys: merchant.sandbox }), limit)
    const unknown = await send(app.url, '/api/v1/collect/zzzzz-zzzzz-zzzzz-zzzzz-zzzzz', {
      keys: merchant.sandbox,
    })
    assert.equal(unknown.status, 404)
    assertLimitHeaders(unknown, limit)
    const missing = await send(app.url, '/api/v1/channels', { from: '127.0.0.30' })
    assert.equal(missing.status, 401)
    assertLimitHeaders(missing, limit)
  })

  test('a burst beyond the limit is answered 429 rate_limited with Retry-After; another key is unaffected', async () => {
    const [greedy, other] = [await app.createMerchant(), await app.createMerchant()]
    const started = performance.now()
    const answers = await Promise.all(
      Array.from({ length: limit * 3 }, () => send(app.url, '/api/v1/channels', { keys: greedy.sandbox })),
    )
    // The window is a second from the first request: a burst slower than that may see a second window.
    const windows = performance.now() - started < 1000 ? 1 : 2
    const refused = answers.filter((answer) => answer.status === 429)
    const served = answers.filter((answer) => answer.status === 200)
    assert.equal(served.length + refused.length, answers.length, 'only 200s and 429s')
    assert.ok(served.length <= limit * windows, `${served.length} served, at most ${limit} a second`)
    assert.ok(refused.length >= limit * (3 - windows), `${refused.length} refused`)
    for (const answer of refused) assertRateLimited(answer, limit)
    for (const answer of served) assertLimitHeaders(answer, limit)

    const neighbour = await send(app.url, '/api/v1/channels', { keys: other.sandbox })
    assert.equal(neighbour.status, 200, 'another key has its own count')
    assert.equal(neighbour.headers.get('x-ratelimit-remaining'), String(limit - 1))
    // The same merchant's other mode is another api-key, so another count.
    assert.equal((await send(app.url, '/api/v1/channels', { keys: greedy.live })).status, 200)

    await sleep(Number(refused[0]!.headers.get('retry-after')) * 1000)
    assert.equal(
      (await send(app.url, '/api/v1/channels', { keys: greedy.sandbox })).status,
      200,
      'served again',
    )
  })

  test('probes and unknown routes are never limited; operators\u2019 notifications only per address, generously', async () => {
    for (const path of ['/health', '/ready']) {
      const answers = await Promise.all(Array.from({ length: limit * 3 }, () => send(app.url, path)))
      assert.deepEqual(new Set(answers.map((answer) => answer.status)), new Set([200]), path)
      assert.equal(answers[0]!.headers.get('x-ratelimit-limit'), null, `${path} carries no limit`)
    }
    const ready = await send(app.url, '/ready')
    assert.equal(ready.body.rateLimit, 'memory')
    assert.equal(ready.body.detail, undefined, 'nothing is degraded')
    const notifications = await Promise.all(
      Array.from({ length: limit * 3 }, () =>
        send(app.url, '/providers/sandbox/notifications', { method: 'POST', from: '127.0.0.32' }),
      ),
    )
    assert.ok(
      notifications.every(
        (answer) => answer.status !== 429 && answer.headers.get('x-ratelimit-limit') === String(limit * 10),
      ),
      'an operator\u2019s callbacks count per address against ten times the API limit, and these pass',
    )
    const remaining = notifications.map((answer) => Number(answer.headers.get('x-ratelimit-remaining')))
    assert.ok(Math.min(...remaining) <= limit * 10 - 2, 'each counts against its address')
  })

  test('the checkout pages and /docs share a generous per-address limit', async () => {
    const docs = await send(app.url, '/docs/json', { from: '127.0.0.31' })
    assert.equal(docs.headers.get('x-ratelimit-limit'), String(limit * 10))
    const page = await send(app.url, '/checkout/zzzzz-zzzzz-zzzzz-zzzzz-zzzzz', { from: '127.0.0.31' })
    assert.equal(page.headers.get('x-ratelimit-limit'), String(limit * 10))
    const remaining = Number(page.headers.get('x-ratelimit-remaining'))
    assert.ok(
      remaining >= limit * 10 - 2 && remaining < limit * 10,
      'one count per address, whatever the page',
    )
  })

  test('wrong secret-keys for one api-key from one address: 10 failures, then 429 for that pair; the right secret from another address is served', async () => {
    const [target, bystander] = [await app.createMerchant(), await app.createMerchant()]
    const attempt = (from: string, secretKey = wrongSecret) =>
      send(app.url, '/api/v1/channels', { keys: { apiKey: target.sandbox.apiKey, secretKey }, from })
    const failures = []
    for (let n = 0; n < 10; n++) failures.push(await attempt('127.0.0.10'))
    for (const [n, answer] of failures.entries()) {
      assert.equal(answer.status, 401, answer.text)
      assert.equal(answer.body.code, 'invalid_credentials')
      assert.equal(answer.headers.get('x-ratelimit-limit'), '10', 'a failure shows the tighter budget')
      assert.equal(answer.headers.get('x-ratelimit-remaining'), String(9 - n))
    }
    const refused = await attempt('127.0.0.10')
    assertRateLimited(refused, 10)
    assert.match(refused.body.message, /failed authentications/)
    assert.ok(Number(refused.headers.get('retry-after')) > 1, 'refused for a while, not a second')
    assertRateLimited(await attempt('127.0.0.10', target.sandbox.secretKey), 10)
    assert.equal(
      (await attempt('127.0.0.11', target.sandbox.secretKey)).status,
      200,
      'the merchant, from its own address, is served: knowing its api-key locks nobody out',
    )
    const elsewhere = await attempt('127.0.0.12')
    assert.equal(elsewhere.status, 401, 'another address has its own count')
    assert.equal(elsewhere.headers.get('x-ratelimit-remaining'), '9')
    assert.equal(
      (await send(app.url, '/api/v1/channels', { keys: bystander.sandbox, from: '127.0.0.10' })).status,
      200,
      'another key from the same address is served: the address has failed 10 times of its 50',
    )
  })

  test('one address trying many api-keys: 50 failures (five times the pair\u2019s limit), then 429 for every key from it, and only from it', async () => {
    const merchant = await app.createMerchant()
    const from = '127.0.0.20'
    for (let n = 0; n < 50; n++) {
      const answer = await send(app.url, '/api/v1/channels', {
        keys: { apiKey: unknownKey(n), secretKey: wrongSecret },
        from,
      })
      assert.equal(answer.status, 401, answer.text)
    }
    const started = performance.now()
    const flood = await Promise.all(
      Array.from({ length: 200 }, (_, n) =>
        send(app.url, '/api/v1/channels', {
          keys: { apiKey: unknownKey(100 + n), secretKey: wrongSecret },
          from,
        }),
      ),
    )
    assert.ok(
      flood.every((answer) => answer.status === 429),
      'every further guess is refused unseen',
    )
    assertRateLimited(flood[0]!, 50)
    assert.ok(performance.now() - started < 5000)
    assertRateLimited(await send(app.url, '/api/v1/channels', { keys: merchant.sandbox, from }), 50)
    assert.equal(
      (await send(app.url, '/api/v1/channels', { keys: merchant.sandbox, from: '127.0.0.21' })).status,
      200,
    )
    assert.equal((await send(app.url, '/health', { from })).status, 200, 'the probes stay open to it')
  })
})

describeEachStore('Rate limits, RATE_LIMIT_PER_SECOND=0', (store) => {
  let app: TestApp
  before(async () => {
    app = await startApp(store(), { environment: { RATE_LIMIT_PER_SECOND: '0' } })
  })
  after(() => app.close())

  test('0 turns every limit off: no headers, no 429, however many requests or failures', async () => {
    const merchant = await app.createMerchant()
    const answers = await Promise.all(
      Array.from({ length: 300 }, () => send(app.url, '/api/v1/channels', { keys: merchant.sandbox })),
    )
    assert.deepEqual(new Set(answers.map((answer) => answer.status)), new Set([200]))
    assert.equal(answers[0]!.headers.get('x-ratelimit-limit'), null)
    const failures = await Promise.all(
      Array.from({ length: 50 }, () =>
        send(app.url, '/api/v1/channels', {
          keys: { apiKey: merchant.sandbox.apiKey, secretKey: wrongSecret },
        }),
      ),
    )
    assert.deepEqual(new Set(failures.map((answer) => answer.status)), new Set([401]))
    assert.equal((await send(app.url, '/ready')).body.rateLimit, 'off')
  })
})

const redisDownLine = 'Redis does not answer'
const linesSaying = (app: TestApp, text: string) => app.logs.filter((line) => line.includes(text)).length

describeEachStore('Rate limits shared through Redis', (store) => {
  const limit = 10
  let redis: OwnRedis
  let apps: TestApp[] = []
  before(async () => {
    redis = await OwnRedis.onFreePort()
    const environment = { RATE_LIMIT_PER_SECOND: String(limit), REDIS_URL: redis.url }
    // Two instances over one database and one Redis, as behind a load balancer.
    apps = [await startApp(store(), { environment }), await startApp(store(), { environment })]
  })
  after(async () => {
    await Promise.all(apps.map((app) => app.close()))
    await redis.stop()
  })

  /** Alternates between the two instances with one key: the counts are shared when the 11th is refused. */
  async function alternate(merchant: IssuedMerchant): Promise<Answer[]> {
    const answers = []
    for (let n = 0; n <= limit; n++)
      answers.push(await send(apps[n % 2]!.url, '/api/v1/channels', { keys: merchant.sandbox }))
    return answers
  }

  async function assertShared(): Promise<void> {
    let answers: Answer[] = []
    // Eleven requests in one second's window: on a machine too busy for that, another key tries again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const started = performance.now()
      answers = await alternate(await apps[0]!.createMerchant())
      if (performance.now() - started < 900) break
    }
    assert.deepEqual(
      answers.map((answer) => answer.headers.get('x-ratelimit-remaining')),
      [...Array.from({ length: limit }, (_, n) => String(limit - 1 - n)), '0'],
      'one count across both instances',
    )
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [...Array(limit).fill(200), 429],
    )
    assertRateLimited(answers[limit]!, limit)
  }

  test('two instances sharing one Redis share one limit; /ready says redis', async () => {
    for (const app of apps) {
      const ready = await send(app.url, '/ready')
      assert.equal(ready.status, 200)
      assert.equal(ready.body.rateLimit, 'redis')
      assert.equal(ready.body.detail, undefined)
    }
    await assertShared()
  })

  test('failed authentications are counted across instances too, per (api-key, address)', async () => {
    const merchant = await apps[0]!.createMerchant()
    const keys = { apiKey: merchant.sandbox.apiKey, secretKey: wrongSecret }
    for (let n = 0; n < 10; n++) {
      const answer = await send(apps[n % 2]!.url, '/api/v1/channels', { keys, from: '127.0.0.40' })
      assert.equal(answer.status, 401)
      assert.equal(answer.headers.get('x-ratelimit-remaining'), String(9 - n), 'one count across both')
    }
    for (const app of apps) {
      assertRateLimited(await send(app.url, '/api/v1/channels', { keys, from: '127.0.0.40' }), 10)
      const own = await send(app.url, '/api/v1/channels', { keys: merchant.sandbox, from: '127.0.0.41' })
      assert.equal(own.status, 200, 'the merchant from its own address is served on every instance')
    }
  })

  test('Redis stopped: both keep serving at once, counting in memory, saying so once; restarted: shared again', async () => {
    const merchants = await Promise.all(Array.from({ length: 10 }, () => apps[0]!.createMerchant()))
    await redis.stop()
    const answers: Answer[] = []
    for (const merchant of merchants)
      for (const app of apps)
        answers.push(await send(app.url, '/api/v1/channels', { keys: merchant.sandbox }))
    assert.deepEqual(new Set(answers.map((answer) => answer.status)), new Set([200]), 'every request served')
    const slowest = Math.max(...answers.map((answer) => answer.elapsedMs))
    assert.ok(slowest < 1000, `the slowest request took ${Math.round(slowest)} ms`)
    for (const answer of answers) assert.equal(answer.headers.get('x-ratelimit-limit'), String(limit))

    for (const app of apps) {
      assert.equal(linesSaying(app, redisDownLine), 1, 'the log says so once, not per request')
      const ready = await send(app.url, '/ready')
      assert.equal(ready.status, 200, 'still ready: the database answers')
      assert.equal(ready.body.rateLimit, 'memory')
      assert.match(ready.body.detail, /Redis .* does not answer/)
    }
    // Each instance now counts alone: the 11th request on one of them is still refused there.
    const merchant = merchants[0]!
    const burst = await Promise.all(
      Array.from({ length: limit + 5 }, () =>
        send(apps[0]!.url, '/api/v1/channels', { keys: merchant.live }),
      ),
    )
    assert.ok(
      burst.some((answer) => answer.status === 429),
      'the limit still holds, per instance',
    )

    await redis.start()
    for (const app of apps)
      await waitFor(
        '/ready to say redis again',
        async () => (await send(app.url, '/ready')).body.rateLimit === 'redis',
      )
    for (const app of apps) {
      assert.equal(linesSaying(app, 'Redis answers again'), 1)
      assert.equal(linesSaying(app, redisDownLine), 1, 'still said once')
    }
    await assertShared()
  })
  test('Redis frozen (connected, silent): no request waits on it beyond a bound; thawed: shared again', async () => {
    const merchants = await Promise.all(Array.from({ length: 10 }, () => apps[0]!.createMerchant()))
    const downBefore = apps.map((app) => linesSaying(app, redisDownLine))
    redis.signal('SIGSTOP')
    try {
      const answers: Answer[] = []
      for (const merchant of merchants)
        for (const app of apps)
          answers.push(await send(app.url, '/api/v1/channels', { keys: merchant.sandbox }))
      assert.deepEqual(new Set(answers.map((answer) => answer.status)), new Set([200]))
      const slowest = Math.max(...answers.map((answer) => answer.elapsedMs))
      assert.ok(slowest < 1000, `the slowest request took ${Math.round(slowest)} ms`)
      // Waiting 150 ms on Redis each, these 20 requests would take 3 s: after one wait, memory counts.
      const total = answers.reduce((sum, answer) => sum + answer.elapsedMs, 0)
      assert.ok(total < 1500, `the 20 requests took ${Math.round(total)} ms in all`)
      for (const [index, app] of apps.entries()) {
        assert.equal(linesSaying(app, redisDownLine), downBefore[index]! + 1, 'said once')
        const ready = await send(app.url, '/ready')
        assert.equal(ready.status, 200)
        assert.match(ready.body.detail, /does not answer/)
      }
    } finally {
      redis.signal('SIGCONT')
    }
    for (const app of apps)
      await waitFor(
        '/ready to say redis again',
        async () => (await send(app.url, '/ready')).body.rateLimit === 'redis',
      )
    await assertShared()
  })
})

describe('Rate limits with a Redis that is not there at start', () => {
  test('the service starts within its bound and serves, counting in memory, and /ready says why; Redis started: used', async () => {
    const target: StoreTarget = { name: 'sqlite', databaseUrl: ':memory:' }
    const redis = new OwnRedis(await freePort())
    // Against a start without Redis on the same machine, so that a busy machine does not count.
    let started = performance.now()
    await (await startApp(target, { environment: { RATE_LIMIT_PER_SECOND: '5' } })).close()
    const withoutRedisMs = performance.now() - started
    started = performance.now()
    const app = await startApp(target, { environment: { RATE_LIMIT_PER_SECOND: '5', REDIS_URL: redis.url } })
    try {
      const extraMs = performance.now() - started - withoutRedisMs
      assert.ok(
        extraMs < 2000,
        `a dead Redis added ${Math.round(extraMs)} ms to the start (the bound is 1.2 s)`,
      )
      const merchant = await app.createMerchant()
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => send(app.url, '/api/v1/channels', { keys: merchant.sandbox })),
      )
      assert.equal(answers.filter((answer) => answer.status === 200).length, 5)
      assert.equal(answers.filter((answer) => answer.status === 429).length, 3)
      const ready = await send(app.url, '/ready')
      assert.equal(ready.status, 200)
      assert.match(ready.body.detail, /does not answer/)
      assert.equal(linesSaying(app, redisDownLine), 1)

      await redis.start()
      await waitFor(
        '/ready to say redis',
        async () => (await send(app.url, '/ready')).body.rateLimit === 'redis',
      )
      assert.equal(linesSaying(app, 'Redis answers again'), 1)
    } finally {
      await app.close()
      await redis.stop()
    }
  })
})
