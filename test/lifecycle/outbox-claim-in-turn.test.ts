import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { IssuedMerchant } from '../../src/app/merchants.ts'
import { leaseMs } from '../../src/events/dispatcher.ts'
import { startApp, type TestApp } from '../support/app.ts'
import { sandboxPhone } from '../support/sandbox-requests.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * Callback delivery claims each merchant's due events in turn (`OutboxRepository.dueMerchants`,
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

  test('only merchants with an event of the mode due, in turn after the last one, then from the first again', async () => {
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
    const dueOnes = [busy.id, quiet.id].sort()
    assert.deepEqual(await outbox.dueMerchants('sandbox', nowUs, '', 16), dueOnes)
    assert.deepEqual(await outbox.dueMerchants('sandbox', nowUs, dueOnes[0]!, 16), [dueOnes[1], dueOnes[0]])
    assert.deepEqual(await outbox.dueMerchants('sandbox', nowUs, dueOnes[1]!, 16), dueOnes)
    assert.deepEqual(await outbox.dueMerchants('sandbox', nowUs, '', 1), [dueOnes[0]], 'at most count')
    assert.deepEqual(await outbox.dueMerchants('live', nowUs, '', 16), [], 'no live event is due')
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
