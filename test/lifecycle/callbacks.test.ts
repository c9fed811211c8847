import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { type ApiClient, manualClock, startApp, type TestApp } from '../support/app.ts'
import { details, initiate, merchantWithClient } from '../support/operations.ts'
import { type Receiver, startReceiver } from '../support/receiver.ts'
import { sandboxPhone, transferBody } from '../support/sandbox-requests.ts'
import { describeEachStore } from '../support/stores.ts'
import { verifyWebhook } from '../support/webhooks.ts'

// CONTRACT.md, Callbacks: one event per status, POSTed to the callbackUrl, signed by Standard
// Webhooks, retried on the schedule, stopped by a 410, never following a redirect.
const delayMs = 5_000
const ttlMs = 15 * 60_000
const minute = 60_000
const hour = 60 * minute
const retryScheduleMs = [
  minute,
  5 * minute,
  30 * minute,
  2 * hour,
  6 * hour,
  12 * hour,
  24 * hour,
  48 * hour,
  72 * hour,
]
const jitter = 0.1

let sequence = 0
const nextId = () => sequence++

function singleBody(ending: string, callbackUrl: string) {
  return {
    amount: 10_000,
    channel: 'orange-money',
    country: 'CI',
    customer: { phoneNumber: sandboxPhone(ending), fullName: 'Awa Kone', email: 'awa@sika.test' },
    merchantReference: `callback-${nextId()}`,
    callbackUrl,
  }
}

const timestampPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/

describeEachStore('callbacks: events, signatures, retries', (store) => {
  let app: TestApp
  let clock: ReturnType<typeof manualClock>
  let receiver: Receiver

  before(async () => {
    receiver = await startReceiver()
    clock = manualClock(Date.now() * 1000)
    app = await startApp(store(), {
      clock,
      workers: 'manual',
      environment: { SANDBOX_DELAY_MS: String(delayMs), OPERATION_TTL: String(ttlMs) },
    })
  })
  after(async () => {
    await app.close()
    await receiver.close()
  })

  async function eventWithAttempts(client: ApiClient, id: string) {
    const response = await client.get(`/api/v1/events/${id}`)
    assert.equal(response.status, 200, response.text)
    return response.body.data.event
  }

  async function eventsOf(client: ApiClient, token: string) {
    const response = await client.get('/api/v1/events', { token, perPage: 100 })
    assert.equal(response.status, 200, response.text)
    return response.body.data.events as any[]
  }

  const requestsWithId = (id: string) =>
    receiver.requests.filter((request) => request.headers['webhook-id'] === id)

  /** A 905 operation: its only event for the next 15 minutes is `collect.pending`. */
  async function pendingEventTo(path: string) {
    const { merchant, client } = await merchantWithClient(app)
    const record = await initiate(client, 'collect', singleBody('905', receiver.url(path)))
    const [event] = await eventsOf(client, record.token)
    assert.equal(event.type, 'collect.pending')
    return { merchant, client, record, eventId: event.id as string }
  }

  // How far the clock moves per round for the operation to take its next status.
  const pastTheDelay = delayMs + 100
  const pastTheTtl = ttlMs + 1_000

  const lifecycles = [
    {
      kind: 'collect',
      build: (url: string) => singleBody('900', url),
      final: 'succeeded',
      wait: pastTheDelay,
    },
    {
      kind: 'disbursement',
      build: (url: string) => singleBody('902', url),
      final: 'failed',
      wait: pastTheDelay,
    },
    {
      kind: 'withdraw',
      build: (url: string) => singleBody('903', url),
      final: 'canceled',
      wait: pastTheDelay,
    },
    {
      kind: 'recharge',
      build: (url: string) => singleBody('900', url),
      final: 'succeeded',
      wait: pastTheDelay,
    },
    {
      kind: 'collect',
      build: (url: string) => singleBody('905', url),
      final: 'canceled',
      wait: pastTheTtl,
    },
    {
      kind: 'transfer',
      build: (url: string) => transferBody('900', '900', url),
      final: 'succeeded',
      // from settles after one delay, then to (started only then) after another.
      wait: pastTheDelay,
      rounds: 2,
    },
  ]

  for (const lifecycle of lifecycles) {
    test(`${lifecycle.kind} ending ${lifecycle.final}: one event per status, each carrying the record as GET details returns it then`, async () => {
      const { merchant, client } = await merchantWithClient(app)
      const path = `/lifecycle/${nextId()}`
      const record = await initiate(client, lifecycle.kind, lifecycle.build(receiver.url(path)))
      assert.equal(record.status, 'pending')

      await app.workers.runDue()
      const [pendingRequest, ...early] = receiver.requestsTo(path)
      assert.ok(pendingRequest, 'the pending event is POSTed at creation')
      assert.equal(early.length, 0)
      const pendingBody = JSON.parse(pendingRequest.body)
      assert.equal(pendingRequest.method, 'POST')
      assert.match(String(pendingRequest.headers['content-type']), /^application\/json/)
      assert.deepEqual(Object.keys(pendingBody).sort(), ['createdAt', 'data', 'id', 'mode', 'type'])
      assert.equal(pendingBody.mode, 'sandbox')
      assert.match(pendingBody.id, /^evt_/)
      assert.equal(pendingBody.type, `${lifecycle.kind}.pending`)
      assert.match(pendingBody.createdAt, timestampPattern)
      assert.deepEqual(Object.keys(pendingBody.data), [lifecycle.kind])
      assert.deepEqual(pendingBody.data[lifecycle.kind], await details(client, lifecycle.kind, record.token))

      for (let round = 0; round < (lifecycle.rounds ?? 1); round++) {
        clock.advance(lifecycle.wait)
        await app.workers.runDue()
      }
      const final = await details(client, lifecycle.kind, record.token)
      assert.equal(final.status, lifecycle.final)
      const requests = receiver.requestsTo(path)
      assert.equal(requests.length, 2, 'pending, then the final status: nothing else')
      const finalBody = JSON.parse(requests[1]!.body)
      assert.equal(finalBody.type, `${lifecycle.kind}.${lifecycle.final}`)
      assert.deepEqual(finalBody.data[lifecycle.kind], final)
      assert.notEqual(finalBody.id, pendingBody.id)
      for (const request of requests) {
        assert.equal(request.headers['webhook-id'], JSON.parse(request.body).id)
        verifyWebhook(merchant.webhookSecret, request)
      }

      const events = await eventsOf(client, record.token)
      assert.deepEqual(
        events.map((event) => [event.type, event.deliveryStatus, event.attempts]),
        [
          [`${lifecycle.kind}.${lifecycle.final}`, 'delivered', 1],
          [`${lifecycle.kind}.pending`, 'delivered', 1],
        ],
        'newest first, each delivered at its first attempt',
      )
      const rows = await app.db
        .selectFrom('events')
        .innerJoin('operations', 'operations.id', 'events.operation_id')
        .select('events.type')
        .where('operations.token', '=', record.token)
        .execute()
      assert.equal(rows.length, 2, 'exactly one event row per status taken')

      clock.advance(4 * hour)
      await app.workers.runDue()
      assert.equal(receiver.requestsTo(path).length, 2, 'a delivered event is not sent again')
    })
  }

  test('an operation final at once still has its pending event first, with the record as it was then', async () => {
    const { client } = await merchantWithClient(app)
    const path = `/at-once/${nextId()}`
    const record = await initiate(client, 'collect', singleBody('001', receiver.url(path)))
    assert.equal(record.status, 'succeeded')
    await app.workers.runDue()
    const bodies = receiver.bodiesTo(path)
    assert.deepEqual(bodies.map((body) => body.type).sort(), ['collect.pending', 'collect.succeeded'])
    const final = await details(client, 'collect', record.token)
    const pending = bodies.find((body) => body.type === 'collect.pending')
    const succeeded = bodies.find((body) => body.type === 'collect.succeeded')
    assert.deepEqual(succeeded.data.collect, final)
    const { completionDate: _completed, ...beforeCompletion } = final
    assert.deepEqual(pending.data.collect, { ...beforeCompletion, status: 'pending' })
    assert.ok(pending.createdAt <= succeeded.createdAt)
  })

  test('the callback goes to the callbackUrl as written: its path and query byte for byte, its host, no fragment', async () => {
    const { client } = await merchantWithClient(app)
    const id = nextId()
    const sent = `/as%20sent/${id}?order=7&next=a%2Fb&empty=`
    const record = await initiate(client, 'collect', singleBody('905', `${receiver.origin}${sent}#fragment`))
    await app.workers.runDue()
    const [request] = receiver.requests.filter((each) => each.path.startsWith(`/as%20sent/${id}?`))
    assert.ok(request, 'the callback arrived')
    assert.equal(request.method, 'POST')
    assert.equal(request.path, sent)
    assert.equal(request.headers.host, new URL(receiver.origin).host)
    assert.equal(request.headers['content-type'], 'application/json')
    assert.equal(JSON.parse(request.body).data.collect.token, record.token)
  })

  test('signatures verify with standardwebhooks under the merchant secret only, and only over the exact body', async () => {
    const { merchant, client } = await merchantWithClient(app)
    const { merchant: stranger } = await merchantWithClient(app)
    const path = `/signed/${nextId()}`
    const record = await initiate(client, 'collect', singleBody('905', receiver.url(path)))
    await app.workers.runDue()
    const [request] = receiver.requestsTo(path)
    assert.ok(request)
    const timestamp = Number(request.headers['webhook-timestamp'])
    assert.ok(
      Math.abs(timestamp - Date.now() / 1000) < 60,
      'webhook-timestamp is the wall-clock time of sending',
    )
    assert.match(String(request.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/)

    const payload = verifyWebhook(merchant.webhookSecret, request) as any
    assert.equal(payload.data.collect.token, record.token)
    assert.throws(
      () => verifyWebhook(stranger.webhookSecret, request),
      'another merchant secret does not verify',
    )
    const tampered = { ...request, body: request.body.replace('"status":"pending"', '"status":"succeeded"') }
    assert.notEqual(tampered.body, request.body)
    assert.throws(() => verifyWebhook(merchant.webhookSecret, tampered), 'a changed body does not verify')
    const replayed = {
      ...request,
      headers: { ...request.headers, 'webhook-timestamp': String(timestamp - 3_600) },
    }
    assert.throws(() => verifyWebhook(merchant.webhookSecret, replayed), 'the timestamp is signed too')
  })

  test('a 500 answer is retried after about a minute (±10 %), and the attempts are listed', async () => {
    const path = `/flaky/${nextId()}`
    receiver.script(path, [500], 200)
    const { client, eventId } = await pendingEventTo(path)
    await app.workers.runDue()
    assert.equal(requestsWithId(eventId).length, 1)
    const afterFirst = await eventWithAttempts(client, eventId)
    assert.equal(afterFirst.deliveryStatus, 'pending')
    assert.equal(afterFirst.attempts, 1)
    assert.deepEqual(
      afterFirst.deliveryAttempts.map((attempt: any) => [
        attempt.number,
        attempt.statusCode,
        attempt.outcome,
      ]),
      [[1, 500, 'retry']],
    )
    assert.equal(typeof afterFirst.nextAttemptAt, 'string')

    clock.advance(minute * (1 - jitter) - 1_000)
    await app.workers.runDue()
    assert.equal(requestsWithId(eventId).length, 1, 'not retried before 54 s')

    clock.advance(minute * 2 * jitter + 2_000)
    await app.workers.runDue()
    const requests = requestsWithId(eventId)
    assert.equal(requests.length, 2, 'retried by 66 s')
    assert.equal(requests[1]!.body, requests[0]!.body, 'the same event, byte for byte')
    const delivered = await eventWithAttempts(client, eventId)
    assert.equal(delivered.deliveryStatus, 'delivered')
    assert.equal(typeof delivered.deliveredAt, 'string')
    assert.equal(delivered.nextAttemptAt, null)
    assert.deepEqual(
      delivered.deliveryAttempts.map((attempt: any) => [attempt.number, attempt.statusCode, attempt.outcome]),
      [
        [1, 500, 'retry'],
        [2, 200, 'delivered'],
      ],
    )
  })

  test('a 410 answer stops the deliveries of that event', async () => {
    const path = `/gone/${nextId()}`
    receiver.script(path, [], 410)
    const { client, eventId } = await pendingEventTo(path)
    await app.workers.runDue()
    const stopped = await eventWithAttempts(client, eventId)
    assert.equal(stopped.deliveryStatus, 'stopped')
    assert.deepEqual(
      stopped.deliveryAttempts.map((attempt: any) => [attempt.statusCode, attempt.outcome]),
      [[410, 'stopped']],
    )
    for (const step of [minute * 2, hour, 10 * hour, 100 * hour]) {
      clock.advance(step)
      await app.workers.runDue()
    }
    assert.equal(requestsWithId(eventId).length, 1, 'never sent again')
    receiver.script(path, [], 200)
  })

  // A 2xx delivers, a 410 stops, anything else (or no answer at all) is retried.
  const answers: { answer: number | 'no listener'; outcome: string; deliveryStatus: string }[] = [
    { answer: 200, outcome: 'delivered', deliveryStatus: 'delivered' },
    { answer: 201, outcome: 'delivered', deliveryStatus: 'delivered' },
    { answer: 202, outcome: 'delivered', deliveryStatus: 'delivered' },
    { answer: 204, outcome: 'delivered', deliveryStatus: 'delivered' },
    { answer: 410, outcome: 'stopped', deliveryStatus: 'stopped' },
    { answer: 301, outcome: 'retry', deliveryStatus: 'pending' },
    { answer: 307, outcome: 'retry', deliveryStatus: 'pending' },
    { answer: 400, outcome: 'retry', deliveryStatus: 'pending' },
    { answer: 401, outcome: 'retry', deliveryStatus: 'pending' },
    { answer: 404, outcome: 'retry', deliveryStatus: 'pending' },
    { answer: 409, outcome: 'retry', deliveryStatus: 'pending' },
    { answer: 429, outcome: 'retry', deliveryStatus: 'pending' },
    { answer: 500, outcome: 'retry', deliveryStatus: 'pending' },
    { answer: 502, outcome: 'retry', deliveryStatus: 'pending' },
    { answer: 'no listener', outcome: 'retry', deliveryStatus: 'pending' },
  ]
  for (const row of answers) {
    test(`a first attempt answered ${row.answer}: ${row.outcome}`, async () => {
      const path = `/answers/${nextId()}`
      const url = row.answer === 'no listener' ? 'http://127.0.0.1:9/nothing-listens' : receiver.url(path)
      if (typeof row.answer === 'number') {
        const location = receiver.url(`${path}/moved`)
        receiver.script(path, [{ status: row.answer, headers: { location } }], 200)
      }
      const { client } = await merchantWithClient(app)
      const record = await initiate(client, 'collect', singleBody('905', url))
      await app.workers.runDue()
      const [listed] = await eventsOf(client, record.token)
      const event = await eventWithAttempts(client, listed.id)
      assert.equal(event.deliveryStatus, row.deliveryStatus)
      assert.deepEqual(
        event.deliveryAttempts.map((attempt: any) => [attempt.statusCode, attempt.outcome]),
        [[typeof row.answer === 'number' ? row.answer : null, row.outcome]],
      )
      assert.equal(receiver.requestsTo(`${path}/moved`).length, 0, 'no redirect is followed')
      assert.equal(event.nextAttemptAt === null, row.deliveryStatus !== 'pending')
      receiver.script(path, [], 200)
    })
  }

  test('an event leased by an instance that died is delivered once the lease has run out', async () => {
    const { client } = await merchantWithClient(app)
    const record = await initiate(client, 'collect', singleBody('905', receiver.url(`/orphan/${nextId()}`)))
    const [event] = await eventsOf(client, record.token)
    // As if another instance had claimed it and crashed mid-send.
    await app.db
      .updateTable('events')
      .set({ lease_owner: 'a-dead-instance', lease_until_us: clock.nowUs() + 30_000_000 })
      .where('id', '=', event.id)
      .execute()
    await app.workers.runDue()
    assert.equal(requestsWithId(event.id).length, 0, 'not while the lease holds')
    clock.advance(31_000)
    await app.workers.runDue()
    assert.equal(requestsWithId(event.id).length, 1, 'taken over after the lease')
    assert.equal((await eventWithAttempts(client, event.id)).deliveryStatus, 'delivered')
  })

  test('a 302 is not followed: it is one failed attempt, retried later', async () => {
    const path = `/moved/${nextId()}`
    receiver.script(path, [], { status: 302, headers: { location: receiver.url(path) } })
    const { client, eventId } = await pendingEventTo(path)
    await app.workers.runDue()
    assert.equal(receiver.requestsTo(path).length, 1, 'the redirect target was not requested')
    const event = await eventWithAttempts(client, eventId)
    assert.equal(event.deliveryStatus, 'pending')
    assert.deepEqual(
      event.deliveryAttempts.map((attempt: any) => [attempt.statusCode, attempt.outcome]),
      [[302, 'retry']],
    )
    receiver.script(path, [], 200)
  })

  test('a receiver that takes longer than 10 s fails the attempt', async () => {
    const path = `/slow/${nextId()}`
    receiver.script(path, [{ status: 200, delayMs: 12_000 }], 200)
    const { client, eventId } = await pendingEventTo(path)
    const started = Date.now()
    await app.workers.runDue()
    const elapsed = Date.now() - started
    assert.ok(elapsed >= 9_500 && elapsed < 11_900, `the attempt was cut after about 10 s, not ${elapsed} ms`)
    const event = await eventWithAttempts(client, eventId)
    assert.equal(event.deliveryStatus, 'pending')
    assert.deepEqual(
      event.deliveryAttempts.map((attempt: any) => [attempt.statusCode, attempt.outcome]),
      [[null, 'retry']],
    )
    assert.equal(event.deliveryAttempts[0].error, 'TimeoutError: no answer within 10 s')
    clock.advance(minute * (1 + jitter) + 1_000)
    await app.workers.runDue()
    assert.equal((await eventWithAttempts(client, eventId)).deliveryStatus, 'delivered')
  })

  test('after the whole schedule the event is given up after 10 attempts; redeliver sends it again', async () => {
    const path = `/down/${nextId()}`
    receiver.script(path, [], 503)
    const { client, eventId } = await pendingEventTo(path)
    await app.workers.runDue()
    assert.equal(requestsWithId(eventId).length, 1)
    for (const [index, delay] of retryScheduleMs.entries()) {
      clock.advance(delay * (1 - jitter) - 1_000)
      await app.workers.runDue()
      assert.equal(
        requestsWithId(eventId).length,
        index + 1,
        `retry ${index + 1} not before ${delay * 0.9} ms`,
      )
      clock.advance(delay * 2 * jitter + 2_000)
      await app.workers.runDue()
      assert.equal(requestsWithId(eventId).length, index + 2, `retry ${index + 1} by ${delay * 1.1} ms`)
    }
    const givenUp = await eventWithAttempts(client, eventId)
    assert.equal(givenUp.deliveryStatus, 'given_up')
    assert.equal(givenUp.attempts, 10)
    assert.equal(givenUp.nextAttemptAt, null)
    assert.deepEqual(
      givenUp.deliveryAttempts.map((attempt: any) => attempt.outcome),
      [...Array(9).fill('retry'), 'given_up'],
    )
    assert.deepEqual(
      givenUp.deliveryAttempts.map((attempt: any) => attempt.number),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    )
    clock.advance(200 * hour)
    await app.workers.runDue()
    assert.equal(requestsWithId(eventId).length, 10, 'nothing after giving up')

    receiver.script(path, [], 204)
    const redeliver = await client.post(`/api/v1/events/${eventId}/redeliver`)
    assert.equal(redeliver.status, 200, redeliver.text)
    assert.equal(redeliver.body.data.event.id, eventId)
    assert.equal(redeliver.body.data.event.deliveryStatus, 'pending')
    await app.workers.runDue()
    const redelivered = requestsWithId(eventId)
    assert.equal(redelivered.length, 11)
    assert.equal(redelivered[10]!.body, redelivered[0]!.body)
    const delivered = await eventWithAttempts(client, eventId)
    assert.equal(delivered.deliveryStatus, 'delivered')
    assert.deepEqual(delivered.deliveryAttempts.at(-1).statusCode, 204)
    assert.deepEqual(delivered.deliveryAttempts.at(-1).outcome, 'delivered')
  })

  test('redeliver sends a delivered event once more', async () => {
    const path = `/again/${nextId()}`
    const { client, eventId } = await pendingEventTo(path)
    await app.workers.runDue()
    assert.equal(requestsWithId(eventId).length, 1)
    const redeliver = await client.post(`/api/v1/events/${eventId}/redeliver`)
    assert.equal(redeliver.status, 200, redeliver.text)
    await app.workers.runDue()
    assert.equal(requestsWithId(eventId).length, 2)
    await app.workers.runDue()
    assert.equal(requestsWithId(eventId).length, 2, 'once')
  })

  test('events of another merchant or of the other mode are 404, as unknown ones', async () => {
    const path = `/private/${nextId()}`
    const { merchant: owner, client, eventId } = await pendingEventTo(path)
    const { client: stranger } = await merchantWithClient(app)
    const ownerLive = app.client(owner.live)
    assert.equal((await client.get(`/api/v1/events/${eventId}`)).status, 200)
    for (const [who, caller] of [
      ['another merchant', stranger],
      ['the live mode', ownerLive],
    ] as const) {
      const read = await caller.get(`/api/v1/events/${eventId}`)
      assert.equal(read.status, 404, `${who}: GET`)
      assert.equal(read.body.code, 'not_found')
      const redeliver = await caller.post(`/api/v1/events/${eventId}/redeliver`)
      assert.equal(redeliver.status, 404, `${who}: redeliver`)
      const list = await caller.get('/api/v1/events', { perPage: 100 })
      assert.equal(list.status, 200)
      assert.ok(!(list.body.data.events as any[]).some((event) => event.id === eventId), `${who}: list`)
    }
    const unknown = await client.get('/api/v1/events/evt_doesNotExist000000000000')
    assert.equal(unknown.status, 404)
    assert.equal(unknown.body.code, 'not_found')
  })

  test('the opening-balance recharges, made without a callbackUrl, have events marked no_callback', async () => {
    const { client } = await merchantWithClient(app)
    await app.workers.runDue()
    const list = await client.get('/api/v1/events', { perPage: 100 })
    assert.equal(list.status, 200, list.text)
    const events = list.body.data.events as any[]
    assert.ok(events.length >= 10, 'pending and succeeded for each currency')
    for (const event of events) {
      assert.equal(event.operation, 'recharge')
      assert.match(event.data.recharge.merchantReference, /^opening-balance-[A-Z]{3}$/)
      assert.equal(event.deliveryStatus, 'no_callback')
      assert.equal(event.callbackUrl, null)
      assert.equal(event.attempts, 0)
    }
    const references = new Set(events.map((event) => event.data.recharge.merchantReference))
    assert.equal(events.length, references.size * 2)
    assert.deepEqual(
      events.filter((event) => event.type === 'recharge.succeeded').length,
      references.size,
      'each opening balance succeeded, with its event',
    )
    for (const event of events) assert.equal(requestsWithId(event.id).length, 0, 'nothing is sent for them')
    const redeliver = await client.post(`/api/v1/events/${events[0].id}/redeliver`)
    assert.equal(redeliver.status, 422, redeliver.text)
  })

  test('an event written by one instance is delivered by another: the outbox survives a restart', async () => {
    const first = await startApp(store(), { clock, workers: 'manual' })
    const merchant = await first.createMerchant('Restarted merchant')
    const path = `/restart/${nextId()}`
    const record = await initiate(
      first.client(merchant.sandbox),
      'collect',
      singleBody('001', receiver.url(path)),
    )
    await first.close()
    assert.equal(receiver.requestsTo(path).length, 0)
    await app.workers.runDue()
    const bodies = receiver.bodiesTo(path)
    assert.deepEqual(bodies.map((body) => body.type).sort(), ['collect.pending', 'collect.succeeded'])
    assert.ok(bodies.every((body) => body.data.collect.token === record.token))
  })
})

describeEachStore('callbacks: the background workers deliver without being asked', (store) => {
  let app: TestApp
  let receiver: Receiver
  before(async () => {
    receiver = await startReceiver()
    app = await startApp(store(), { workers: 'background', environment: { SANDBOX_DELAY_MS: '300' } })
  })
  after(async () => {
    await app.close()
    await receiver.close()
  })

  test('a 900 collect reaches succeeded and both events arrive, in real time', async () => {
    const merchant = await app.createMerchant('Background merchant')
    const client = app.client(merchant.sandbox)
    const response = await client.post('/api/v1/collect', singleBody('900', receiver.url('/background')))
    assert.equal(response.status, 200, response.text)
    const token = response.body.data.collect.token
    const bodies = await receiver.waitFor(
      () => {
        const received = receiver.bodiesTo('/background')
        return received.length >= 2 ? received : undefined
      },
      10_000,
      'collect.pending and collect.succeeded',
    )
    assert.deepEqual(bodies.map((body) => body.type).sort(), ['collect.pending', 'collect.succeeded'])
    const details = await client.get(`/api/v1/collect/${token}`)
    assert.equal(details.body.data.collect.status, 'succeeded')
    assert.deepEqual(
      bodies.find((body) => body.type === 'collect.succeeded').data.collect,
      details.body.data.collect,
    )
    for (const request of receiver.requestsTo('/background')) verifyWebhook(merchant.webhookSecret, request)
  })
})
