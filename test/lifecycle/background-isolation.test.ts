import assert from 'node:assert/strict'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import pino from 'pino'
import { EndpointCircuits } from '../../src/events/circuit.ts'
import { DeliveryPool } from '../../src/events/delivery-pool.ts'
import { type ClaimingOutbox, type Delivery, deliverDueEvents } from '../../src/events/dispatcher.ts'
import { scheduledAttemptAtUs } from '../../src/events/retry-schedule.ts'
import type {
  AttemptRecord,
  ClaimedEvent,
  Deferral,
  EndedAttempt,
  ParkTarget,
  ParkTurns,
} from '../../src/store/repositories/outbox.ts'
import { manualClock, startApp, type TestApp } from '../support/app.ts'
import { initiate, merchantWithClient } from '../support/operations.ts'
import { type Receiver, startReceiver } from '../support/receiver.ts'
import { sandboxPhone } from '../support/sandbox-requests.ts'
import { describeEachStore } from '../support/stores.ts'
import { waitFor } from '../support/wait.ts'

// Issue 12, "Isolation in background work": callback delivery runs apart from scheduled work,
// with bounded concurrency and a circuit per endpoint, so one merchant whose receiver hangs
// delays neither another merchant's settlements nor its callbacks (CONTRACT.md, Callbacks).
const delayMs = 1_000
const hangingOperations = 40

let sequence = 0

/** A collect to `callbackUrl`: `900` settles after SANDBOX_DELAY_MS (scheduled work), `001` at once. */
function collectBody(ending: string, callbackUrl: string) {
  return {
    amount: 10_000,
    channel: 'orange-money',
    country: 'CI',
    customer: { phoneNumber: sandboxPhone(ending), fullName: 'Awa Kone' },
    merchantReference: `isolation-${sequence++}`,
    callbackUrl,
  }
}

/** ISO 8601 with microseconds, to epoch milliseconds. */
const epochMs = (timestamp: string) => Date.parse(timestamp.replace(/(\.\d{3})\d*Z$/, '$1Z'))

interface Arrival {
  eventId: string
  type: string
  token: string
  atMs: number
}

/**
 * A receiver that accepts every request and never answers it (as a stuck merchant server does)
 * until `recover()`: then it answers 200 to the requests it still holds, and to every later one.
 * It records each request as it arrives.
 */
async function startHangingReceiver() {
  const arrivals: Arrival[] = []
  const held = new Set<ServerResponse>()
  let hanging = true
  const answer = (response: ServerResponse) => {
    if (!response.destroyed) response.writeHead(200).end()
  }
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      const kind = String(body.type).split('.')[0]!
      const eventId = String(request.headers['webhook-id'])
      arrivals.push({ eventId, type: body.type, token: body.data[kind].token, atMs: Date.now() })
      if (!hanging) return answer(response)
      held.add(response)
      response.on('close', () => held.delete(response))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hangs`,
    arrivals,
    recover: () => {
      hanging = false
      for (const response of held) answer(response)
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of held) response.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

describeEachStore('background work: a hanging callback receiver delays no one else', (store) => {
  let app: TestApp
  let healthy: Receiver
  let hanging: Awaited<ReturnType<typeof startHangingReceiver>>
  const figures: Record<string, string> = {}

  before(async () => {
    healthy = await startReceiver()
    hanging = await startHangingReceiver()
    app = await startApp(store(), {
      workers: 'background',
      environment: { SANDBOX_DELAY_MS: String(delayMs), RATE_LIMIT_PER_SECOND: '0' },
    })
  })
  after(async () => {
    // The held requests fail at once, so stopping the workers waits for no timeout.
    await hanging.close()
    await app.close()
    await healthy.close()
    if (Object.keys(figures).length > 0)
      process.stdout.write(`# figures [${store().name}]: ${JSON.stringify(figures)}\n`)
  })

  /**
   * Merchant B's round: `count` collects settling after the sandbox delay, to the healthy receiver.
   * Returns the slowest settlement (creation to the final status) and the slowest callback (an
   * event's creation to its arrival), both in ms.
   */
  async function roundOfB(count: number) {
    const { client } = await merchantWithClient(app)
    const path = `/b/${sequence++}`
    const tokens = new Set<string>()
    for (let index = 0; index < count; index++) {
      tokens.add((await initiate(client, 'collect', collectBody('900', healthy.url(path)))).token)
    }
    await healthy.waitFor(
      () => healthy.bodiesTo(path).filter((body) => body.type === 'collect.succeeded').length === count,
      15_000,
      `B's ${count} collect.succeeded callbacks`,
    )
    const arrivals = healthy.requestsTo(path).map((request) => ({
      body: JSON.parse(request.body),
      atMs: request.receivedAtMs,
    }))
    assert.equal(arrivals.length, 2 * count, 'pending and succeeded, each once')
    let settlementMs = 0
    for (const token of tokens) {
      const mine = arrivals.filter((arrival) => arrival.body.data.collect.token === token)
      assert.deepEqual(
        mine.map((arrival) => arrival.body.type),
        ['collect.pending', 'collect.succeeded'],
      )
      const [pending, succeeded] = mine.map((arrival) => epochMs(arrival.body.createdAt))
      settlementMs = Math.max(settlementMs, succeeded! - pending!)
    }
    const callbackMs = Math.max(...arrivals.map((arrival) => arrival.atMs - epochMs(arrival.body.createdAt)))
    return { settlementMs, callbackMs }
  }

  const circuitLogs = (change: 'opened' | 'closed') =>
    app.logs.filter((line) =>
      change === 'opened'
        ? line.includes('circuit open') && line.includes(new URL(hanging.url).origin)
        : line.includes('circuit closed'),
    )

  let unloaded: { settlementMs: number; callbackMs: number }
  let merchantA: string

  test('unloaded: B settles after the sandbox delay and its callbacks arrive at once', async () => {
    unloaded = await roundOfB(5)
    figures.unloaded = `settlement ${unloaded.settlementMs} ms, callback ${unloaded.callbackMs} ms`
    assert.ok(unloaded.settlementMs >= delayMs, `settled after the delay, ${unloaded.settlementMs} ms`)
    assert.ok(unloaded.settlementMs < delayMs + 1_500, `settled in ${unloaded.settlementMs} ms`)
    assert.ok(unloaded.callbackMs < 1_000, `callbacks in ${unloaded.callbackMs} ms`)
  })

  test(`${hangingOperations} operations of A aimed at a receiver that hangs: B is on time, and A's circuit opens`, async () => {
    const { merchant, client } = await merchantWithClient(app)
    merchantA = merchant.id
    // `001` succeeds at once: two events each (pending, then succeeded), all due now.
    for (let index = 0; index < hangingOperations; index++) {
      await initiate(client, 'collect', collectBody('001', hanging.url))
    }
    await waitFor('A’s first callbacks to hang', () => hanging.arrivals.length > 0, 5_000)

    const whileHanging = await roundOfB(5)
    figures.whileAHangs = `settlement ${whileHanging.settlementMs} ms, callback ${whileHanging.callbackMs} ms`
    const settlementBound = Math.max(2 * unloaded.settlementMs, unloaded.settlementMs + 2_500)
    assert.ok(
      whileHanging.settlementMs <= settlementBound,
      `B settled in ${whileHanging.settlementMs} ms (unloaded ${unloaded.settlementMs} ms)`,
    )
    assert.ok(whileHanging.callbackMs < 2_000, `B's callbacks took up to ${whileHanging.callbackMs} ms`)

    // The first requests to A time out after 10 s: the circuit opens instead of sending the rest.
    await waitFor('A’s endpoint circuit to open', () => circuitLogs('opened').length > 0, 15_000)
    const whileOpen = await roundOfB(5)
    figures.whileACircuitOpen = `settlement ${whileOpen.settlementMs} ms, callback ${whileOpen.callbackMs} ms`
    assert.ok(whileOpen.settlementMs <= settlementBound, `B settled in ${whileOpen.settlementMs} ms`)
    assert.ok(whileOpen.callbackMs < 2_000, `B's callbacks took up to ${whileOpen.callbackMs} ms`)

    const events = await eventsOfA()
    assert.equal(events.length, 2 * hangingOperations)
    const attempts = await attemptsOfA()
    figures.hangingAttempts = `${hanging.arrivals.length} requests to A for ${events.length} events`
    assert.ok(
      hanging.arrivals.length < hangingOperations / 4,
      `A's receiver got ${hanging.arrivals.length} requests, not one per event`,
    )
    assert.ok(attempts.length <= hanging.arrivals.length, 'every attempt recorded was a request sent')
    assert.ok(attempts.length > 0 && attempts.every((attempt) => attempt.error !== null))
    const neverTried = events.filter((event) => event.delivery_status === 'pending' && event.attempts === 0)
    assert.ok(neverTried.length >= hangingOperations - 8, 'most of A’s events wait unsent, no attempt spent')
  })

  function eventsOfA() {
    return app.db
      .selectFrom('events')
      .select(['id', 'operation_id', 'position', 'delivery_status', 'attempts', 'delivered_at_us'])
      .where('merchant_id', '=', merchantA)
      .where('callback_url', 'is not', null)
      .execute()
  }

  function attemptsOfA() {
    return app.db
      .selectFrom('event_attempts')
      .innerJoin('events', 'events.id', 'event_attempts.event_id')
      .select(['event_attempts.event_id', 'event_attempts.error', 'event_attempts.outcome', 'started_at_us'])
      .where('events.merchant_id', '=', merchantA)
      .execute()
  }

  test('once A’s receiver answers again, a probe closes the circuit and all of A’s events arrive, in order per operation', async () => {
    hanging.recover()
    const recoveredAt = Date.now()
    // The few events whose request timed out are retried about a minute later (CONTRACT.md): once
    // every request sent is recorded, the test brings that minute forward instead of waiting for
    // it, for them and for the events of their operations held behind them.
    await waitFor('every request sent to A to be recorded', async () => {
      const recorded = await attemptsOfA()
      return recorded.length >= hanging.arrivals.length
    })
    const retried = (await eventsOfA()).filter((event) => event.attempts > 0)
    const nowUs = app.context.clock.nowUs()
    if (retried.length > 0) {
      await app.db
        .updateTable('events')
        .set({ next_attempt_at_us: nowUs })
        .where('delivery_status', '=', 'pending')
        .where(
          'operation_id',
          'in',
          retried.map((event) => event.operation_id),
        )
        .execute()
    }
    await waitFor(
      'every event of A to be delivered',
      async () => (await eventsOfA()).every((event) => event.delivery_status === 'delivered'),
      15_000,
    )
    figures.recovery = `all of A's events delivered ${Date.now() - recoveredAt} ms after the receiver recovered`
    assert.ok(circuitLogs('closed').length > 0, 'the circuit closed after a probe')

    const attempts = await attemptsOfA()
    const delivered = attempts.filter((attempt) => attempt.outcome === 'delivered')
    assert.equal(delivered.length, 2 * hangingOperations, 'each event delivered once')
    assert.equal(new Set(delivered.map((attempt) => attempt.event_id)).size, 2 * hangingOperations)
    const tokens = new Set(hanging.arrivals.map((arrival) => arrival.token))
    assert.equal(tokens.size, hangingOperations)
    for (const token of tokens) {
      const types = hanging.arrivals
        .filter((arrival) => arrival.token === token)
        .map((arrival) => arrival.type)
      const firstSucceeded = types.indexOf('collect.succeeded')
      assert.ok(firstSucceeded > 0, `order of ${token}: ${types}`)
      assert.ok(
        types.slice(firstSucceeded).every((type) => type === 'collect.succeeded'),
        `order of ${token}: ${types}`,
      )
    }
    // And by the records: no operation's later event was attempted before its earlier one was delivered.
    const events = await eventsOfA()
    for (const event of events) {
      const earlier = events.find(
        (other) => other.operation_id === event.operation_id && other.position < event.position,
      )
      if (!earlier) continue
      const firstTry = Math.min(
        ...attempts
          .filter((attempt) => attempt.event_id === event.id)
          .map((attempt) => attempt.started_at_us),
      )
      assert.ok(
        firstTry >= Number(earlier.delivered_at_us),
        'attempted only once the earlier one was delivered',
      )
    }
  })
})

describe('endpoint circuits', () => {
  const second = 1_000_000
  const settings = { failureThreshold: 3, cooldownMs: 5_000, maxCooldownMs: 20_000, probeWindowMs: 15_000 }

  test('open after 3 failures in a row, defer until the cool-down, probe once, then close or open for longer', async () => {
    const circuits = new EndpointCircuits(settings, () => 0)
    const endpoint = 'http://127.0.0.1:1'
    let now = 100 * second
    for (const id of ['a', 'b']) {
      assert.deepEqual(circuits.admit(endpoint, id, now), { kind: 'send' })
      assert.equal(circuits.record(endpoint, id, 'failed', now), undefined)
    }
    assert.equal(circuits.record(endpoint, 'x', 'answered', now), undefined, 'an answer resets the count')
    for (const id of ['c', 'd']) assert.equal(circuits.record(endpoint, id, 'failed', now), undefined)
    assert.equal(
      circuits.record(endpoint, 'e', 'not-reached', now),
      undefined,
      'an SSRF refusal counts for nothing',
    )
    assert.equal(circuits.record(endpoint, 'f', 'failed', now), 'opened')
    assert.equal(circuits.record(endpoint, 'g', 'failed', now), undefined, 'in flight before it opened')
    assert.deepEqual(circuits.admit(endpoint, 'h', now + second), {
      kind: 'defer',
      untilUs: now + 5 * second,
    })
    assert.deepEqual(
      circuits.admit('http://127.0.0.1:2', 'h', now),
      { kind: 'send' },
      'other endpoints go on',
    )

    now += 5 * second
    assert.deepEqual(circuits.admit(endpoint, 'probe', now), { kind: 'send' })
    const waiting = circuits.admit(endpoint, 'i', now)
    assert.equal(waiting.kind, 'wait')
    assert.equal(circuits.record(endpoint, 'probe', 'failed', now), 'reopened')
    await (waiting as { probe: Promise<void> }).probe
    assert.deepEqual(circuits.admit(endpoint, 'i', now), { kind: 'defer', untilUs: now + 10 * second })
    now += 10 * second
    assert.deepEqual(circuits.admit(endpoint, 'probe2', now), { kind: 'send' })
    assert.equal(circuits.record(endpoint, 'probe2', 'failed', now), 'reopened')
    now += 20 * second
    assert.deepEqual(circuits.admit(endpoint, 'probe3', now), { kind: 'send' })
    assert.equal(circuits.record(endpoint, 'probe3', 'failed', now), 'reopened')
    assert.deepEqual(
      circuits.admit(endpoint, 'j', now),
      { kind: 'defer', untilUs: now + 20 * second },
      'the cool-down doubles up to its maximum',
    )
    now += 20 * second
    assert.deepEqual(circuits.admit(endpoint, 'probe4', now), { kind: 'send' })
    assert.equal(circuits.record(endpoint, 'probe4', 'answered', now), 'closed')
    assert.deepEqual(circuits.admit(endpoint, 'k', now), { kind: 'send' })
  })
})

describe('the dispatcher with circuits, over a fake outbox and a manual clock', () => {
  const minute = 60_000_000
  let receiver: Receiver
  before(async () => {
    receiver = await startReceiver()
    receiver.script('/down', [], 503)
  })
  after(() => receiver.close())

  /**
   * An outbox holding `events`, all due, recording what the dispatcher does with each. With
   * `dueAgain`, an event given back is due again at once, as a real outbox's would be soon.
   */
  /**
   * `recordMs`: how long recording an attempt takes; `next`: the event a recorded attempt's event
   * lets through (its operation's next one), claimed with the record.
   */
  function fakeOutbox(
    events: ClaimedEvent[],
    options: {
      dueAgain?: boolean
      dueAgainWithinMs?: number
      recordMs?: number
      next?: Record<string, ClaimedEvent>
    } = {},
  ) {
    const recorded: { id: string; attempt: AttemptRecord }[] = []
    const deferred: { id: string; untilUs: number }[] = []
    /** Each park asked for, with how many events had been given back one by one before it. */
    const parked: { endpoint: string; fromUs: number; stepUs: number; deferredBefore: number }[] = []
    /** What the dispatcher logged, at warn and above. */
    const warnings: { msg: string; endpoint?: string; lastAnswerMsAgo?: number | null }[] = []
    let due = [...events]
    return {
      recorded,
      deferred,
      parked,
      warnings,
      outbox: {
        claimDue: async (
          _owner: string,
          _nowUs: number,
          _leaseMs: number,
          limit: number,
          operationId?: number,
        ) => {
          if (operationId !== undefined) return []
          const claimed = due.slice(0, limit)
          due = due.slice(limit)
          return claimed
        },
        // Claims the merchants' due events in their turn, at most each one's quota.
        claimTogether: <T>(claim: (outbox: ClaimingOutbox) => Promise<T>) =>
          claim({
            pendingMerchants: async () =>
              [...new Set(due.map((event) => event.merchantId))].map((merchantId) => ({
                merchantId,
                due: true,
              })),
            claimDueOf: async (_owner, _nowUs, _leaseMs, _mode, quotas) => {
              const claimed = quotas.flatMap(({ merchantId, count }) =>
                due.filter((event) => event.merchantId === merchantId).slice(0, count),
              )
              due = due.filter((event) => !claimed.includes(event))
              return claimed
            },
          }),
        recordAttempt: async ({ event, attempt }: EndedAttempt): Promise<ClaimedEvent | undefined> => {
          if (options.recordMs) await new Promise((resolve) => setTimeout(resolve, options.recordMs))
          recorded.push({ id: event.id, attempt })
          return options.next?.[event.id]
        },
        defer: async (deferrals: readonly Deferral[], _owner: string) => {
          for (const { event, untilUs } of deferrals) {
            deferred.push({ id: event.id, untilUs })
            // Claimable again at once; with `dueAgainWithinMs`, only if due by then (a circuit's cool-down is not).
            const soon =
              untilUs < Date.now() * 1000 + (options.dueAgainWithinMs ?? Number.POSITIVE_INFINITY) * 1000
            if (options.dueAgain && soon) due.push(event)
          }
        },
        // Parks nothing: what is due stays due, as in a store where the park found none unclaimed.
        park: async ({ endpoint }: ParkTarget, _nowUs: number, turn: ParkTurns) => {
          parked.push({ endpoint, fromUs: turn.fromUs, stepUs: turn.stepUs, deferredBefore: deferred.length })
          return 0
        },
      },
    }
  }

  /** The dispatcher's dependencies over a fake outbox: its warnings kept, and one fixed signing secret. */
  function deliveryOver(
    fake: ReturnType<typeof fakeOutbox>,
    clock: ReturnType<typeof manualClock>,
  ): Delivery {
    return {
      dependencies: {
        outbox: fake.outbox,
        clock,
        logger: pino(
          { level: 'warn' },
          { write: (line: string) => void fake.warnings.push(JSON.parse(line)) },
        ),
        signingSecrets: async () => [`whsec_${Buffer.alloc(32, 1).toString('base64')}`],
      },
      owner: 'test',
    }
  }

  function event(id: string, path: string, createdAtUs: number, attempts = 0): ClaimedEvent {
    return {
      id,
      merchantId: 'merchant',
      mode: 'sandbox',
      position: Number(id.replace(/\D/g, '')) || 0,
      operationId: Number(id.replace(/\D/g, '')) || 0,
      type: 'collect.pending',
      payload: '{}',
      callbackUrl: receiver.url(path),
      createdAtUs,
      deliveryStatus: 'pending',
      attempts,
      nextAttemptAtUs: createdAtUs,
      deliveredAtUs: null,
    }
  }

  test('an open circuit gives fresh events back unsent, but not one already held 5 minutes past its schedule', async () => {
    const clock = manualClock(Date.now() * 1000)
    const circuits = new EndpointCircuits(undefined, () => 0)
    const now = clock.nowUs()
    const run = async (events: ClaimedEvent[]) => {
      const fake = fakeOutbox(events)
      await deliverDueEvents({ ...deliveryOver(fake, clock), circuits }, 16)
      return fake
    }
    // Three 503s in a row open the endpoint's circuit; its due backlog is then parked until the
    // end of the cool-down, in one call, instead of being claimed and given back event by event.
    const parks: { endpoint: string; fromUs: number; stepUs: number }[][] = []
    for (const id of ['e1', 'e2', 'e3']) {
      const { recorded, parked } = await run([event(id, '/down', now)])
      parks.push(parked)
      assert.deepEqual(
        recorded.map((entry) => [entry.attempt.statusCode, entry.attempt.outcome]),
        [[503, 'retry']],
      )
    }
    assert.deepEqual(parks[0], [])
    assert.deepEqual(parks[1], [])
    assert.equal(parks[2]!.length, 1, 'parked when the third failure opened it')
    assert.equal(parks[2]![0]!.endpoint, new URL(receiver.url('/down')).origin)
    const parkedFromUs = parks[2]![0]!.fromUs
    assert.ok(
      parkedFromUs >= now + 5_000_000 && parkedFromUs < now + 5_100_000,
      'at the end of the cool-down',
    )
    assert.equal(parks[2]![0]!.stepUs, 0, 'all of it at once, as the circuit defers')
    const before = receiver.requestsTo('/down').length
    const fresh = await run([event('e4', '/down', now), event('e5', '/ok', now)])
    assert.equal(receiver.requestsTo('/down').length, before, 'nothing sent to the open endpoint')
    assert.deepEqual(fresh.recorded, [], 'no attempt spent')
    assert.equal(fresh.deferred.length, 2, 'both go back: /ok is the same endpoint (origin)')
    for (const { untilUs } of fresh.deferred) {
      assert.ok(untilUs >= now + 5_000_000 && untilUs <= now + 5_600_000, 'due again after the cool-down')
    }

    // Created 10 minutes ago and never tried: its first attempt is 10 minutes late already.
    const late = await run([event('e6', '/down', now - 10 * minute)])
    assert.deepEqual(late.deferred, [])
    assert.deepEqual(
      late.recorded.map((entry) => entry.attempt.statusCode),
      [503],
      'sent whatever the circuit',
    )
    // Two attempts made: due again 6 minutes after creation by the schedule, held at most 5 more.
    assert.equal(scheduledAttemptAtUs({ createdAtUs: 0, attempts: 2 }), 6 * minute)
    const held = await run([event('e7', '/down', now - 10 * minute, 2)])
    assert.equal(held.deferred.length, 1, 'not yet 5 minutes past its schedule')
  })

  /**
   * A sandbox pool of `concurrency` over the fake outbox, stopped once `until` holds. The events
   * are one merchant's unless they say otherwise: it may hold half of the pool, and one endpoint
   * of it half of that in flight (a quarter of the pool), and as many waiting.
   */
  async function runPool(
    events: ClaimedEvent[],
    concurrency: number,
    until: (fake: FakeOutbox) => boolean,
    meanwhile?: (clock: ReturnType<typeof manualClock>, fake: FakeOutbox) => Promise<void>,
    options: {
      givenBackPauseMs?: number
      firstSlots?: number
      dueAgain?: boolean
      dueAgainWithinMs?: number
      recordMs?: number
      next?: Record<string, ClaimedEvent>
      circuits?: EndpointCircuits
    } = {},
  ) {
    const { givenBackPauseMs, firstSlots, circuits, ...outbox } = options
    const clock = manualClock(Date.now() * 1000)
    const fake = fakeOutbox(events, outbox)
    const pool = new DeliveryPool(
      { ...deliveryOver(fake, clock), circuits },
      {
        mode: 'sandbox',
        concurrency,
        firstSlots,
        idleMs: 20,
        givenBackPauseMs,
      },
    )
    try {
      await meanwhile?.(clock, fake)
      await receiver.waitFor(() => until(fake), 5_000, 'the pool to be done')
    } finally {
      await pool.stop()
    }
    return { fake, clock }
  }
  type FakeOutbox = ReturnType<typeof fakeOutbox>

  /**
   * `count` events for `url`, on a receiver of its own (endpoints are origins), ids `prefix`1 on;
   * then `answering` events, ids a…, for the shared receiver, which answers them at once.
   */
  function elsewhereThenAnswering(url: string, prefix: string, count: number, answering: number) {
    receiver.script('/answers', [], { status: 200 })
    const now = Date.now() * 1000
    return [
      ...Array.from({ length: count }, (_, i) => ({
        ...event(`${prefix}${i + 1}`, '/answers', now),
        callbackUrl: url,
      })),
      ...Array.from({ length: answering }, (_, i) => event(`a${i + count + 1}`, '/answers', now)),
    ]
  }

  test('events claimed for an endpoint with every slot taken wait in the pool and go out as slots free, with no write', async () => {
    receiver.script('/slow', [], { status: 200, delayMs: 30 })
    const now = Date.now() * 1000
    const events = ['s1', 's2', 's3', 's4'].map((id) => event(id, '/slow', now))
    const { fake } = await runPool(events, 8, (outbox) => outbox.recorded.length === 4)
    assert.deepEqual(fake.deferred, [], 'none given back to the outbox')
    assert.deepEqual(fake.recorded.map((entry) => entry.attempt.outcome).sort(), Array(4).fill('delivered'))
    const arrivals = receiver.requestsTo('/slow').map((request) => request.receivedAtMs)
    assert.ok(arrivals[2]! - arrivals[0]! >= 25, 'the third waited for one of the first two to end')
  })

  test('an endpoint\u2019s slot frees once it has answered, not once the attempt is recorded; the next event claimed with a record goes out after it', async () => {
    receiver.script('/quick', [], { status: 200 })
    const now = Date.now() * 1000
    const events = ['q1', 'q2', 'q3', 'q4'].map((id) => event(id, '/quick', now))
    // Recording takes 300 ms (a slow commit); the endpoint answers at once and has two slots.
    const { fake } = await runPool(events, 8, (outbox) => outbox.recorded.length === 5, undefined, {
      recordMs: 300,
      next: { q1: event('q5', '/quick', now) },
    })
    const arrivals = receiver.requestsTo('/quick').map((request) => request.receivedAtMs)
    assert.equal(arrivals.length, 5)
    assert.ok(arrivals[3]! - arrivals[0]! < 200, 'the third and fourth did not wait for a record')
    assert.ok(arrivals[4]! - arrivals[0]! >= 290, 'q5 was claimed with q1\u2019s record, and sent after it')
    assert.deepEqual(fake.deferred, [], 'none given back')
  })

  test('the circuit hears each failure when the request ends, before its slot frees: three 503s open it, though no attempt is recorded yet', async () => {
    receiver.script('/failing', [], { status: 503 })
    const now = Date.now() * 1000
    const events = ['x1', 'x2', 'x3', 'x4', 'x5', 'x6'].map((id) => event(id, '/failing', now))
    // One slot, recording takes 300 ms, and events given back for want of a slot are due again at once.
    const cooledDown = (outbox: FakeOutbox) =>
      outbox.deferred.some(({ untilUs }) => untilUs >= now + 5_000_000)
    const { fake } = await runPool(
      events,
      8,
      (outbox) => outbox.recorded.length === 3 && cooledDown(outbox),
      undefined,
      {
        firstSlots: 1,
        recordMs: 300,
        dueAgain: true,
        dueAgainWithinMs: 1_000,
        circuits: new EndpointCircuits(undefined, () => 0),
      },
    )
    assert.equal(receiver.requestsTo('/failing').length, 3, 'the fourth found the circuit open')
    assert.ok(cooledDown(fake), 'and went back until the cool-down ends')
  })

  test('an event that waited so long its lease could run out mid-send goes back to the outbox, due at once', async () => {
    receiver.script('/stuck', [], { status: 200, delayMs: 300 })
    const now = Date.now() * 1000
    const events = ['w1', 'w2', 'w3'].map((id) => event(id, '/stuck', now))
    let advancedTo = 0
    const { fake } = await runPool(
      events,
      8,
      (outbox) => outbox.recorded.length === 2 && outbox.deferred.length === 1,
      async (clock) => {
        await receiver.waitFor(() => receiver.requestsTo('/stuck').length === 2, 2_000, 'two sent')
        clock.advance(11_000)
        advancedTo = clock.nowUs()
      },
    )
    assert.deepEqual(
      fake.deferred.map((entry) => entry.id),
      ['w3'],
    )
    const dueAgainUs = fake.deferred[0]!.untilUs
    assert.ok(dueAgainUs >= advancedTo && dueAgainUs < advancedTo + 1_000_000, 'due again at once')
    assert.equal(receiver.requestsTo('/stuck').length, 2, 'w3 was never sent')
  })

  test('an endpoint that hangs does not pace the others: after a claim that started events, the pool claims again at once', async () => {
    // Endpoints are origins: the one that hangs is a receiver of its own.
    const hanging = await startReceiver()
    try {
      hanging.script('/hanging', [], { status: 200, delayMs: 3_000 })
      // Twelve events for the endpoint that hangs come due first, then eight for one that answers.
      const events = elsewhereThenAnswering(hanging.url('/hanging'), 'h', 12, 8)
      const answered = (outbox: FakeOutbox) =>
        outbox.recorded.filter((entry) => entry.id.startsWith('a')).length
      // The first claim (the merchant's 16, half of the pool) starts or holds eight of the
      // hanging endpoint's events, gives four back, and starts four that answer; four more of
      // those are still due. Were the pool to pause after that claim (10 s here), they would not
      // be delivered within the 5 s the run waits.
      const { fake } = await runPool(events, 32, (outbox) => answered(outbox) === 8, undefined, {
        givenBackPauseMs: 10_000,
      })
      assert.equal(answered(fake), 8)
      const deferred = fake.deferred.map((entry) => entry.id)
      assert.deepEqual(deferred.slice(0, 4), ['h9', 'h10', 'h11', 'h12'], 'beyond its share, back at once')
      assert.ok(
        deferred.every((id) => id.startsWith('h')),
        'only the hanging endpoint\u2019s events went back (its waiting ones when the pool stopped)',
      )
    } finally {
      await hanging.close()
    }
  })

  test('beyond as many waiting as the endpoint has slots, events go back to the outbox unsent', async () => {
    receiver.script('/busy', [], { status: 200, delayMs: 30 })
    const now = Date.now() * 1000
    const events = ['b1', 'b2', 'b3', 'b4', 'b5', 'b6'].map((id) => event(id, '/busy', now))
    // Two slots earned, of a share of four: the merchant has room for all six, its endpoint not.
    const { fake } = await runPool(events, 16, (outbox) => outbox.recorded.length === 4, undefined, {
      firstSlots: 2,
    })
    assert.deepEqual(
      fake.deferred.map((entry) => entry.id),
      ['b5', 'b6'],
    )
    assert.deepEqual(fake.recorded.map((entry) => entry.id).sort(), ['b1', 'b2', 'b3', 'b4'])
  })

  test('a receiver that never answers holds its first 4 slots and 4 waiting, not a quarter of the pool and as many again', async () => {
    const silent = await startReceiver()
    try {
      silent.script('/silent', [], { status: 200, delayMs: 3_000 })
      const events = elsewhereThenAnswering(silent.url('/silent'), 's', 40, 8)
      // The production size: 64 deliveries in flight, 16 to one endpoint once it has earned them.
      const { fake } = await runPool(
        events,
        64,
        (outbox) => outbox.recorded.filter((entry) => entry.id.startsWith('a')).length === 8,
      )
      assert.equal(silent.requestsTo('/silent').length, 4, 'four sent to the endpoint never heard from')
      const givenBack = fake.deferred.map((entry) => entry.id)
      assert.deepEqual(
        givenBack.slice(0, 32),
        Array.from({ length: 32 }, (_, i) => `s${i + 9}`),
      )
    } finally {
      await silent.close()
    }
  })

  test('an endpoint silent for 400 ms stops holding its slots: its waiting events go back, its requests leave the pool’s slots and its endpoint’s part of the merchant’s share, and the merchant’s endpoint that answers goes on', async () => {
    const silent = await startReceiver()
    try {
      const now = Date.now() * 1000
      // The silent endpoint: 4 requests in flight and 4 waiting, the whole share of its merchant
      // in a pool of 16.
      silent.script('/silent', [], { status: 200, delayMs: 3_000 })
      const events: ClaimedEvent[] = Array.from({ length: 8 }, (_, i) => ({
        ...event(`s${i + 1}`, '/silent', now),
        callbackUrl: silent.url('/silent'),
      }))
      receiver.script('/beside-dead', [], { status: 200 })
      events.push(...Array.from({ length: 8 }, (_, i) => event(`a${i + 11}`, '/beside-dead', now)))
      const started = Date.now()
      const answered = (fake: FakeOutbox) => fake.recorded.filter((entry) => entry.id.startsWith('a'))
      const { fake } = await runPool(
        events,
        16,
        (fake) => answered(fake).length === 8,
        async (clock, fake) => {
          await new Promise((resolve) => setTimeout(resolve, 150))
          assert.equal(
            answered(fake).length,
            0,
            'the silent one’s requests and waiting events fill the share',
          )
          clock.advance(400)
        },
      )
      assert.ok(
        performance.now() - started < 2_000,
        'the answering endpoint did not wait for them to time out',
      )
      assert.equal(silent.requestsTo('/silent').length, 4, 'no more requests to the silent one')
      assert.deepEqual(
        fake.deferred.map((entry) => entry.id).sort(),
        ['s5', 's6', 's7', 's8'],
        'its waiting events went back to the outbox',
      )
    } finally {
      await silent.close()
    }
  })

  /**
   * A pool with 8 events for an endpoint that answers and 40 for one that holds every request 3 s,
   * run until its backlog has been parked `parks` times; `meanwhile` runs once 8 were given back.
   */
  async function besideSilentEndpoint(
    parks: number,
    meanwhile: (clock: ReturnType<typeof manualClock>, fake: FakeOutbox) => Promise<void>,
  ) {
    const silent = await startReceiver()
    try {
      silent.script('/silent', [], { status: 200, delayMs: 3_000 })
      const events = elsewhereThenAnswering(silent.url('/silent'), 's', 40, 8)
      // Given-back events are due again at once, so claims keep finding the silent endpoint's.
      const { fake } = await runPool(
        events,
        64,
        (outbox) => outbox.parked.length >= parks,
        async (clock, fake) => {
          await receiver.waitFor(() => fake.deferred.length >= 8, 5_000, 'events given back')
          await meanwhile(clock, fake)
        },
        { dueAgain: true },
      )
      return { fake, endpoint: new URL(silent.url('/silent')).origin }
    } finally {
      await silent.close()
    }
  }

  test('an endpoint silent for 400 ms with more due than it may hold has its due backlog parked, at most once a second; one that answers is not', async () => {
    const { fake, endpoint } = await besideSilentEndpoint(1, async (clock, fake) => {
      assert.deepEqual(fake.parked, [], 'not parked while it has been silent less than 400 ms')
      clock.advance(400)
    })
    assert.deepEqual(
      fake.parked.map((entry) => entry.endpoint),
      [endpoint],
      'only the silent endpoint, and once within the second',
    )
    assert.deepEqual(
      fake.warnings.filter((line) => /not answering/.test(line.msg)).map((line) => line.endpoint),
      [endpoint],
      'the person on call hears of it',
    )
    const before = fake.deferred.slice(0, fake.parked[0]!.deferredBefore)
    assert.ok(
      fake.parked[0]!.fromUs > Math.max(...before.map((entry) => entry.untilUs)),
      'its backlog is due after the events it gave back one by one',
    )
  })

  test('a silent endpoint is logged once, with when it last answered, however often its backlog is parked', async () => {
    const { fake, endpoint } = await besideSilentEndpoint(2, async (clock, fake) => {
      clock.advance(400)
      await receiver.waitFor(() => fake.parked.length >= 1, 5_000, 'the first park')
      clock.advance(1_000)
    })
    const warnings = fake.warnings.filter((line) => /not answering/.test(line.msg))
    assert.deepEqual(
      warnings.map((line) => [line.endpoint, line.lastAnswerMsAgo]),
      [[endpoint, null]],
      'one line for two parks, saying it never answered',
    )
  })

  test('a fast endpoint’s given-back events come back at its pace, one request’s time shared by its slots, not one a millisecond', async () => {
    // Beside another endpoint of its merchant that holds its requests 3 s: the merchant's share
    // is split between the two, so the fast one has room for fewer than its merchant claims.
    const slow = await startReceiver()
    try {
      slow.script('/slow', [], { status: 200, delayMs: 3_000 })
      receiver.script('/fast', [], { status: 200 })
      const now = Date.now() * 1000
      const events = [
        ...Array.from({ length: 8 }, (_, i) => ({
          ...event(`s${i + 1}`, '/slow', now),
          callbackUrl: slow.url('/slow'),
        })),
        ...Array.from({ length: 400 }, (_, i) => event(`q${i + 11}`, '/fast', now)),
      ]
      const fast = (fake: FakeOutbox) => fake.recorded.filter((entry) => entry.id.startsWith('q'))
      const { fake } = await runPool(events, 64, (outbox) => fast(outbox).length === 400, undefined, {
        dueAgain: true,
      })
      // The clock stands still here: each event given back is due one step after the one before.
      const givenBack = fake.deferred.filter((deferral) => deferral.id.startsWith('q'))
      const steps = givenBack
        .slice(1)
        .map((deferral, i) => deferral.untilUs - givenBack[i]!.untilUs)
        .filter((step) => step > 0)
      assert.ok(steps.length > 0, 'events were given back')
      assert.ok(Math.min(...steps) < 1_000, `steps of ${Math.min(...steps)} µs at the least`)
      assert.ok(Math.min(...steps) >= 100, 'never closer than 100 µs')
    } finally {
      await slow.close()
    }
  })

  test('each answer earns an endpoint one more slot, up to its share; a failure takes it back to one', async () => {
    const answerMs = 60
    receiver.script('/earns', [], { status: 200, delayMs: answerMs })
    const now = Date.now() * 1000
    const events = Array.from({ length: 12 }, (_, i) => event(`e${i + 1}`, '/earns', now))
    // A pool of 16: the merchant's share is 8, its endpoint's 4.
    const { fake } = await runPool(events, 16, (outbox) => outbox.recorded.length === 12, undefined, {
      firstSlots: 1,
      dueAgain: true,
    })
    assert.equal(fake.recorded.length, 12)
    const arrivals = receiver.requestsTo('/earns').map((request) => request.receivedAtMs)
    const inFlightAt = (t: number) => arrivals.filter((at) => at <= t && t < at + answerMs - 10).length
    const most = Math.max(...arrivals.map(inFlightAt))
    assert.ok(arrivals[1]! - arrivals[0]! >= answerMs - 10, 'the second went once the first was answered')
    assert.equal(most, 4, 'four in flight at once by the end, never more')

    // Three 503s in a row (each a failure) keep the endpoint at one slot: they go one by one.
    receiver.script('/fails', [{ status: 503, delayMs: answerMs }], { status: 503, delayMs: answerMs })
    const failing = ['f1', 'f2', 'f3'].map((id) => event(id, '/fails', now))
    await runPool(failing, 16, (outbox) => outbox.recorded.length === 3, undefined, {
      firstSlots: 1,
      dueAgain: true,
    })
    const failed = receiver.requestsTo('/fails').map((request) => request.receivedAtMs)
    assert.equal(failed.length, 3)
    assert.ok(
      failed[2]! - failed[0]! >= 2 * answerMs - 20,
      'each waited for the one before: a failure earns nothing',
    )
  })
})
