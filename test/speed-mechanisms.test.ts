import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { speedMechanisms } from '../src/config.ts'
import { startApp, type TestApp } from './support/app.ts'
import { availableOf, xofBalance } from './support/ledger.ts'
import { recordPostgresStatements, type SentStatements } from './support/postgres-statements.ts'
import { type Receiver, startReceiver } from './support/receiver.ts'
import { describeEachStore } from './support/stores.ts'
import { assertStoreConsistent } from './support/verify.ts'

/**
 * SPEED_MECHANISMS_OFF switches off mechanisms that only make Sika faster, so a bench can measure
 * what each earns (`npm run bench -- --mechanisms`). With every one of them off, the same
 * requests get the same answers, the ledger the same postings and the merchant the same
 * callbacks; and each is really off: no grouped commit, no WAL sync of its own, no held write or
 * batched read among the statements sent.
 */
describeEachStore('every speed mechanism switched off', (store) => {
  let app: TestApp
  let receiver: Receiver
  let sent: SentStatements
  before(async () => {
    sent = recordPostgresStatements()
    receiver = await startReceiver()
    app = await startApp(store(), {
      workers: 'background',
      environment: { SPEED_MECHANISMS_OFF: speedMechanisms.join(','), SANDBOX_DELAY_MS: '3600000' },
    })
  })
  after(async () => {
    sent.stop()
    await app.close()
    await receiver.close()
  })

  test('concurrent collects, a refund and a refused payout answer as they would with them on', async () => {
    const merchant = await app.createMerchant()
    const client = app.client(merchant.sandbox)
    sent.texts.length = 0
    const commitsBefore = app.context.store.commitStatistics()
    const collects = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        client.post('/api/v1/collect', {
          amount: 1000 + index,
          channel: 'orange-money',
          country: 'CI',
          customer: { phoneNumber: '2250700000123' },
          merchantReference: `order-${index}`,
          callbackUrl: receiver.url('/callbacks'),
        }),
      ),
    )
    for (const collected of collects) assert.equal(collected.status, 200, collected.text)
    const tokens = collects.map((collected) => collected.body.data.collect.token as string)
    const reads = await Promise.all(tokens.map((token) => client.get(`/api/v1/collect/${token}`)))
    assert.deepEqual(
      reads.map((read) => read.body.data.collect.status),
      tokens.map(() => 'succeeded'),
    )

    const refund = await client.post(`/api/v1/collect/${tokens[0]}/refund`, { merchantReference: 'refund-0' })
    assert.equal(refund.status, 200, refund.text)
    assert.equal(refund.body.data.refund.status, 'succeeded')
    const balance = await xofBalance(app, merchant.id)
    const payout = await client.post('/api/v1/disbursement', {
      amount: availableOf(balance) + 1,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: '2250700000123' },
      merchantReference: 'payout-0',
      callbackUrl: receiver.url('/callbacks'),
    })
    assert.equal(payout.status, 422, payout.text)
    assert.equal(payout.body.code, 'insufficient_balance')
    assert.deepEqual(await xofBalance(app, merchant.id), balance, 'the refused payout changed nothing')

    // Each collect's two statuses and the refund's, signed and delivered.
    await receiver.waitFor(
      () => receiver.requestsTo('/callbacks').length >= 20 * 2 + 2,
      10_000,
      'every callback delivered',
    )
    await assertStoreConsistent(app)

    const commits = app.context.store.commitStatistics()
    if (commits && commitsBefore) {
      // A write outside a transaction commits alone too, counted as a commit and no transaction.
      assert.ok(
        commits.commits - commitsBefore.commits >= commits.transactions - commitsBefore.transactions,
        `no COMMIT held two transactions: ${JSON.stringify({ commitsBefore, commits })}`,
      )
      assert.equal(commits.syncs, 0, 'no WAL sync of its own: each COMMIT synced inside SQLite')
    } else {
      assert.equal(app.context.merchantGroupCommit.statistics().transactions, 0, 'no merchant group commit')
      assert.ok(sent.texts.length > 0)
      assert.equal(
        sent.texts.filter((text) => /^with w0 as/.test(text)).length,
        0,
        'no write held for a later statement',
      )
      assert.equal(
        sent.texts.filter((text) => /"token" in \(/.test(text)).length,
        0,
        'no reads batched by token',
      )
    }
  })
})
