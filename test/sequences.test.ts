import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { IssuedMerchant } from '../src/app/merchants.ts'
import type { NumbersWanted } from '../src/store/repositories/sequences.ts'
import { startApp, type TestApp } from './support/app.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * A write's numbers (list positions, ledger sequences, event positions) come from its merchant's
 * counters. Inside one transaction, counters it advanced already stay locked, so a later reserve
 * of the same counters (the next opening of a merchant's group commit) is counted without asking the
 * database: it must hand out exactly the numbers, and leave exactly the counters, that one
 * statement per reserve would have.
 */
describeEachStore('sequences', (target) => {
  let app: TestApp
  let merchant: IssuedMerchant

  before(async () => {
    app = await startApp(target(), { environment: { RATE_LIMIT_PER_SECOND: '0' } })
    merchant = await app.createMerchant('Sequences')
  })
  after(() => app.close())

  const collect: NumbersWanted = { ledgerEntries: 1, events: 2, positionOf: 'collect' }
  const counters = async (merchantId = merchant.id) =>
    Object.fromEntries(
      (
        await app.db
          .selectFrom('counters')
          .select(['name', 'value'])
          .where('merchant_id', '=', merchantId)
          .where('mode', '=', 'live')
          .execute()
      ).map((row) => [row.name, Number(row.value)]),
    )

  test('reserves in one transaction follow on from each other, a new counter among them, and the counters end where they would one at a time', async () => {
    const store = app.context.store
    const [first, second, third, fourth] = await store.transaction(async (tx) => [
      await tx.sequences.reserve(merchant.id, 'live', collect),
      await tx.sequences.reserve(merchant.id, 'live', collect),
      await tx.sequences.reserve(merchant.id, 'live', {
        ledgerEntries: 2,
        events: 1,
        positionOf: 'disbursement',
      }),
      await tx.sequences.reserve(merchant.id, 'live', { ledgerEntries: 0, events: 1, positionOf: 'collect' }),
    ])
    const { ledgerEntries: ledger, events, position } = first!
    assert.deepEqual(second, { ledgerEntries: ledger + 1, events: events + 2, position: position + 1 })
    assert.deepEqual(third, { ledgerEntries: ledger + 2, events: events + 4, position: 1 })
    assert.deepEqual(fourth, { ledgerEntries: 0, events: events + 5, position: position + 2 })
    assert.deepEqual(await counters(), {
      ledger: ledger + 3,
      event: events + 5,
      collect: position + 2,
      disbursement: 1,
    })
    // Outside a transaction nothing is locked, so nothing is remembered: the database answers.
    const after = await store.sequences.reserve(merchant.id, 'live', collect)
    assert.deepEqual(after, { ledgerEntries: ledger + 4, events: events + 6, position: position + 3 })
  })

  test('an opening takes its position first and its other numbers once decided: the same numbers and counters as one reserve', async () => {
    const sandbox = await app.createMerchant('Positions first')
    const start = await app.context.store.transaction((tx) =>
      tx.sequences.reserve(sandbox.id, 'live', { ledgerEntries: 1, events: 1, positionOf: 'collect' }),
    )
    const taken = await app.context.store.transaction(async (tx) => {
      const first = await tx.sequences.takePosition(sandbox.id, 'live', 'collect')
      const firstNumbers = await first.reserve({ ledgerEntries: 1, events: 2 })
      const second = await tx.sequences.takePosition(sandbox.id, 'live', 'disbursement')
      const secondNumbers = await second.reserve({ ledgerEntries: 2, events: 1 })
      const third = await tx.sequences.takePosition(sandbox.id, 'live', 'collect')
      const thirdNumbers = await third.reserve({ ledgerEntries: 0, events: 1 })
      return [firstNumbers, secondNumbers, thirdNumbers]
    })
    assert.deepEqual(taken, [
      { ledgerEntries: start.ledgerEntries + 1, events: start.events + 1, position: start.position + 1 },
      { ledgerEntries: start.ledgerEntries + 2, events: start.events + 3, position: 1 },
      { ledgerEntries: 0, events: start.events + 4, position: start.position + 2 },
    ])
    assert.deepEqual(await counters(sandbox.id), {
      ledger: start.ledgerEntries + 3,
      event: start.events + 4,
      collect: start.position + 2,
      disbursement: 1,
    })
    await assert.rejects(
      app.context.store.sequences.takePosition(sandbox.id, 'live', 'collect'),
      /inside the transaction/,
    )
  })

  test('numbers expected with the position are handed out once decided: a guess too high or too low leaves them dense', async () => {
    const guessed = await app.createMerchant('Expected numbers')
    const start = await app.context.store.transaction((tx) =>
      tx.sequences.reserve(guessed.id, 'live', { ledgerEntries: 1, events: 1, positionOf: 'collect' }),
    )
    // Each in a transaction of its own, as a SQLite opening is: the guess rides with the lock.
    const open = (expected: { ledgerEntries: number; events: number }, wanted: typeof expected) =>
      app.context.store.transaction(async (tx) =>
        (await tx.sequences.takePosition(guessed.id, 'live', 'collect', expected)).reserve(wanted),
      )
    const right = await open({ ledgerEntries: 1, events: 2 }, { ledgerEntries: 1, events: 2 })
    const tooHigh = await open({ ledgerEntries: 3, events: 4 }, { ledgerEntries: 0, events: 1 })
    const tooLow = await open({ ledgerEntries: 0, events: 1 }, { ledgerEntries: 2, events: 2 })
    assert.deepEqual(
      [right, tooHigh, tooLow],
      [
        { ledgerEntries: start.ledgerEntries + 1, events: start.events + 1, position: start.position + 1 },
        { ledgerEntries: 0, events: start.events + 3, position: start.position + 2 },
        { ledgerEntries: start.ledgerEntries + 2, events: start.events + 4, position: start.position + 3 },
      ],
    )
    assert.deepEqual(await counters(guessed.id), {
      ledger: start.ledgerEntries + 3,
      event: start.events + 5,
      collect: start.position + 3,
    })
  })

  test('a transaction rolled back leaves the counters as they were, however many reserves it made', async () => {
    const before = await counters()
    await assert.rejects(
      app.context.store.transaction(async (tx) => {
        await tx.sequences.reserve(merchant.id, 'live', collect)
        await tx.sequences.reserve(merchant.id, 'live', collect)
        throw new Error('refused')
      }),
      /refused/,
    )
    assert.deepEqual(await counters(), before)
  })
})
