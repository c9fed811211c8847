import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { verifyStore } from '../../src/app/verify-store.ts'
import { moveBatchEventsToTheirSubject } from '../../src/store/migrations/0013-event-subjects.ts'
import { startApp, type TestApp } from '../support/app.ts'
import { type Receiver, startReceiver } from '../support/receiver.ts'
import { describeEachStore } from '../support/stores.ts'
import { assertStoreConsistent } from '../support/verify.ts'

/**
 * Issue 50: a payout batch's events rode on its first item's operation, so the batch's
 * `payout_batch.completed` waited for that item's callbacks to be delivered or given up (days,
 * when its endpoint fails). CONTRACT.md, Callbacks: one operation's events are delivered in order,
 * other operations never held back. A batch's events have a subject of their own: the batch's
 * conclusion is delivered while its first item's callbacks are still being retried.
 */

let sequence = 0

function item(index: number, callbackUrl?: string) {
  sequence += 1
  return {
    amount: 100,
    channel: 'orange-money',
    country: 'CI',
    customer: { phoneNumber: `2250700${String(index).padStart(3, '0')}123` },
    merchantReference: `subject-${process.pid}-${sequence}`,
    ...(callbackUrl ? { callbackUrl } : {}),
  }
}

describeEachStore('a payout batch’s events have a subject of their own', (store) => {
  let app: TestApp
  let healthy: Receiver
  let failing: Receiver
  before(async () => {
    healthy = await startReceiver()
    failing = await startReceiver()
    failing.script('/item', [], 500)
    app = await startApp(store(), { workers: 'background', environment: { RATE_LIMIT_PER_SECOND: '0' } })
  })
  after(async () => {
    await app.close()
    await healthy.close()
    await failing.close()
  })

  async function completedBatch(firstItemCallbackUrl?: string) {
    const merchant = await app.createMerchant()
    const client = app.client(merchant.sandbox)
    sequence += 1
    const path = `/batch-${sequence}`
    const items = [item(1, firstItemCallbackUrl), item(2), item(3)]
    const answer = await client.post('/api/v1/payout-batch', {
      merchantReference: `subject-batch-${process.pid}-${sequence}`,
      callbackUrl: healthy.url(path),
      items,
    })
    assert.equal(answer.status, 200, answer.text)
    return {
      merchant,
      client,
      batch: answer.body.data.payoutBatch,
      path,
      firstReference: items[0]!.merchantReference,
    }
  }

  test('the batch’s conclusion arrives while its first item’s callbacks are being retried', async (t) => {
    const started = performance.now()
    const { client, batch, path, firstReference } = await completedBatch(failing.url('/item'))
    const conclusion = await healthy.waitFor(
      () => healthy.bodiesTo(path).find((body) => body.type === 'payout_batch.completed'),
      15_000,
      'payout_batch.completed at the batch’s callbackUrl',
    )
    assert.equal(conclusion.data.payoutBatch.token, batch.token)
    t.diagnostic(
      `${store().name}: payout_batch.completed arrived ${Math.round(performance.now() - started)} ms after the batch was sent`,
    )
    // The first item's callback failed and waits for its retry, about a minute on.
    assert.ok(failing.requestsTo('/item').length >= 1)
    const items = await client.get('/api/v1/disbursement', { batch: batch.token })
    const firstItem = items.body.data.disbursements.find(
      (record: { merchantReference: string }) => record.merchantReference === firstReference,
    )
    // The events API names the batch as the event's subject; the first item's events are its own.
    const batchEvents = await client.get('/api/v1/events', { token: batch.token })
    assert.equal(batchEvents.status, 200, batchEvents.text)
    assert.deepEqual(
      batchEvents.body.data.events.map((event: { type: string; operation: string; token: string }) => [
        event.type,
        event.operation,
        event.token,
      ]),
      [['payout_batch.completed', 'payout_batch', batch.token]],
    )
    const itemEvents = await client.get('/api/v1/events', { token: firstItem.token })
    assert.deepEqual(itemEvents.body.data.events.map((event: { type: string }) => event.type).sort(), [
      'disbursement.pending',
      'disbursement.succeeded',
    ])
    await assertStoreConsistent(app)
  })

  test('a batch event written beside its first item before events had subjects is moved to its batch', async () => {
    const { merchant, batch, path } = await completedBatch()
    await healthy.waitFor(
      () => healthy.bodiesTo(path).find((body) => body.type === 'payout_batch.completed'),
      15_000,
      'payout_batch.completed',
    )
    // As the store held it before migration 0013: the batch's event on its first item's operation.
    await app.db
      .updateTable('events')
      .set({ payout_batch_id: null })
      .where('merchant_id', '=', merchant.id)
      .where('type', '=', 'payout_batch.completed')
      .execute()
    const before = await verifyStore(app.context)
    const subjects = before.inconsistencies.map((found) => found.subject)
    // The first item, whose events now include the batch's, and the batch, which has none.
    assert.equal(subjects.length, 2, subjects.join('; '))
    assert.ok(
      subjects.some((subject) => subject.startsWith('operation ')),
      subjects.join('; '),
    )
    assert.ok(subjects.includes(`payout batch ${batch.token} (completed)`), subjects.join('; '))
    await moveBatchEventsToTheirSubject(app.db)
    await assertStoreConsistent(app)
  })
})
