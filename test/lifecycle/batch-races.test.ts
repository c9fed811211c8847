import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { approvePayoutBatch } from '../../src/app/payout-batches/index.ts'
import { startApp, type TestApp } from '../support/app.ts'
import { xofBalance } from '../support/ledger.ts'
import { describeEachStore } from '../support/stores.ts'
import { assertStoreConsistent } from '../support/verify.ts'
import { waitFor } from '../support/wait.ts'

/**
 * Issue 50, finding 9: on PostgreSQL an item's cancel racing the batch worker's dispatch
 * deadlocked (the dispatch held the merchant's counters and waited for the item's row; the cancel
 * held the row and waited for the counters) and answered 503 after a second; payouts of the same
 * merchant queued behind them and answered 503 too. CONTRACT.md, Cancel: a queued item's cancel
 * answers 200 (canceled) or 409 (the worker took it first); a payout answers 200 or 422
 * insufficient_balance. Never a 503, and the ledger stays exact.
 */

const environment = { RATE_LIMIT_PER_SECOND: '0', OPERATION_TTL: '2h' }
const callbackUrl = 'http://127.0.0.1:9/callback'
const rounds = 2
const itemsPerBatch = 600
const cancelsPerRound = 40
const payoutsPerRound = 30
let sequence = 0

function payee(index: number, amount: number) {
  sequence += 1
  return {
    amount,
    channel: 'orange-money',
    country: 'CI',
    customer: { phoneNumber: `2250700${String(index % 1000).padStart(3, '0')}123` },
    merchantReference: `race-${process.pid}-${sequence}`,
  }
}

describeEachStore('cancels and payouts racing a batch being dispatched', (store) => {
  let app: TestApp
  before(async () => {
    app = await startApp(store(), { environment, workers: 'background' })
  })
  after(() => app.close())

  for (let round = 1; round <= rounds; round++)
    test(`round ${round}: ${cancelsPerRound} item cancels and ${payoutsPerRound} payouts as the worker dispatches ${itemsPerBatch} items: 200, 409 or 422, never 503`, {
      timeout: 60_000,
    }, async (t) => {
      const merchant = await app.createMerchant()
      const client = app.client(merchant.sandbox)
      await app.context.store.payoutBatches.setRequiresApproval(merchant.id, true)
      // The batch holds most of the 1,000,000 balance; the payouts race for what is left and for
      // what the cancels release.
      const items = Array.from({ length: itemsPerBatch }, (_, index) => payee(index, 1400))
      const waiting = await client.post('/api/v1/payout-batch', {
        merchantReference: `race-batch-${process.pid}-${round}`,
        callbackUrl,
        items,
      })
      assert.equal(waiting.status, 200, waiting.text)
      const token = waiting.body.data.payoutBatch.token
      const found = await app.context.store.payoutBatches.findByToken(merchant.id, 'sandbox', token)
      const itemTokens = (await app.context.store.payoutBatches.items(found!.id, -1, itemsPerBatch)).map(
        ({ operation }) => operation.token,
      )
      // Spread over the batch, so that some are canceled before the worker reaches them and some
      // race the write that takes their chunk.
      const targets = Array.from(
        { length: cancelsPerRound },
        (_, index) => itemTokens[Math.floor((index * itemsPerBatch) / cancelsPerRound) + (index % 7)]!,
      )
      await approvePayoutBatch(app.context, merchant.id, 'sandbox', token, { memberId: 'm2', label: 'Ama' })
      const started = performance.now()
      const answers = await Promise.all([
        ...targets.map(async (target) => {
          const answer = await client.post(`/api/v1/disbursement/${target}/cancel`, { reason: 'race' })
          return { what: 'cancel', status: answer.status, ms: performance.now() - started, text: answer.text }
        }),
        ...Array.from({ length: payoutsPerRound }, async (_, index) => {
          const answer = await client.post('/api/v1/disbursement', { ...payee(index, 8000), callbackUrl })
          return { what: 'payout', status: answer.status, ms: performance.now() - started, text: answer.text }
        }),
      ])
      const count = (what: string) => {
        const statuses: Record<number, number> = {}
        for (const answer of answers.filter((one) => one.what === what))
          statuses[answer.status] = (statuses[answer.status] ?? 0) + 1
        return statuses
      }
      const slowest = Math.round(Math.max(...answers.map((answer) => answer.ms)))
      t.diagnostic(
        `${store().name}: cancels ${JSON.stringify(count('cancel'))}, payouts ${JSON.stringify(count('payout'))}; the last answered after ${slowest} ms`,
      )
      for (const answer of answers) {
        const allowed = answer.what === 'cancel' ? [200, 409] : [200, 422]
        assert.ok(
          allowed.includes(answer.status),
          `a ${answer.what} answered ${answer.status}: ${answer.text}`,
        )
      }
      await waitFor(
        'the batch to complete',
        async () =>
          (await client.get(`/api/v1/payout-batch/${token}`)).body.data.payoutBatch.status === 'completed',
        30_000,
      )
      assert.equal((await xofBalance(app, merchant.id)).held, 0)
      await assertStoreConsistent(app)
    })
})
