import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { IssuedMerchant } from '../src/app/merchants.ts'
import type { LedgerEffect } from '../src/domain/ledger-rules.ts'
import { startApp, type TestApp } from './support/app.ts'
import { xofBalance } from './support/ledger.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * A balance row a transaction has changed stays locked until it ends, so the ledger counts its
 * later changes in the process (src/store/repositories/ledger.ts): the availability it checks, the
 * balance after each entry and the row it leaves must be exactly what one statement per change,
 * answered by the database, would have given; and a rollback must leave nothing of them.
 */
describeEachStore('balances a transaction has locked', (target) => {
  let app: TestApp
  let merchant: IssuedMerchant

  before(async () => {
    app = await startApp(target(), { environment: { RATE_LIMIT_PER_SECOND: '0' } })
    merchant = await app.createMerchant('Locked balances')
  })
  after(() => app.close())

  test('a credit, a debit and a hold of one row in one transaction: each checked and counted from the one before, a refusal names what is left, a rollback leaves the row as it was', async () => {
    const collect = await app.client(merchant.sandbox).post('/api/v1/collect', {
      amount: 5000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: '+2250700000123' },
      merchantReference: 'locked-1',
      callbackUrl: 'http://127.0.0.1:9/callback',
    })
    assert.equal(collect.status, 200, collect.text)
    const store = app.context.store
    const operation = await store.operations.findByToken(
      merchant.id,
      'sandbox',
      collect.body.data.collect.token,
    )
    assert.ok(operation)
    const start = await xofBalance(app, merchant.id)
    const effects: LedgerEffect[] = [
      { action: 'credit', amountMinor: 1000 },
      {
        action: 'hold-resolved',
        entryType: 'cash-out',
        amountMinor: 400,
        role: 'main',
        resolution: 'succeeded',
      },
      { action: 'hold', entryType: 'cash-out', amountMinor: 300, role: 'main' },
    ]
    const available = start.posted + 1000 - 400 - (start.held + 300)

    await assert.rejects(
      store.transaction(async (tx) => {
        const numbers = await tx.sequences.reserve(merchant.id, 'sandbox', { ledgerEntries: 4, events: 0 })
        assert.equal(await tx.ledger.apply(operation, effects, numbers.ledgerEntries), undefined)
        // Refused on the figures counted so far: nothing is written for it.
        const refused = await tx.ledger.apply(
          operation,
          [{ action: 'hold', entryType: 'cash-out', amountMinor: available + 1, role: 'main' }],
          numbers.ledgerEntries + 3,
        )
        assert.deepEqual(refused, {
          role: 'main',
          currency: 'XOF',
          availableMinor: available,
          neededMinor: available + 1,
        })
        // Read back inside the transaction: what the database holds, the held writes sent first.
        const [balance] = (await tx.ledger.balances(merchant.id, 'sandbox')).filter(
          (row) => row.currency === 'XOF',
        )
        assert.deepEqual(balance, {
          mode: 'sandbox',
          currency: 'XOF',
          postedMinor: start.posted + 600,
          heldMinor: start.held + 300,
          availableMinor: available,
        })
        const entries = await tx.ledger.list(merchant.id, 'sandbox', {}, { page: 1, perPage: 3 })
        assert.deepEqual(
          entries.items.map((entry) => [
            entry.type,
            entry.status,
            entry.amountMinor,
            entry.balanceAfterMinor,
          ]),
          [
            ['cash-out', 'pending', 300, null],
            ['cash-out', 'succeeded', 400, start.posted + 600],
            ['cash-in', 'succeeded', 1000, start.posted + 1000],
          ],
        )
        throw new Error('rolled back on purpose')
      }),
      /rolled back on purpose/,
    )
    assert.deepEqual(await xofBalance(app, merchant.id), start)
  })
})
