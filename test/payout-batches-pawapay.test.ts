import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import {
  type RunningPawapaySimulator,
  startPawapaySimulator,
} from '../src/simulators/pawapay/pawapay-simulator.ts'
import type { ApiClient } from './support/app.ts'
import { type LiveApp, startLiveApp } from './support/live.ts'
import { describeEachStore } from './support/stores.ts'
import { assertStoreConsistent } from './support/verify.ts'

/**
 * Payout batches through pawaPay (the simulator as a real server): items go in bulk, at most 20 a
 * POST /v2/payouts/bulk, each paid once; a payout pawaPay holds ENQUEUED is canceled through
 * fail-enqueued and ends canceled only once pawaPay's status says so.
 */

const customer = (ending: string) => ({ phoneNumber: `+2290197000${ending}` })
const callbackUrl = 'https://merchant.example/callback'
let sequence = 0

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describeEachStore('payout batches through pawaPay', (store) => {
  let running: LiveApp
  let simulator: RunningPawapaySimulator
  let live: ApiClient
  before(async () => {
    running = await startLiveApp(store(), async (publicBaseUrl) => {
      const notifications = `${publicBaseUrl}/providers/pawapay/notifications`
      simulator = await startPawapaySimulator({
        settleDelayMs: 100,
        depositCallbackUrl: notifications,
        payoutCallbackUrl: notifications,
      })
      return [{ simulator, channel: 'moov-money', countries: ['BJ'] }]
    })
    live = running.live
    // Live balances open at zero: funded by collects through pawaPay, settled the ordinary way.
    for (let i = 0; i < 2; i++) {
      const collected = await live.post('/api/v1/collect', {
        amount: 50_000,
        channel: 'moov-money',
        country: 'BJ',
        customer: customer('123'),
        merchantReference: `fund-${sequence++}`,
        callbackUrl,
      })
      assert.equal(collected.status, 200, collected.text)
      await settle(`/api/v1/collect/${collected.body.data.collect.token}`, 'collect')
    }
  })
  after(() => running.close())

  /** Runs due work (the batch worker, polls, callbacks) until `done` holds. */
  async function runUntil(what: string, done: () => Promise<boolean>, withinMs = 15_000) {
    const deadline = Date.now() + withinMs
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await running.app.workers.runDue()
      await pause(50)
    }
  }

  async function settle(path: string, key: string) {
    await runUntil(
      `${path} to settle`,
      async () => (await live.get(path)).body.data[key].status !== 'pending',
    )
  }

  const batchOf = (count: number) => ({
    merchantReference: `pawapay-batch-${sequence++}`,
    callbackUrl,
    items: Array.from({ length: count }, () => ({
      amount: 100,
      channel: 'moov-money',
      country: 'BJ',
      customer: customer('124'),
      merchantReference: `pawapay-item-${sequence++}`,
    })),
  })

  /** Runs the batch worker until no item of the batch is left queued in Sika: each is at pawaPay. */
  async function dispatched(token: string) {
    const { store } = running.app.context
    const row = await running.app.db
      .selectFrom('payout_batches')
      .select(['merchant_id', 'id'])
      .where('token', '=', token)
      .executeTakeFirstOrThrow()
    await runUntil('the items to reach pawaPay', async () => {
      const queued = await store.payoutBatches.itemIds(Number(row.id), { queuedOnly: true })
      const listed = (await live.get('/api/v1/disbursement', { batch: token })).body.data.disbursements
      return queued.length === 0 && listed.every((record: any) => record.operatorReference)
    })
    return (await live.get('/api/v1/disbursement', { batch: token })).body.data.disbursements as any[]
  }

  test('live: an item callbackUrl on a private address is a 422 naming items[i].callbackUrl; nothing is created', async () => {
    const body = batchOf(3)
    const items = [body.items[0]!, body.items[1]!, body.items[2]!] as Array<
      (typeof body.items)[number] & { callbackUrl?: string }
    >
    items[0]!.callbackUrl = 'http://169.254.169.254/latest'
    items[2]!.callbackUrl = 'http://127.0.0.1:9/hook'
    const refused = await live.post('/api/v1/payout-batch', { ...body, items })
    assert.equal(refused.status, 422, refused.text)
    assert.equal(refused.body.code, 'validation_failed')
    assert.deepEqual(
      refused.body.errors.map((error: any) => [error.field, error.code]),
      [
        ['items[0].callbackUrl', 'forbidden_host'],
        ['items[2].callbackUrl', 'forbidden_host'],
      ],
    )
    const listed = await live.get('/api/v1/payout-batch', { merchantReference: body.merchantReference })
    assert.equal(listed.body.meta.pagination.total, 0)
    const disbursements = await live.get('/api/v1/disbursement', {
      merchantReference: items[1]!.merchantReference,
    })
    assert.equal(disbursements.body.meta.pagination.total, 0)
  })

  test('a batch cancel asks pawaPay to stop every item it holds ENQUEUED: each ends canceled_by_merchant', async () => {
    simulator.holdPayouts(true)
    try {
      const accepted = await live.post('/api/v1/payout-batch', batchOf(3))
      assert.equal(accepted.status, 200, accepted.text)
      const token = accepted.body.data.payoutBatch.token
      const items = await dispatched(token)
      const canceled = await live.post(`/api/v1/payout-batch/${token}/cancel`, { reason: 'wrong month' })
      assert.equal(canceled.status, 200, canceled.text)
      for (const item of items) await settle(`/api/v1/disbursement/${item.token}`, 'disbursement')
      for (const item of items) {
        const ended = (await live.get(`/api/v1/disbursement/${item.token}`)).body.data.disbursement
        assert.equal(ended.status, 'canceled', JSON.stringify(ended))
        assert.equal(ended.failureReason.code, 'canceled_by_merchant')
        assert.match(ended.failureReason.message, /Reason: wrong month/)
      }
      await runUntil('the batch to complete', async () => {
        const batch = (await live.get(`/api/v1/payout-batch/${token}`)).body.data.payoutBatch
        return batch.status === 'completed'
      })
      const batch = (await live.get(`/api/v1/payout-batch/${token}`)).body.data.payoutBatch
      assert.deepEqual(batch.counts, { pending: 0, succeeded: 0, failed: 0, canceled: 3, error: 0 })
      await assertStoreConsistent(running.app)
    } finally {
      simulator.holdPayouts(false)
    }
  })

  test('no answer to the cancel is a 409 saying to send it again; a later decline keeps the operator’s reason', async () => {
    simulator.holdPayouts(true)
    const adapter = running.app.context.providers.adapterFor('live', 'moov-money', 'BJ')
    const cancelQueued = adapter.cancelQueued
    try {
      const accepted = await live.post('/api/v1/payout-batch', batchOf(1))
      const [item] = await dispatched(accepted.body.data.payoutBatch.token)
      // pawaPay does not answer (a timeout, a 5xx): the adapter says it does not know.
      adapter.cancelQueued = async () => ({ answer: 'unknown' })
      const unanswered = await live.post(`/api/v1/disbursement/${item.token}/cancel`, { reason: 'typo' })
      assert.equal(unanswered.status, 409, unanswered.text)
      assert.equal(unanswered.body.code, 'not_cancelable')
      assert.equal(unanswered.body.status, 'pending')
      assert.match(unanswered.body.message, /did not answer the cancel; send it again/)
      adapter.cancelQueued = cancelQueued
      // The provider then declines the payout on its own.
      assert.ok(
        simulator.forceStatus(item.operatorReference, {
          status: 'FAILED',
          failureCode: 'RECIPIENT_NOT_FOUND',
          operation: 'payout',
        } as never),
      )
      await settle(`/api/v1/disbursement/${item.token}`, 'disbursement')
      const ended = (await live.get(`/api/v1/disbursement/${item.token}`)).body.data.disbursement
      assert.equal(ended.status, 'failed', JSON.stringify(ended))
      assert.notEqual(ended.failureReason.code, 'canceled_by_merchant')
      assert.match(ended.failureReason.message, /no wallet/)
      await assertStoreConsistent(running.app)
    } finally {
      adapter.cancelQueued = cancelQueued
      simulator.holdPayouts(false)
    }
  })

  test('45 payouts go to pawaPay in bulk requests of at most 20, each paid once', async () => {
    const bulksBefore = simulator.bulkRequests().length
    const accepted = await live.post('/api/v1/payout-batch', batchOf(45))
    assert.equal(accepted.status, 200, accepted.text)
    const token = accepted.body.data.payoutBatch.token
    await runUntil('the batch to complete', async () => {
      const batch = (await live.get(`/api/v1/payout-batch/${token}`)).body.data.payoutBatch
      return batch.status === 'completed'
    })
    const batch = (await live.get(`/api/v1/payout-batch/${token}`)).body.data.payoutBatch
    assert.deepEqual(batch.counts, { pending: 0, succeeded: 45, failed: 0, canceled: 0, error: 0 })
    const sizes = simulator
      .bulkRequests()
      .slice(bulksBefore)
      .map((bulk) => bulk.size)
    assert.ok(
      sizes.every((size) => size >= 1 && size <= 20),
      sizes.join(),
    )
    assert.equal(
      sizes.reduce((sum, size) => sum + size, 0),
      45,
      sizes.join(),
    )
    const listed = await live.get('/api/v1/disbursement', { batch: token, perPage: 100 })
    const references = new Set(listed.body.data.disbursements.map((record: any) => record.operatorReference))
    assert.equal(references.size, 45)
    for (const acceptance of simulator.acceptances().filter((one) => references.has(one.id)))
      assert.equal(acceptance.accepted, 1, `${acceptance.id} accepted once`)
    await assertStoreConsistent(running.app)
  })

  test('a payout pawaPay holds ENQUEUED is canceled through fail-enqueued; one it paid is a 409', async () => {
    simulator.holdPayouts(true)
    try {
      const accepted = await live.post('/api/v1/payout-batch', batchOf(2))
      assert.equal(accepted.status, 200, accepted.text)
      const token = accepted.body.data.payoutBatch.token
      await runUntil('the items to reach pawaPay', async () => {
        const listed = await live.get('/api/v1/disbursement', { batch: token })
        return listed.body.data.disbursements.every((record: any) => record.operatorReference)
          ? (
              await running.app.context.store.payoutBatches.itemIds(
                (await running.app.context.store.payoutBatches.findByToken(
                  (
                    await running.app.db
                      .selectFrom('payout_batches')
                      .select('merchant_id')
                      .where('token', '=', token)
                      .executeTakeFirstOrThrow()
                  ).merchant_id,
                  'live',
                  token,
                ))!.id,
                { queuedOnly: true },
              )
            ).length === 0
          : false
      })
      const [first, second] = (await live.get('/api/v1/disbursement', { batch: token })).body.data
        .disbursements
      const transactions = () => simulator.transactions()
      assert.ok(transactions().some((payment: any) => payment.status === 'ENQUEUED'))
      const canceled = await live.post(`/api/v1/disbursement/${first.token}/cancel`, { reason: 'sent twice' })
      assert.equal(canceled.status, 200, canceled.text)
      assert.ok(['pending', 'canceled'].includes(canceled.body.data.disbursement.status))
      await settle(`/api/v1/disbursement/${first.token}`, 'disbursement')
      const ended = (await live.get(`/api/v1/disbursement/${first.token}`)).body.data.disbursement
      assert.equal(ended.status, 'canceled', JSON.stringify(ended))
      assert.equal(ended.failureReason.code, 'canceled_by_merchant')
      const again = await live.post(`/api/v1/disbursement/${first.token}/cancel`)
      assert.equal(again.status, 200, again.text)
      assert.deepEqual(again.body.data.disbursement, ended)

      simulator.holdPayouts(false)
      await settle(`/api/v1/disbursement/${second.token}`, 'disbursement')
      const paid = (await live.get(`/api/v1/disbursement/${second.token}`)).body.data.disbursement
      assert.equal(paid.status, 'succeeded')
      const refused = await live.post(`/api/v1/disbursement/${second.token}/cancel`)
      assert.equal(refused.status, 409, refused.text)
      assert.equal(refused.body.code, 'not_cancelable')
      await runUntil('the batch to complete', async () => {
        const batch = (await live.get(`/api/v1/payout-batch/${token}`)).body.data.payoutBatch
        return batch.status === 'completed'
      })
      await assertStoreConsistent(running.app)
    } finally {
      simulator.holdPayouts(false)
    }
  })
})
