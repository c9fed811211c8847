import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { IssuedMerchant } from '../../src/app/merchants.ts'
import { type ApiClient, manualClock, startApp, type TestApp } from '../support/app.ts'
import { xofBalance } from '../support/ledger.ts'
import { details, initiate, merchantWithClient } from '../support/operations.ts'
import { sandboxPhone, transferBody } from '../support/sandbox-requests.ts'
import { describeEachStore } from '../support/stores.ts'

// CONTRACT.md, Sandbox and Statuses: the phone number's last three digits choose the outcome;
// delayed outcomes land once the clock passes SANDBOX_DELAY_MS, pending ones expire after OPERATION_TTL.
const delayMs = 5_000
const ttlMs = 15 * 60_000
const unusedCallback = 'http://127.0.0.1:9/unused'

type Kind = 'collect' | 'disbursement'

const delayedOutcomes = [
  { ending: '900', status: 'succeeded', failureCode: undefined },
  { ending: '902', status: 'failed', failureCode: 'insufficient_funds' },
  { ending: '903', status: 'canceled', failureCode: 'customer_declined' },
] as const

const immediateOutcomes = [
  { ending: '001', status: 'succeeded', failureCode: undefined },
  { ending: '901', status: 'failed', failureCode: 'insufficient_funds' },
  { ending: '904', status: 'error', failureCode: 'operator_unavailable' },
] as const

let sequence = 0

function singleBody(ending: string) {
  return {
    amount: 10_000,
    channel: 'orange-money',
    country: 'CI',
    customer: { phoneNumber: sandboxPhone(ending), fullName: 'Awa Kone' },
    merchantReference: `lifecycle-${sequence++}`,
    callbackUrl: unusedCallback,
  }
}

/** ISO 8601 with microseconds, to epoch milliseconds. */
function epochMs(timestamp: string): number {
  return Date.parse(timestamp.replace(/(\.\d{3})\d*Z$/, '$1Z'))
}

describeEachStore('sandbox lifecycle: delayed outcomes, expiry and transfers', (store) => {
  let app: TestApp
  let clock: ReturnType<typeof manualClock>

  before(async () => {
    clock = manualClock(Date.now() * 1000)
    app = await startApp(store(), {
      clock,
      workers: 'manual',
      environment: { SANDBOX_DELAY_MS: String(delayMs), OPERATION_TTL: String(ttlMs) },
    })
  })
  after(() => app.close())

  async function entriesOf(client: ApiClient, token: string) {
    const response = await client.get('/api/v1/transaction', { perPage: 100 })
    assert.equal(response.status, 200, response.text)
    return (response.body.data.transactions as any[]).filter((entry) => entry.token === token)
  }

  async function openScheduledWork(token: string): Promise<number> {
    const rows = await app.db
      .selectFrom('scheduled_work')
      .innerJoin('operations', 'operations.id', 'scheduled_work.operation_id')
      .select('scheduled_work.id')
      .where('operations.token', '=', token)
      .where('scheduled_work.done_at_us', 'is', null)
      .execute()
    return rows.length
  }

  /** The ledger a single operation must leave once final: CONTRACT.md, Balances and the ledger. */
  async function assertFinalMoney(
    client: ApiClient,
    merchant: IssuedMerchant,
    kind: Kind,
    record: any,
    opening: { posted: number; held: number },
  ) {
    const succeeded = record.status === 'succeeded'
    const entries = await entriesOf(client, record.token)
    const balance = await xofBalance(app, merchant.id)
    if (kind === 'collect') {
      assert.deepEqual(
        entries.map((entry) => [entry.type, entry.status, entry.amount]),
        succeeded ? [['cash-in', 'succeeded', record.cashAmount]] : [],
        'a collect is credited its cashAmount on success, and only then',
      )
      assert.deepEqual(balance, {
        posted: opening.posted + (succeeded ? record.cashAmount : 0),
        held: opening.held,
      })
    } else {
      assert.deepEqual(
        entries.map((entry) => [entry.type, entry.status, entry.amount]),
        [['cash-out', succeeded ? 'succeeded' : 'canceled', record.cashAmount]],
        'a disbursement hold is posted on success and released otherwise',
      )
      assert.deepEqual(balance, {
        posted: opening.posted - (succeeded ? record.cashAmount : 0),
        held: opening.held,
      })
    }
  }

  for (const kind of ['collect', 'disbursement'] as const) {
    for (const outcome of delayedOutcomes) {
      test(`${kind} ending in ${outcome.ending}: pending until SANDBOX_DELAY_MS has passed, then ${outcome.status}`, async () => {
        const { merchant, client } = await merchantWithClient(app)
        const opening = await xofBalance(app, merchant.id)
        const initiated = await initiate(client, kind, singleBody(outcome.ending))
        assert.equal(initiated.status, 'pending')
        assert.equal(initiated.completionDate, undefined)
        assert.equal(initiated.failureReason, undefined)
        if (kind === 'disbursement') {
          assert.deepEqual(
            (await entriesOf(client, initiated.token)).map((entry) => [
              entry.type,
              entry.status,
              entry.amount,
            ]),
            [['cash-out', 'pending', initiated.cashAmount]],
            'the cashAmount is held at initiation',
          )
          assert.deepEqual(await xofBalance(app, merchant.id), {
            posted: opening.posted,
            held: opening.held + initiated.cashAmount,
          })
        }

        await app.workers.runDue()
        clock.advance(delayMs - 50)
        await app.workers.runDue()
        const early = await details(client, kind, initiated.token)
        assert.equal(early.status, 'pending', 'nothing lands before the delay')
        assert.equal(early.completionDate, undefined)

        clock.advance(100)
        await app.workers.runDue()
        const settled = await details(client, kind, initiated.token)
        assert.equal(settled.status, outcome.status)
        assert.equal(settled.failureReason?.code, outcome.failureCode)
        if (outcome.failureCode) assert.equal(typeof settled.failureReason.message, 'string')
        assert.equal(typeof settled.completionDate, 'string', 'a final record carries completionDate')
        assert.ok(
          epochMs(settled.completionDate) >= epochMs(settled.initiationDate) + delayMs,
          `completionDate ${settled.completionDate} is at least ${delayMs} ms after ${settled.initiationDate}`,
        )
        await assertFinalMoney(client, merchant, kind, settled, opening)
        assert.equal(await openScheduledWork(initiated.token), 0, 'nothing is left to poll or expire')

        clock.advance(ttlMs)
        await app.workers.runDue()
        assert.deepEqual(await details(client, kind, initiated.token), settled, 'a final status never moves')
      })
    }

    for (const outcome of immediateOutcomes) {
      test(`${kind} ending in ${outcome.ending}: ${outcome.status} at once, in the initiation response`, async () => {
        const { merchant, client } = await merchantWithClient(app)
        const opening = await xofBalance(app, merchant.id)
        const record = await initiate(client, kind, singleBody(outcome.ending))
        assert.equal(record.status, outcome.status)
        assert.equal(record.failureReason?.code, outcome.failureCode)
        assert.equal(typeof record.completionDate, 'string')
        assert.deepEqual(await details(client, kind, record.token), record)
        await assertFinalMoney(client, merchant, kind, record, opening)
        assert.equal(await openScheduledWork(record.token), 0)
      })
    }

    test(`${kind} ending in 905: pending through many delays, canceled with "expired" once OPERATION_TTL has passed`, async () => {
      const { merchant, client } = await merchantWithClient(app)
      const opening = await xofBalance(app, merchant.id)
      const initiated = await initiate(client, kind, singleBody('905'))
      assert.equal(initiated.status, 'pending')

      for (let round = 0; round < 4; round++) {
        clock.advance(delayMs * 2)
        await app.workers.runDue()
        assert.equal((await details(client, kind, initiated.token)).status, 'pending')
      }
      clock.advance(ttlMs - delayMs * 8 - 1_000)
      await app.workers.runDue()
      assert.equal(
        (await details(client, kind, initiated.token)).status,
        'pending',
        'still pending 1 s before',
      )

      clock.advance(2_000)
      await app.workers.runDue()
      const expired = await details(client, kind, initiated.token)
      assert.equal(expired.status, 'canceled')
      assert.equal(expired.failureReason?.code, 'expired')
      assert.ok(epochMs(expired.completionDate) >= epochMs(expired.initiationDate) + ttlMs)
      await assertFinalMoney(client, merchant, kind, expired, opening)
      assert.equal(await openScheduledWork(initiated.token), 0)
    })
  }

  test('a poll claimed by an instance that died runs once its lease has run out', async () => {
    const { client } = await merchantWithClient(app)
    const { token } = await initiate(client, 'collect', singleBody('900'))
    const operation = await app.db
      .selectFrom('operations')
      .select('id')
      .where('token', '=', token)
      .executeTakeFirstOrThrow()
    clock.advance(delayMs + 100)
    // As if another instance had claimed the due poll and crashed.
    await app.db
      .updateTable('scheduled_work')
      .set({ lease_owner: 'a-dead-instance', lease_until_us: clock.nowUs() + 60_000_000 })
      .where('operation_id', '=', operation.id)
      .where('kind', '=', 'poll')
      .execute()
    await app.workers.runDue()
    assert.equal((await details(client, 'collect', token)).status, 'pending', 'not while the lease holds')
    clock.advance(61_000)
    await app.workers.runDue()
    assert.equal((await details(client, 'collect', token)).status, 'succeeded')
  })

  test('transfer: a from side 905 expires: canceled, the to side never starts, its hold released', async () => {
    const { merchant, client } = await merchantWithClient(app)
    const opening = await xofBalance(app, merchant.id)
    const { token } = await initiate(client, 'transfer', transferBody('905', '001', unusedCallback))
    clock.advance(ttlMs + 1_000)
    await app.workers.runDue()
    const done = await details(client, 'transfer', token)
    assert.equal(done.status, 'canceled')
    assert.equal(done.failureReason?.code, 'expired')
    assert.equal(done.from.status, 'canceled')
    assert.equal(done.to.status, 'canceled')
    assert.deepEqual(
      (await entriesOf(client, token)).map((entry) => `${entry.type}:${entry.status}`),
      ['cash-out:canceled'],
    )
    assert.deepEqual(await xofBalance(app, merchant.id), opening)
    assert.equal(await openScheduledWork(token), 0)
  })

  test('transfer: the to side starts only after the from side succeeded; both 900 end succeeded', async () => {
    const { merchant, client } = await merchantWithClient(app)
    const opening = await xofBalance(app, merchant.id)
    const initiated = await initiate(client, 'transfer', transferBody('900', '900', unusedCallback))
    assert.equal(initiated.status, 'pending')
    assert.equal(initiated.from.status, 'pending')
    assert.equal(initiated.to.status, 'pending')
    const sidesRow = async () => {
      const row = await app.db
        .selectFrom('operations')
        .select('sides')
        .where('token', '=', initiated.token)
        .executeTakeFirstOrThrow()
      return JSON.parse(row.sides) as { role: string; submittedAtUs?: number }[]
    }
    assert.equal((await sidesRow()).find((side) => side.role === 'to')?.submittedAtUs, undefined)

    clock.advance(delayMs + 100)
    await app.workers.runDue()
    const halfway = await details(client, 'transfer', initiated.token)
    assert.equal(halfway.from.status, 'succeeded')
    assert.equal(halfway.to.status, 'pending')
    assert.equal(halfway.status, 'pending', 'pending while a side is in flight')
    assert.ok((await sidesRow()).find((side) => side.role === 'to')?.submittedAtUs, 'to was submitted')

    clock.advance(delayMs + 100)
    await app.workers.runDue()
    const done = await details(client, 'transfer', initiated.token)
    assert.equal(done.status, 'succeeded')
    assert.equal(done.to.status, 'succeeded')
    assert.equal(typeof done.completionDate, 'string')
    const entries = await entriesOf(client, initiated.token)
    const summary = entries.map((entry) => `${entry.type}:${entry.status}:${entry.amount}`).sort()
    assert.deepEqual(
      summary,
      [
        `cash-in:succeeded:${done.from.cashAmount}`,
        `cash-out:succeeded:${done.to.cashAmount}`,
        `reversal:canceled:${done.from.cashAmount}`,
      ].sort(),
    )
    assert.deepEqual(await xofBalance(app, merchant.id), {
      posted: opening.posted + done.from.cashAmount - done.to.cashAmount,
      held: opening.held,
    })
  })

  test('transfer: a to side 902 after the from side succeeded ends the transfer failed, from refunded', async () => {
    const { merchant, client } = await merchantWithClient(app)
    const opening = await xofBalance(app, merchant.id)
    const { token } = await initiate(client, 'transfer', transferBody('900', '902', unusedCallback))

    clock.advance(delayMs + 100)
    await app.workers.runDue()
    const halfway = await details(client, 'transfer', token)
    assert.equal(halfway.from.status, 'succeeded')
    assert.equal(
      halfway.to.status,
      'pending',
      'the to side 902 fails a delay after it started, and it starts when from succeeded',
    )

    clock.advance(delayMs + 100)
    await app.workers.runDue()
    const done = await details(client, 'transfer', token)
    assert.equal(done.status, 'failed')
    assert.equal(done.to.status, 'failed')
    assert.equal(done.failureReason?.code, 'insufficient_funds')
    const entries = await entriesOf(client, token)
    const summary = entries.map((entry) => `${entry.type}:${entry.status}:${entry.amount}`).sort()
    assert.deepEqual(
      summary,
      [
        `cash-in:succeeded:${done.from.cashAmount}`,
        `cash-out:canceled:${done.to.cashAmount}`,
        `reversal:succeeded:${done.from.cashAmount}`,
      ].sort(),
      'the refund is a succeeded reversal of what was credited',
    )
    assert.deepEqual(await xofBalance(app, merchant.id), opening, 'no money is created or lost')
  })

  test('transfer: a from side 902 ends the transfer failed and never starts the to side', async () => {
    const { merchant, client } = await merchantWithClient(app)
    const opening = await xofBalance(app, merchant.id)
    const { token } = await initiate(client, 'transfer', transferBody('902', '001', unusedCallback))

    clock.advance(delayMs + 100)
    await app.workers.runDue()
    const done = await details(client, 'transfer', token)
    assert.equal(done.status, 'failed')
    assert.equal(done.from.status, 'failed')
    assert.notEqual(done.to.status, 'succeeded', 'nothing is paid out')
    assert.notEqual(done.to.status, 'pending')
    const entries = await entriesOf(client, token)
    assert.deepEqual(
      entries.map((entry) => `${entry.type}:${entry.status}`),
      ['cash-out:canceled'],
      'only the released hold of the to side',
    )
    assert.deepEqual(await xofBalance(app, merchant.id), opening)
  })
})
