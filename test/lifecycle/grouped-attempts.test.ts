import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { leaseMs } from '../../src/events/dispatcher.ts'
import type { AttemptRecord, ClaimedEvent } from '../../src/store/repositories/outbox.ts'
import { manualClock, startApp, type TestApp } from '../support/app.ts'
import { initiate, merchantWithClient } from '../support/operations.ts'
import { describeEachStore } from '../support/stores.ts'

// A drain's deliveries end many at a time: their attempts are recorded together, in one
// transaction, each with the claim of its operation's next event (src/app/workers.ts). These
// tests hold the store to what one attempt recorded alone always did.
const minuteUs = 60_000_000

function attempt(outcome: 'delivered' | 'retry' | 'given_up', nowUs: number): AttemptRecord {
  return {
    number: 1,
    startedAtUs: nowUs,
    durationMs: 3,
    statusCode: outcome === 'delivered' ? 200 : 500,
    error: null,
    outcome,
    deliveryStatus: outcome === 'retry' ? 'pending' : outcome,
    nextAttemptAtUs: outcome === 'retry' ? nowUs + minuteUs : null,
    deliveredAtUs: outcome === 'delivered' ? nowUs : null,
  }
}

describeEachStore('attempts recorded together, and events given back together', (store) => {
  let app: TestApp
  let clock: ReturnType<typeof manualClock>

  before(async () => {
    clock = manualClock(Date.now() * 1000)
    app = await startApp(store(), { clock, workers: 'manual' })
  })
  after(() => app.close())

  /** Collects that succeed at once: each has two events, pending then succeeded. */
  async function operationsWithEvents(count: number): Promise<ClaimedEvent[]> {
    const { client } = await merchantWithClient(app)
    for (let i = 0; i < count; i++) {
      await initiate(client, 'collect', {
        amount: 1000,
        channel: 'orange-money',
        country: 'CI',
        customer: { phoneNumber: '+2250700000123' },
        merchantReference: `grouped-${i}`,
        callbackUrl: 'https://merchant.example/callbacks',
      })
    }
    const claimed = await app.context.store.outbox.claimDue('a', clock.nowUs(), leaseMs, 100)
    return claimed.sort((x, y) => x.position - y.position)
  }

  async function eventRow(id: string) {
    return app.db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
  }

  test('each attempt takes effect as if recorded alone; the done ones hand over their next event', async () => {
    const [delivered1, delivered2, retried, givenUp, lostLease] = await operationsWithEvents(5)
    assert.ok(delivered1 && delivered2 && retried && givenUp && lostLease, 'one first event per operation')
    const now = clock.nowUs()

    const next = await app.context.store.transaction((tx) =>
      tx.outbox.recordAttempts(
        [
          { event: delivered1, owner: 'a', attempt: attempt('delivered', now) },
          { event: delivered2, owner: 'a', attempt: attempt('delivered', now) },
          { event: retried, owner: 'a', attempt: attempt('retry', now) },
          { event: givenUp, owner: 'a', attempt: attempt('given_up', now) },
          // Another instance's claim since: its attempt is kept, the event's state is not touched.
          { event: lostLease, owner: 'b', attempt: attempt('delivered', now) },
        ],
        now,
        leaseMs,
      ),
    )

    assert.deepEqual(
      next.map((event) => event.operationId).sort(),
      [delivered1.operationId, delivered2.operationId, givenUp.operationId].sort(),
      'the next event of each operation whose event is done, and only of those',
    )
    for (const event of next) {
      const row = await eventRow(event.id)
      assert.equal(row.lease_owner, 'a', 'claimed for the owner of the event before it')
      assert.equal(row.delivery_status, 'pending')
    }
    assert.equal((await eventRow(delivered1.id)).delivery_status, 'delivered')
    assert.equal((await eventRow(delivered1.id)).delivered_at_us, now)
    assert.equal((await eventRow(givenUp.id)).delivery_status, 'given_up')
    const retriedRow = await eventRow(retried.id)
    assert.equal(retriedRow.delivery_status, 'pending')
    assert.equal(retriedRow.next_attempt_at_us, now + minuteUs)
    assert.equal(retriedRow.lease_owner, null)
    const heldBack = await app.db
      .selectFrom('events')
      .selectAll()
      .where('operation_id', '=', retried.operationId)
      .where('position', '>', retried.position)
      .execute()
    assert.equal(heldBack.length, 1)
    assert.ok(heldBack[0]!.next_attempt_at_us! >= now + minuteUs, 'its later event waits for the retry')
    const lost = await eventRow(lostLease.id)
    assert.equal(lost.lease_owner, 'a')
    assert.equal(lost.attempts, 0)
    assert.equal(lost.delivery_status, 'pending')

    const attempts = await app.db
      .selectFrom('event_attempts')
      .select(['event_id', 'outcome'])
      .where(
        'event_id',
        'in',
        [delivered1, delivered2, retried, givenUp, lostLease].map((event) => event.id),
      )
      .execute()
    assert.equal(attempts.length, 5, 'every attempt made is on record')
  })

  test('an owner with no room for the next event leaves it due and unclaimed, for a later claim', async () => {
    const [first] = await operationsWithEvents(1)
    assert.ok(first)
    const now = clock.nowUs()
    const next = await app.context.store.transaction((tx) =>
      tx.outbox.recordAttempts(
        [{ event: first, owner: 'a', attempt: attempt('delivered', now), claimNext: false }],
        now,
        leaseMs,
      ),
    )
    assert.deepEqual(next, [], 'nothing claimed with the record')
    const later = await app.db
      .selectFrom('events')
      .selectAll()
      .where('operation_id', '=', first.operationId)
      .where('position', '>', first.position)
      .executeTakeFirstOrThrow()
    assert.equal(later.lease_owner, null)
    assert.equal(later.delivery_status, 'pending')
    assert.ok(later.next_attempt_at_us! <= now, 'due now')
    const claimedLater = await app.context.store.outbox.claimDue('a', now, leaseMs, 100)
    assert.deepEqual(
      claimedLater.map((event) => event.id),
      [later.id],
      'the next claim takes it',
    )
  })

  test('events given back together are each due again at their own time, and unleased', async () => {
    const claimed = await operationsWithEvents(3)
    const now = clock.nowUs()
    const [first, second, third] = claimed
    assert.ok(first && second && third)

    await app.context.store.transaction((tx) =>
      tx.outbox.defer(
        [
          { event: first, untilUs: now + minuteUs },
          { event: second, untilUs: now + 2 * minuteUs },
        ],
        'a',
      ),
    )
    await app.context.store.transaction((tx) => tx.outbox.defer([{ event: third, untilUs: now }], 'b'))

    const firstRow = await eventRow(first.id)
    assert.equal(firstRow.next_attempt_at_us, now + minuteUs)
    assert.equal(firstRow.lease_owner, null)
    assert.equal(firstRow.attempts, 0)
    assert.equal((await eventRow(second.id)).next_attempt_at_us, now + 2 * minuteUs)
    assert.equal((await eventRow(third.id)).lease_owner, 'a', 'only the holder of a claim gives it back')
    const later = await app.db
      .selectFrom('events')
      .select(['operation_id', 'next_attempt_at_us'])
      .where('operation_id', 'in', [first.operationId, second.operationId])
      .where('position', '>', Math.min(first.position, second.position))
      .where('id', 'not in', [first.id, second.id])
      .execute()
    const heldUntil = new Map(later.map((row) => [row.operation_id, row.next_attempt_at_us]))
    assert.ok(heldUntil.get(first.operationId)! >= now + minuteUs)
    assert.ok(heldUntil.get(second.operationId)! >= now + 2 * minuteUs)
  })
})
