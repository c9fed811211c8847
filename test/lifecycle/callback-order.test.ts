import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { type ApiClient, manualClock, startApp, type TestApp } from '../support/app.ts'
import { initiate, merchantWithClient } from '../support/operations.ts'
import { type Receiver, startReceiver } from '../support/receiver.ts'
import { sandboxPhone } from '../support/sandbox-requests.ts'
import { describeEachStore } from '../support/stores.ts'
import { verifyWebhook } from '../support/webhooks.ts'

// CONTRACT.md, Callbacks: one operation's events are delivered in the order it took its
// statuses: a later event is not attempted while an earlier one of the same operation is neither
// delivered nor given up. Other operations are never held back by it.
const delayMs = 5_000
const minute = 60_000
const hour = 60 * minute
// Past the sandbox delay: a 900 operation has succeeded.
const pastTheDelay = delayMs + 100
// Past a retry of about `delay` (the schedule's jitter is ±10 %).
const pastRetry = (delay: number) => delay * 1.1 + 1_000

let sequence = 0

/** A 900 collect: pending at creation, succeeded after the sandbox delay. */
function collectBody(callbackUrl: string) {
  return {
    amount: 10_000,
    channel: 'orange-money',
    country: 'CI',
    customer: { phoneNumber: sandboxPhone('900'), fullName: 'Awa Kone' },
    merchantReference: `order-${sequence++}`,
    callbackUrl,
  }
}

describeEachStore('callbacks: one operation at a time, in the order of its statuses', (store) => {
  let app: TestApp
  let clock: ReturnType<typeof manualClock>
  let receiver: Receiver

  before(async () => {
    receiver = await startReceiver()
    clock = manualClock(Date.now() * 1000)
    app = await startApp(store(), {
      clock,
      workers: 'manual',
      environment: { SANDBOX_DELAY_MS: String(delayMs) },
    })
  })
  after(async () => {
    await app.close()
    await receiver.close()
  })

  /** The operation's events, oldest first, with their delivery attempts. */
  async function eventsOf(client: ApiClient, token: string) {
    const list = await client.get('/api/v1/events', { token, perPage: 100 })
    assert.equal(list.status, 200, list.text)
    const events = []
    for (const listed of (list.body.data.events as any[]).reverse()) {
      const read = await client.get(`/api/v1/events/${listed.id}`)
      assert.equal(read.status, 200, read.text)
      events.push(read.body.data.event)
    }
    return events
  }

  const typesTo = (path: string) => receiver.bodiesTo(path).map((body) => body.type as string)

  /** Each event: its type, delivery status and the outcomes of its attempts. */
  const summary = (events: any[]) =>
    events.map((event) => [
      event.type,
      event.deliveryStatus,
      event.deliveryAttempts.map((attempt: any) => attempt.outcome),
    ])

  test('a collect.succeeded is not attempted until its collect.pending, refused with 500, is delivered; another operation goes on meanwhile', async () => {
    const { merchant, client } = await merchantWithClient(app)
    const pathA = `/order/a/${sequence++}`
    const pathB = `/order/b/${sequence++}`
    // A's receiver refuses the first two attempts (its pending event's), then accepts.
    receiver.script(pathA, [500, 500], 200)
    const a = await initiate(client, 'collect', collectBody(receiver.url(pathA)))
    const b = await initiate(client, 'collect', collectBody(receiver.url(pathB)))

    await app.workers.runDue()
    assert.deepEqual(typesTo(pathA), ['collect.pending'], 'A: pending refused once')
    assert.deepEqual(typesTo(pathB), ['collect.pending'])

    // Both succeed; A's pending waits for its retry in about a minute.
    clock.advance(pastTheDelay)
    await app.workers.runDue()
    assert.equal((await client.get(`/api/v1/collect/${a.token}`)).body.data.collect.status, 'succeeded')
    assert.deepEqual(typesTo(pathB), ['collect.pending', 'collect.succeeded'], 'B is not held back by A')
    assert.deepEqual(typesTo(pathA), ['collect.pending'], 'A: succeeded is not attempted before its pending')
    assert.deepEqual(summary(await eventsOf(client, a.token)), [
      ['collect.pending', 'pending', ['retry']],
      ['collect.succeeded', 'pending', []],
    ])

    // The retry of A's pending is refused again: its succeeded still waits, now about 5 minutes.
    clock.advance(pastRetry(minute))
    await app.workers.runDue()
    assert.deepEqual(typesTo(pathA), ['collect.pending', 'collect.pending'])
    const [waitingPending, waitingSucceeded] = await eventsOf(client, a.token)
    assert.equal(waitingSucceeded.attempts, 0)
    assert.equal(
      waitingSucceeded.nextAttemptAt,
      waitingPending.nextAttemptAt,
      'the succeeded event is shown due no earlier than its pending event',
    )
    // Another operation, created and finished while A waits, is delivered at once too.
    const pathC = `/order/c/${sequence++}`
    const c = await initiate(client, 'collect', collectBody(receiver.url(pathC)))
    await app.workers.runDue()
    clock.advance(pastTheDelay)
    await app.workers.runDue()
    assert.deepEqual(typesTo(pathC), ['collect.pending', 'collect.succeeded'])
    assert.deepEqual(typesTo(pathA), ['collect.pending', 'collect.pending'], 'A still waits for its pending')
    for (let round = 0; round < 3; round++) {
      clock.advance(minute)
      await app.workers.runDue()
    }
    assert.deepEqual(
      typesTo(pathA),
      ['collect.pending', 'collect.pending'],
      'nothing before the retry is due',
    )

    // The pending is delivered at its second retry, and its succeeded goes right after it.
    clock.advance(pastRetry(5 * minute))
    await app.workers.runDue()
    assert.deepEqual(typesTo(pathA), [
      'collect.pending',
      'collect.pending',
      'collect.pending',
      'collect.succeeded',
    ])
    const [firstA, , deliveredPending, succeeded] = receiver.requestsTo(pathA)
    assert.equal(deliveredPending!.body, firstA!.body, 'the same pending event, byte for byte')
    assert.ok(succeeded!.receivedAtMs >= deliveredPending!.receivedAtMs)
    for (const request of receiver.requestsTo(pathA)) verifyWebhook(merchant.webhookSecret, request)
    const eventsA = await eventsOf(client, a.token)
    assert.deepEqual(summary(eventsA), [
      ['collect.pending', 'delivered', ['retry', 'retry', 'delivered']],
      ['collect.succeeded', 'delivered', ['delivered']],
    ])
    assert.ok(
      eventsA[1].deliveryAttempts[0].startedAt >= eventsA[0].deliveredAt,
      'the succeeded event was first attempted after the pending one was delivered',
    )
    assert.deepEqual(
      summary(await eventsOf(client, b.token)).map(([type, status]) => [type, status]),
      [
        ['collect.pending', 'delivered'],
        ['collect.succeeded', 'delivered'],
      ],
    )
    assert.equal((await eventsOf(client, c.token)).length, 2)
  })

  test('a pending event given up, or stopped by a 410, lets the next event go', async () => {
    const { client } = await merchantWithClient(app)
    const stoppedPath = `/order/stopped/${sequence++}`
    receiver.script(stoppedPath, [410], 200)
    const stopped = await initiate(client, 'collect', collectBody(receiver.url(stoppedPath)))
    await app.workers.runDue()
    clock.advance(pastTheDelay)
    await app.workers.runDue()
    assert.deepEqual(typesTo(stoppedPath), ['collect.pending', 'collect.succeeded'])
    assert.deepEqual(summary(await eventsOf(client, stopped.token)), [
      ['collect.pending', 'stopped', ['stopped']],
      ['collect.succeeded', 'delivered', ['delivered']],
    ])

    const downPath = `/order/down/${sequence++}`
    receiver.script(downPath, Array(10).fill(503), 200)
    const down = await initiate(client, 'collect', collectBody(receiver.url(downPath)))
    await app.workers.runDue()
    clock.advance(pastTheDelay)
    await app.workers.runDue()
    for (const delay of [1, 5, 30, 120, 360, 720, 1_440, 2_880, 4_320]) {
      assert.deepEqual(new Set(typesTo(downPath)), new Set(['collect.pending']), 'succeeded waits')
      clock.advance(pastRetry(delay * minute))
      await app.workers.runDue()
    }
    const types = typesTo(downPath)
    assert.deepEqual(types, [...Array(10).fill('collect.pending'), 'collect.succeeded'])
    assert.deepEqual(summary(await eventsOf(client, down.token)), [
      ['collect.pending', 'given_up', [...Array(9).fill('retry'), 'given_up']],
      ['collect.succeeded', 'delivered', ['delivered']],
    ])
  })

  test('redelivering an old event deadlocks nothing: it goes at once, and the later one at its own retry', async () => {
    const { client } = await merchantWithClient(app)
    const path = `/order/redeliver/${sequence++}`
    // The pending event is delivered; the succeeded one is refused once.
    receiver.script(path, [200, 500], 200)
    const record = await initiate(client, 'collect', collectBody(receiver.url(path)))
    await app.workers.runDue()
    clock.advance(pastTheDelay)
    await app.workers.runDue()
    assert.deepEqual(typesTo(path), ['collect.pending', 'collect.succeeded'])
    const [pending, succeeded] = await eventsOf(client, record.token)
    assert.equal(succeeded.deliveryStatus, 'pending', 'the succeeded event waits for its retry')

    const redeliver = await client.post(`/api/v1/events/${pending.id}/redeliver`)
    assert.equal(redeliver.status, 200, redeliver.text)
    await app.workers.runDue()
    assert.deepEqual(typesTo(path), ['collect.pending', 'collect.succeeded', 'collect.pending'])

    clock.advance(pastRetry(minute))
    await app.workers.runDue()
    assert.deepEqual(typesTo(path), [
      'collect.pending',
      'collect.succeeded',
      'collect.pending',
      'collect.succeeded',
    ])
    assert.deepEqual(
      summary(await eventsOf(client, record.token)).map(([type, status]) => [type, status]),
      [
        ['collect.pending', 'delivered'],
        ['collect.succeeded', 'delivered'],
      ],
    )

    // Redelivering the earlier event of a finished operation sends it once, and nothing else.
    const again = await client.post(`/api/v1/events/${pending.id}/redeliver`)
    assert.equal(again.status, 200, again.text)
    const later = await client.post(`/api/v1/events/${succeeded.id}/redeliver`)
    assert.equal(later.status, 200, later.text)
    await app.workers.runDue()
    await app.workers.runDue()
    assert.deepEqual(typesTo(path).slice(4), ['collect.pending', 'collect.succeeded'], 'each once, in order')
    clock.advance(4 * hour)
    await app.workers.runDue()
    assert.equal(typesTo(path).length, 6)
  })
})
