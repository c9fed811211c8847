import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import {
  type RunningPawapaySimulator,
  startPawapaySimulator,
} from '../../src/simulators/pawapay/pawapay-simulator.ts'
import { type ApiClient, apiClient } from '../support/app.ts'
import { runSika } from '../support/cli.ts'
import {
  createMerchantWithCli,
  type GroupedService,
  startGroupedService,
  stopAllGroupedServices,
  writeOperatorsFile,
} from '../support/live-process.ts'
import { freePort } from '../support/process.ts'
import { describeEachStore } from '../support/stores.ts'
import { waitFor } from '../support/wait.ts'

/**
 * A SIGKILL of `sika serve` in the middle of a payout batch through pawaPay, then a restart on the
 * same store: every item is paid once. The batch worker takes items in a committed write before it
 * sends them; items taken but unanswered when the process died are sent again by their submission
 * backstop (30 s after the take) under the same payoutId, which pawaPay deduplicates; items never
 * taken are worked by the restarted instance once the dead one's batch lease (30 s) runs out.
 */

const items = 200
const customer = { phoneNumber: '+2290197000124' }
const callbackUrl = 'https://merchant.example/callback'

describeEachStore('SIGKILL in the middle of a pawaPay payout batch', (store) =>
  describe('pawaPay, live', () => {
    let simulator: RunningPawapaySimulator
    let operators: ReturnType<typeof writeOperatorsFile> | undefined
    let environment: Record<string, string>
    let port: number
    let client: ApiClient
    let service: GroupedService | undefined

    before(async () => {
      port = await freePort()
      const publicBaseUrl = `http://127.0.0.1:${port}`
      const notifications = `${publicBaseUrl}/providers/pawapay/notifications`
      simulator = await startPawapaySimulator({
        settleDelayMs: 100,
        depositCallbackUrl: notifications,
        payoutCallbackUrl: notifications,
      })
      operators = writeOperatorsFile([{ simulator, channel: 'moov-money', countries: ['BJ'] }])
      environment = {
        DATABASE_URL: store().databaseUrl,
        OPERATORS_FILE: operators.file,
        PUBLIC_BASE_URL: publicBaseUrl,
        RATE_LIMIT_PER_SECOND: '0',
      }
      const keys = (await createMerchantWithCli(store().databaseUrl, 'Batch crash merchant')).live
      service = await startGroupedService(environment, port)
      client = apiClient(service.url, keys)
      for (let i = 0; i < 2; i++) {
        const collected = await client.post('/api/v1/collect', {
          amount: 50_000,
          channel: 'moov-money',
          country: 'BJ',
          customer: { phoneNumber: '+2290197000123' },
          merchantReference: `crash-fund-${i}`,
          callbackUrl,
        })
        assert.equal(collected.status, 200, collected.text)
        const token = collected.body.data.collect.token
        await waitFor('the funding collect', async () => {
          const record = (await client.get(`/api/v1/collect/${token}`)).body.data.collect
          return record.status === 'succeeded'
        })
      }
    })
    after(async () => {
      await stopAllGroupedServices()
      await simulator?.close()
      operators?.remove()
    })

    /**
     * Starts the service again on the same store and waits for the batch to complete: every item
     * succeeded, one payoutId accepted once at pawaPay per item and COMPLETED there, every bulk of at
     * most 20, `sika verify` clean.
     */
    async function restartAndExpectEachPaidOnce(token: string, count: number) {
      service = await startGroupedService(environment, port)
      const started = Date.now()
      await waitFor(
        'the batch to complete after the restart',
        async () => {
          const batch = (await client.get(`/api/v1/payout-batch/${token}`)).body.data.payoutBatch
          return batch.status === 'completed'
        },
        120_000,
      )
      const restartedMs = Date.now() - started
      const batch = (await client.get(`/api/v1/payout-batch/${token}`)).body.data.payoutBatch
      assert.deepEqual(batch.counts, { pending: 0, succeeded: count, failed: 0, canceled: 0, error: 0 })
      const listed = []
      for (let page = 1; page <= Math.ceil(count / 100); page++)
        listed.push(
          ...(await client.get('/api/v1/disbursement', { batch: token, perPage: 100, page })).body.data
            .disbursements,
        )
      const clientReferences = new Set(listed.map((record: any) => `${record.token}.main`))
      assert.equal(clientReferences.size, count)
      const accepted = simulator
        .acceptances()
        .filter((one) => clientReferences.has(one.clientReferenceId ?? ''))
      assert.equal(accepted.length, count, 'one payoutId at pawaPay per item')
      for (const one of accepted) assert.equal(one.accepted, 1, `${one.id} accepted once`)
      const ids = new Set(accepted.map((one) => one.id))
      const payouts = simulator.transactions().filter((payment) => ids.has(payment.id))
      assert.equal(payouts.length, count, 'one payment at pawaPay per item')
      assert.ok(
        payouts.every((payment) => payment.status === 'COMPLETED'),
        [...new Set(payouts.map((payment) => payment.status))].join(),
      )
      const bulkSizes = simulator.bulkRequests().map((bulk) => bulk.size)
      assert.ok(
        bulkSizes.every((size) => size <= 20),
        bulkSizes.join(),
      )
      const verified = await runSika(store().databaseUrl, ['verify'])
      assert.equal(verified.code, 0, `sika verify:\n${verified.stdout}${verified.stderr}`)
      return { restartedMs, sentAgain: accepted.filter((one) => one.duplicatesIgnored > 0).length }
    }

    test('killed after its first bulk requests, restarted: every item paid once, verify clean', async () => {
      const batchAnswer = await client.post('/api/v1/payout-batch', {
        merchantReference: 'crash-batch',
        callbackUrl,
        items: Array.from({ length: items }, (_, i) => ({
          amount: 100,
          channel: 'moov-money',
          country: 'BJ',
          customer,
          merchantReference: `crash-item-${i}`,
        })),
      })
      assert.equal(batchAnswer.status, 200, batchAnswer.text)
      const token = batchAnswer.body.data.payoutBatch.token
      await waitFor('two bulk requests at pawaPay', () => simulator.bulkRequests().length >= 2, 15_000)
      await service!.kill('SIGKILL')
      const bulksAtKill = simulator.bulkRequests().length
      const sentAtKill = simulator.bulkRequests().reduce((sum, bulk) => sum + bulk.size, 0)
      assert.ok(sentAtKill < items, `the kill landed mid-batch (${sentAtKill} of ${items} sent)`)

      const { restartedMs, sentAgain } = await restartAndExpectEachPaidOnce(token, items)
      console.log(
        `[${store().name}] killed after ${bulksAtKill} bulk requests (${sentAtKill} of ${items} payouts sent); completed ${restartedMs} ms after the restart; ${sentAgain} payouts sent again and answered DUPLICATE_IGNORED`,
      )
    })
    test('killed while pawaPay holds a bulk unanswered, restarted: those payouts are settled from pawaPay and paid once', async () => {
      // Items 20-39 go in the second bulk; the one whose number ends in 107 makes pawaPay accept that
      // bulk but hold its answer for 15 s: the process dies with 20 payouts at pawaPay that it took
      // but never heard about.
      const count = 60
      const bulksBefore = simulator.bulkRequests().length
      const batchAnswer = await client.post('/api/v1/payout-batch', {
        merchantReference: 'crash-batch-unanswered',
        callbackUrl,
        items: Array.from({ length: count }, (_, i) => ({
          amount: 100,
          channel: 'moov-money',
          country: 'BJ',
          customer: i === 25 ? { phoneNumber: '+2290197000107' } : customer,
          merchantReference: `crash-unanswered-${i}`,
        })),
      })
      assert.equal(batchAnswer.status, 200, batchAnswer.text)
      const token = batchAnswer.body.data.payoutBatch.token
      await waitFor(
        'the held bulk at pawaPay',
        () => simulator.bulkRequests().length >= bulksBefore + 2,
        15_000,
      )
      await service!.kill('SIGKILL')
      const sentAtKill = simulator
        .bulkRequests()
        .slice(bulksBefore)
        .reduce((sum, bulk) => sum + bulk.size, 0)
      assert.equal(sentAtKill, 40, 'two bulks of 20 reached pawaPay, the second unanswered')

      // Either way is one payment each: the unanswered payouts are settled from pawaPay's own record of
      // them (its callbacks, confirmed by a status check, answer the submission), or sent again under
      // their payoutIds and answered DUPLICATE_IGNORED.
      const { restartedMs, sentAgain } = await restartAndExpectEachPaidOnce(token, count)
      console.log(
        `[${store().name}] killed with a bulk of 20 unanswered (${sentAtKill} of ${count} payouts at pawaPay); completed ${restartedMs} ms after the restart; ${sentAgain} payouts sent again and answered DUPLICATE_IGNORED; each accepted once`,
      )
    })
  }),
)
