import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { IssuedMerchant } from '../../src/app/merchants.ts'
import { leaseMs } from '../../src/events/dispatcher.ts'
import { startApp, type TestApp } from '../support/app.ts'
import { type Receiver, startReceiver } from '../support/receiver.ts'
import { sandboxPhone } from '../support/sandbox-requests.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * Callback delivery claims each merchant's due events in turn (`OutboxRepository.pendingMerchants`,
 * `claimDueOf`): a merchant with a long backlog fills no other merchant's part of a claim, and
 * the merchants come in turn from one claim to the next.
 */
describeEachStore('claiming due callbacks merchant by merchant', (target) => {
  let app: TestApp
  let busy: IssuedMerchant
  let quiet: IssuedMerchant
  let later: IssuedMerchant
  let sequence = 0

  before(async () => {
    app = await startApp(target())
    busy = await app.createMerchant('A long backlog')
    quiet = await app.createMerchant('Two callbacks')
    later = await app.createMerchant('Nothing due yet')
  })
  after(() => app.close())

  /** `count` collects that succeed at once: two events each (pending, succeeded), both due now. */
  async function collects(merchant: IssuedMerchant, count: number) {
    for (let i = 0; i < count; i++) {
      const response = await app.client(merchant.sandbox).post('/api/v1/collect', {
        amount: 1000,
        channel: 'orange-money',
        country: 'CI',
        customer: { phoneNumber: sandboxPhone('001') },
        merchantReference: `turn-${sequence++}`,
        callbackUrl: 'http://127.0.0.1:9/callbacks',
      })
      assert.equal(response.status, 200, response.text)
    }
  }

  test('a look at the merchants with events of the mode pending, in turn after the last one, then from the first again, each with whether one is due', async () => {
    await collects(busy, 60)
    await collects(quiet, 1)
    await collects(later, 1)
    // Due in an hour: pending, but not due.
    await app.db
      .updateTable('events')
      .set({ next_attempt_at_us: app.context.clock.nowUs() + 3_600_000_000 })
      .where('merchant_id', '=', later.id)
      .execute()
    const { outbox } = app.context.store
    const nowUs = app.context.clock.nowUs()
    const look = async (after: string, count: number) =>
      (await outbox.pendingMerchants('sandbox', nowUs, after, count)).map(
        ({ merchantId, due }) => `${merchantId}${due ? '' : ' (not due)'}`,
      )
    const ids = [busy.id, quiet.id, later.id].sort()
    const shown = ids.map((id) => (id === later.id ? `${id} (not due)` : id))
    assert.deepEqual(await look('', 16), shown)
    assert.deepEqual(await look(ids[0]!, 16), [shown[1], shown[2], shown[0]])
    assert.deepEqual(await look(ids[2]!, 16), shown)
    assert.deepEqual(await look(ids[0]!, 2), [shown[1], shown[2]], 'at most count, in turn')
    assert.deepEqual(await look(ids[2]!, 1), [shown[0]], 'from the first again')
    assert.deepEqual(await outbox.pendingMerchants('live', nowUs, '', 16), [], 'no live event is pending')
  })

  test('each merchant’s part of a claim is its oldest due events, at most its count, whatever the others’ backlog', async () => {
    const { outbox } = app.context.store
    const nowUs = app.context.clock.nowUs()
    const claimed = await outbox.claimDueOf('claimer', nowUs, leaseMs, 'sandbox', [
      { merchantId: busy.id, count: 3 },
      { merchantId: quiet.id, count: 8 },
    ])
    const of = (merchant: IssuedMerchant) => claimed.filter((event) => event.merchantId === merchant.id)
    assert.equal(of(busy).length, 3)
    // Its succeeded event waits for its pending one: one operation's events go in order.
    assert.deepEqual(
      of(quiet).map((event) => event.type),
      ['collect.pending'],
    )
    const oldest = await app.db
      .selectFrom('events')
      .select('id')
      .where('merchant_id', '=', busy.id)
      .where('type', '=', 'collect.pending')
      .orderBy('position')
      .limit(3)
      .execute()
    assert.deepEqual(
      of(busy)
        .map((event) => event.id)
        .sort(),
      oldest.map((row) => row.id).sort(),
    )
    assert.ok(claimed.every((event) => event.mode === 'sandbox'))
    const again = await outbox.claimDueOf('another', nowUs, leaseMs, 'sandbox', [
      { merchantId: quiet.id, count: 8 },
    ])
    assert.deepEqual(again, [], 'what one owner holds, no other claims')
  })

  test('claims made at once never take the same event', async () => {
    const { outbox } = app.context.store
    const nowUs = app.context.clock.nowUs()
    const claims = await Promise.all(
      ['one', 'two', 'three', 'four'].map((owner) =>
        outbox.claimDueOf(owner, nowUs, leaseMs, 'sandbox', [{ merchantId: busy.id, count: 20 }]),
      ),
    )
    const ids = claims.flat().map((event) => event.id)
    assert.equal(new Set(ids).size, ids.length)
    assert.equal(ids.length, 57, 'all of the 60 pending events left, bar the 3 claimed before')
  })
})

/**
 * A claim looks at 64 merchants with events pending at most; those whose events are not due yet
 * (retries, parked backlogs) must not hide the ones after them.
 */
describeEachStore('claiming in turn past merchants with nothing due', (target) => {
  let app: TestApp
  let receiver: Receiver

  before(async () => {
    receiver = await startReceiver()
    app = await startApp(target(), { workers: 'background' })
  })
  after(async () => {
    await app.close()
    await receiver.close()
  })

  test('80 merchants whose callbacks are due in an hour, then one whose callback is due now: it arrives at once', async () => {
    const merchants = await Promise.all(Array.from({ length: 81 }, (_, i) => app.createMerchant(`m${i}`)))
    // The merchant looked at last, after every other, in the claims' turn from the first.
    const due = merchants.reduce((last, merchant) => (merchant.id > last.id ? merchant : last))
    const hour = 3_600_000_000
    for (const merchant of merchants.filter((merchant) => merchant !== due)) {
      const response = await app.client(merchant.sandbox).post('/api/v1/collect', {
        amount: 1000,
        channel: 'orange-money',
        country: 'CI',
        customer: { phoneNumber: sandboxPhone('001') },
        merchantReference: 'later',
        callbackUrl: 'http://127.0.0.1:9/not-yet',
      })
      assert.equal(response.status, 200, response.text)
      await app.db
        .updateTable('events')
        .set({ next_attempt_at_us: app.context.clock.nowUs() + hour })
        .where('merchant_id', '=', merchant.id)
        .execute()
    }
    const startedAt = Date.now()
    const response = await app.client(due.sandbox).post('/api/v1/collect', {
      amount: 1000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: sandboxPhone('001') },
      merchantReference: 'now',
      callbackUrl: receiver.url('/now'),
    })
    assert.equal(response.status, 200, response.text)
    await receiver.waitFor(() => receiver.requestsTo('/now').length === 2, 5_000, 'its two callbacks')
    const ms = Date.now() - startedAt
    process.stdout.write(`# figures [${target().name}] past 80 merchants with nothing due: ${ms} ms\n`)
  })
})
