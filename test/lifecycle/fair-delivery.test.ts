import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startDeliveryPool } from '../../src/app/workers.ts'
import { type ApiClient, startApp, type TestApp } from '../support/app.ts'
import { merchantWithClient } from '../support/operations.ts'
import { type Receiver, startReceiver } from '../support/receiver.ts'
import { sandboxPhone } from '../support/sandbox-requests.ts'
import { describeEachStore } from '../support/stores.ts'
import { assertStoreConsistent } from '../support/verify.ts'
import { sleep } from '../support/wait.ts'

// Issue 41, finding 1: merchant A's callbacks go to endpoints that answer 204 after 8 s, inside
// the 10 s delivery timeout, while A keeps creating collects; merchant B creates one collect every
// 100 ms to a receiver that answers at once. B's callbacks must keep their p99 under 1 s however
// many of A's endpoints are slow. The pool is 16 deliveries here, not 64: a pool shared per
// endpoint (4 requests in flight and 4 waiting each until it earns more) is then full with two
// slow endpoints at once, not after 24 s of answers, and a round of 10 s (FAIR_DELIVERY_ROUND_MS;
// `npm run torture` takes 20 s) shows what took the attack 70 s.
const slowAnswerMs = 8_000
const roundMs = Number(process.env.FAIR_DELIVERY_ROUND_MS ?? 10_000)
const bEveryMs = 100
const aEveryMs = 50
const aBacklog = 150
const p99BoundMs = 1_000

let sequence = 0

/** A sandbox collect that succeeds at once: two callbacks (pending, succeeded), both due now. */
function collectTo(callbackUrl: string) {
  return {
    amount: 1_000,
    channel: 'orange-money',
    country: 'CI',
    customer: { phoneNumber: sandboxPhone('001') },
    merchantReference: `fair-${sequence++}`,
    callbackUrl,
  }
}

/** ISO 8601 with microseconds, to epoch milliseconds. */
const epochMs = (timestamp: string) => Date.parse(timestamp.replace(/(\.\d{3})\d*Z$/, '$1Z'))

/**
 * The p-th percentile of `expected` latencies of which `sorted` arrived (ascending): those that
 * never arrived count as slower than any, and a percentile among them is `Infinity`.
 */
const percentile = (sorted: number[], expected: number, p: number) =>
  sorted[Math.ceil((p / 100) * expected) - 1] ?? Number.POSITIVE_INFINITY

/** A latency to print: whole milliseconds, or that it never came within the wait. */
const shown = (ms: number | undefined, waitMs: number) =>
  ms === undefined || !Number.isFinite(ms) ? `none within ${waitMs} ms` : Math.round(ms)

const callbackWaitMs = 15_000

async function create(client: ApiClient, callbackUrl: string): Promise<boolean> {
  const response = await client.post('/api/v1/collect', collectTo(callbackUrl))
  return response.status === 200
}

/**
 * Merchant A's load: a backlog of collects to its slow endpoints, four requests at a time, then
 * one every `aEveryMs` until `stop()`; resolves once the backlog is made.
 */
async function loadOfA(client: ApiClient, slow: Receiver[]) {
  const slowUrl = (i: number) => slow[i % slow.length]!.url('/a')
  let made = 0
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (made < aBacklog) await create(client, slowUrl(made++))
    }),
  )
  let running = true
  const going = (async () => {
    while (running) {
      await create(client, slowUrl(made++))
      await sleep(aEveryMs)
    }
  })()
  return {
    made: () => made,
    requestsSent: () => slow.reduce((sum, receiver) => sum + receiver.requestsTo('/a').length, 0),
    stop: async () => {
      running = false
      await going
    },
  }
}

/** Receivers answering 204 after `slowAnswerMs`. */
async function slowReceivers(count: number): Promise<Receiver[]> {
  const slow: Receiver[] = []
  for (let i = 0; i < count; i++) {
    const receiver = await startReceiver()
    receiver.script('/a', [], { status: 204, delayMs: slowAnswerMs })
    slow.push(receiver)
  }
  return slow
}

for (const slowEndpoints of [2, 5, 30]) {
  describeEachStore(`fair delivery: ${slowEndpoints} slow endpoints of one merchant`, (store) => {
    let app: TestApp
    let prompt: Receiver
    let slow: Receiver[] = []

    before(async () => {
      prompt = await startReceiver()
      slow = await slowReceivers(slowEndpoints)
      app = await startApp(store(), {
        workers: 'background',
        environment: { CALLBACK_CONCURRENCY: '16' },
      })
    })
    after(async () => {
      // Their held requests fail at once, so stopping the workers waits for no 8 s answer.
      for (const receiver of slow) await receiver.close()
      await app.close()
      await prompt.close()
    })

    test(`B's callbacks keep their p99 under ${p99BoundMs} ms while A's callbacks go to ${slowEndpoints} endpoints answering after ${slowAnswerMs / 1000} s`, async () => {
      const a = await merchantWithClient(app)
      const b = await merchantWithClient(app)
      // A's backlog first, then A keeps creating beside B.
      const aLoad = await loadOfA(a.client, slow)
      const startedAt = Date.now()
      let bCollects = 0
      while (Date.now() - startedAt < roundMs) {
        const next = startedAt + bCollects * bEveryMs
        if (next > Date.now()) await sleep(next - Date.now())
        assert.ok(await create(b.client, prompt.url('/b')), 'B’s collect accepted')
        bCollects++
      }
      await aLoad.stop()
      const expected = 2 * bCollects
      // Bounded: on a pool A holds, most of B's callbacks would take far longer than this.
      await prompt
        .waitFor(() => prompt.requestsTo('/b').length >= expected, callbackWaitMs, 'B’s callbacks')
        .catch(() => {})
      const latencies = prompt
        .requestsTo('/b')
        .map((request) => request.receivedAtMs - epochMs(JSON.parse(request.body).createdAt))
        .sort((x, y) => x - y)
      const aRequests = aLoad.requestsSent()
      const figures = {
        slowEndpoints,
        bCallbacks: `${latencies.length} of ${expected}`,
        bP50Ms: shown(percentile(latencies, expected, 50), callbackWaitMs),
        bP99Ms: shown(percentile(latencies, expected, 99), callbackWaitMs),
        bMaxMs: shown(percentile(latencies, expected, 100), callbackWaitMs),
        aCollects: aLoad.made(),
        aRequestsSent: aRequests,
      }
      process.stdout.write(`# figures [${store().name}]: ${JSON.stringify(figures)}\n`)
      assert.equal(latencies.length, expected, 'every callback of B arrived')
      const p99 = percentile(latencies, expected, 99)
      assert.ok(p99 < p99BoundMs, `B's p99 ${p99} ms with ${slowEndpoints} slow endpoints of A`)
      assert.ok(aRequests > 0, 'A’s endpoints are not starved either')
      await assertStoreConsistent(app)
    })
  })
}

// Sandbox costs nothing and may call back any host: its callbacks must never hold a slot live
// needs. A live callback cannot reach this machine's receivers (live delivery refuses loopback
// addresses before connecting), so what is measured is when each live event's first attempt
// starts after it comes due, while A's sandbox callbacks fill their pool.
const liveOperations = 50
const liveEveryMs = 150

describeEachStore('fair delivery: sandbox callbacks never slow live ones', (store) => {
  let app: TestApp
  let slow: Receiver[] = []
  let pools: { stop(): Promise<void> } | undefined

  before(async () => {
    slow = await slowReceivers(30)
    app = await startApp(store(), {
      workers: 'manual',
      liveOperators: true,
      environment: { CALLBACK_CONCURRENCY: '16' },
    })
  })
  after(async () => {
    for (const receiver of slow) await receiver.close()
    await pools?.stop()
    await app.close()
  })

  test(`live callbacks start within ${p99BoundMs} ms while A's sandbox callbacks go to 30 endpoints answering after ${slowAnswerMs / 1000} s`, async () => {
    const live = await app.createMerchant('Live')
    const operations: number[] = []
    for (let i = 0; i < liveOperations; i++) {
      // TEST-NET-1: never called; the events are pointed at a loopback address before any delivery runs.
      const response = await app.client(live.live).post('/api/v1/collect', {
        ...collectTo('http://192.0.2.10/never-called'),
        customer: { phoneNumber: '+2250700000123' },
      })
      assert.equal(response.status, 200, response.text)
      const operation = await app.context.store.operations.findByToken(
        live.id,
        'live',
        response.body.data.collect.token,
      )
      operations.push(operation!.id)
    }
    const hour = 3_600_000_000
    await app.db
      .updateTable('events')
      .set({ callback_url: 'http://127.0.0.1:9/live', next_attempt_at_us: app.context.clock.nowUs() + hour })
      .where('merchant_id', '=', live.id)
      .where('delivery_status', '=', 'pending')
      .execute()
    pools = startDeliveryPool(app.context, 50)
    const a = await merchantWithClient(app)
    const aLoad = await loadOfA(a.client, slow)
    const dueAtUs = new Map<number, number>()
    for (const operationId of operations) {
      const nowUs = app.context.clock.nowUs()
      dueAtUs.set(operationId, nowUs)
      await app.db
        .updateTable('events')
        .set({ next_attempt_at_us: nowUs })
        .where('operation_id', '=', operationId)
        .where('delivery_status', '=', 'pending')
        .execute()
      await sleep(liveEveryMs)
    }
    await aLoad.stop()
    const firstAttempts = async () =>
      app.db
        .selectFrom('event_attempts')
        .innerJoin('events', 'events.id', 'event_attempts.event_id')
        .select(['events.operation_id', (eb) => eb.fn.min('event_attempts.started_at_us').as('startedAtUs')])
        .where('events.merchant_id', '=', live.id)
        .groupBy('events.operation_id')
        .execute()
    const deadline = Date.now() + callbackWaitMs
    let attempts = await firstAttempts()
    while (attempts.length < operations.length && Date.now() < deadline) {
      await sleep(100)
      attempts = await firstAttempts()
    }
    const latencies = attempts
      .map((row) => (Number(row.startedAtUs) - dueAtUs.get(Number(row.operation_id))!) / 1000)
      .sort((x, y) => x - y)
    const expected = operations.length
    const figures = {
      liveAttempted: `${latencies.length} of ${expected}`,
      liveP50Ms: shown(percentile(latencies, expected, 50), callbackWaitMs),
      liveP99Ms: shown(percentile(latencies, expected, 99), callbackWaitMs),
      liveMaxMs: shown(percentile(latencies, expected, 100), callbackWaitMs),
      aCollects: aLoad.made(),
      aRequestsSent: aLoad.requestsSent(),
    }
    process.stdout.write(`# figures [${store().name}] sandbox beside live: ${JSON.stringify(figures)}\n`)
    assert.equal(latencies.length, expected, 'every live event was attempted')
    const p99 = percentile(latencies, expected, 99)
    assert.ok(p99 < p99BoundMs, `live p99 ${p99} ms`)
    await assertStoreConsistent(app)
  })
})
