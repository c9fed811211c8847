import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { Agent, request as undiciRequest } from 'undici'
import type { IssuedMerchant } from '../src/app/merchants.ts'
import { startApp, type TestApp } from './support/app.ts'
import { OwnRedis } from './support/redis.ts'
import { describeEachStore, type StoreTarget } from './support/stores.ts'
import { sleep } from './support/wait.ts'

// Issue 50, finding 1 (CONTRACT.md, Limits): merchant A sends 300 requests at once with its
// per-key limit at 20 a second, against the production admission (64 in work, as many waiting
// 100 ms), and merchant B sends 10 during the burst. A merchant's own limit answers first, before
// admission, and admission is shared fairly between merchants. Before: A got 71-232 x 503 and B
// 503 in 10, 6 and 7 of 10 in three rounds.

const burstSize = 300
const duringBurst = 10
const rounds = 3
const limit = 20

interface Answer {
  status: number
  code: string | undefined
  retryAfter: string | undefined
}

/** Statuses and their counts, as the figures print them. */
function countsOf(answers: Answer[]): Record<number, number> {
  const counts: Record<number, number> = {}
  for (const answer of answers) counts[answer.status] = (counts[answer.status] ?? 0) + 1
  return counts
}

/** An agent of `connections` connections to `url`, every one opened first, so that a burst reaches the server together. */
async function openedAgent(url: string, connections: number): Promise<Agent> {
  const agent = new Agent({ connections })
  await Promise.all(
    Array.from({ length: connections }, async () => {
      const answer = await undiciRequest(`${url}/health`, { dispatcher: agent })
      await answer.body.dump()
    }),
  )
  return agent
}

async function readBalance(url: string, merchant: IssuedMerchant, agent: Agent): Promise<Answer> {
  const answer = await undiciRequest(`${url}/api/v1/balance`, {
    headers: { 'api-key': merchant.sandbox.apiKey, 'secret-key': merchant.sandbox.secretKey },
    dispatcher: agent,
  })
  const body = (await answer.body.json()) as { code?: string }
  const retryAfter = answer.headers['retry-after']
  return {
    status: answer.statusCode,
    code: body.code,
    retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
  }
}

/**
 * One round against `urls` (one instance, or two behind a load balancer taking turns): A's burst,
 * B's requests sent while it is under way. The agents are opened before the round.
 */
async function burstRound(
  urls: string[],
  merchants: { a: IssuedMerchant; b: IssuedMerchant },
  agents: { a: Agent[]; b: Agent[] },
) {
  const started = performance.now()
  const burst = Promise.all(
    Array.from({ length: burstSize }, (_, i) =>
      readBalance(urls[i % urls.length]!, merchants.a, agents.a[i % urls.length]!),
    ),
  )
  // Sent once A's requests are on their way: the server reads them while A's are in.
  await new Promise((resolve) => setImmediate(resolve))
  const during = Promise.all(
    Array.from({ length: duringBurst }, (_, i) =>
      readBalance(urls[i % urls.length]!, merchants.b, agents.b[i % urls.length]!),
    ),
  )
  const [a, b] = await Promise.all([burst, during])
  return { a, b, ms: performance.now() - started }
}

function assertFairRound(round: { a: Answer[]; b: Answer[]; ms: number }, label: string): void {
  const served = round.a.filter((answer) => answer.status === 200).length
  // A window is a second from A's first request counted: a burst slower than that may see a second.
  const windows = 1 + Math.floor(round.ms / 1000)
  assert.deepEqual(countsOf(round.b), { 200: duringBurst }, `${label}: every request of B answered 200`)
  assert.ok(
    round.a.every((answer) => answer.status === 200 || answer.status === 429),
    `${label}: A's burst answered 200 or 429 only: ${JSON.stringify(countsOf(round.a))}`,
  )
  assert.ok(served <= limit * windows, `${label}: ${served} of A's served, at most ${limit} a second`)
  for (const answer of round.a.filter((answer) => answer.status === 429))
    assert.deepEqual([answer.code, Number(answer.retryAfter) >= 1], ['rate_limited', true])
}

/** Three rounds a little over a second apart (each opens a new window of A's limit), figures printed. */
async function threeRounds(
  label: string,
  urls: string[],
  merchants: { a: IssuedMerchant; b: IssuedMerchant },
): Promise<void> {
  const agents = {
    a: await Promise.all(urls.map((url) => openedAgent(url, burstSize / urls.length))),
    b: await Promise.all(urls.map((url) => openedAgent(url, duringBurst / urls.length))),
  }
  try {
    const results = []
    for (let n = 0; n < rounds; n++) {
      results.push(await burstRound(urls, merchants, agents))
      await sleep(1100)
    }
    const figures = results.map((round) => ({
      a: countsOf(round.a),
      b: countsOf(round.b),
      ms: Math.round(round.ms),
    }))
    process.stdout.write(
      `# figures [${label}] A's burst of ${burstSize}, B's ${duringBurst}: ${JSON.stringify(figures)}\n`,
    )
    for (const [n, round] of results.entries()) assertFairRound(round, `${label}, round ${n + 1}`)
  } finally {
    await Promise.all([...agents.a, ...agents.b].map((agent) => agent.close()))
  }
}

const productionAdmission = {
  MAX_IN_FLIGHT: '64',
  ADMISSION_WAIT_MS: '100',
  RATE_LIMIT_PER_SECOND: String(limit),
}

describeEachStore('one merchant\u2019s burst meets its own limit first', (store) => {
  let app: TestApp
  let a: IssuedMerchant
  let b: IssuedMerchant
  before(async () => {
    app = await startApp(store(), { environment: productionAdmission })
    a = await app.createMerchant('Bursts')
    b = await app.createMerchant('Reads its balance')
  })
  after(() => app.close())

  test(`A's ${burstSize} requests at once: 200 or 429, never 503; B's ${duringBurst} meanwhile all 200`, async () => {
    await threeRounds(store().name, [app.url], { a, b })
  })
})

describeEachStore('two instances sharing their limits through Redis', (store: () => StoreTarget) => {
  let redis: OwnRedis
  let apps: TestApp[] = []
  let a: IssuedMerchant
  let b: IssuedMerchant
  before(async () => {
    redis = await OwnRedis.onFreePort()
    const environment = { ...productionAdmission, REDIS_URL: redis.url }
    // Two instances over one database and one Redis, as behind a load balancer.
    apps = [await startApp(store(), { environment }), await startApp(store(), { environment })]
    a = await apps[0]!.createMerchant('Bursts')
    b = await apps[0]!.createMerchant('Reads its balance')
  })
  after(async () => {
    await Promise.all(apps.map((app) => app.close()))
    await redis.stop()
  })

  test(`A's ${burstSize} requests over both: 200 or 429, never 503, ${limit} a second in all; B's all 200`, async () => {
    await threeRounds(
      `${store().name}, two instances, Redis`,
      apps.map((app) => app.url),
      { a, b },
    )
  })
})

/**
 * A's burst within its limit (1,000 a second) fills the instance by itself: admission is shared
 * fairly, so B's requests meanwhile still find slots; A's beyond the instance's capacity hear 503.
 */
describeEachStore('one merchant\u2019s burst within its limit: admission shared fairly', (store) => {
  let app: TestApp
  let a: IssuedMerchant
  let b: IssuedMerchant
  before(async () => {
    app = await startApp(store(), { environment: { ...productionAdmission, RATE_LIMIT_PER_SECOND: '1000' } })
    a = await app.createMerchant('Bursts')
    b = await app.createMerchant('Reads its balance')
  })
  after(() => app.close())

  test(`A's ${burstSize} requests at once: B's ${duringBurst} meanwhile all 200`, async () => {
    const agents = {
      a: [await openedAgent(app.url, burstSize)],
      b: [await openedAgent(app.url, duringBurst)],
    }
    try {
      const results = []
      for (let n = 0; n < rounds; n++) results.push(await burstRound([app.url], { a, b }, agents))
      const figures = results.map((round) => ({
        a: countsOf(round.a),
        b: countsOf(round.b),
        ms: Math.round(round.ms),
      }))
      process.stdout.write(`# figures [${store().name}] within its limit: ${JSON.stringify(figures)}\n`)
      for (const [n, round] of results.entries()) {
        assert.deepEqual(
          countsOf(round.b),
          { 200: duringBurst },
          `round ${n + 1}: every request of B answered 200`,
        )
        assert.ok(
          round.a.every((answer) => answer.status === 200 || answer.status === 503),
          JSON.stringify(countsOf(round.a)),
        )
      }
    } finally {
      await Promise.all([...agents.a, ...agents.b].map((agent) => agent.close()))
    }
  })
})
