import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startApp, type TestApp } from './support/app.ts'
import { availableOf, xofBalance } from './support/ledger.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * CONTRACT.md, Sandbox: the customer phone number's last three digits choose the outcome.
 * Checked for each single kind against the initiation response, the details endpoint, the
 * transaction list and the balance (CONTRACT.md, Statuses and Balances and the ledger).
 */

// Pending sandbox operations stay pending while the suite runs.
const environment = { RATE_LIMIT_PER_SECOND: '0', SANDBOX_DELAY_MS: '3600000', OPERATION_TTL: '2h' }
const callbackUrl = 'http://127.0.0.1:9/callback'
const phone = (suffix: string) => `2250700${suffix}`

/** The contract's table, as the initiation response reports it. */
const sandboxTable: { suffix: string; status: string }[] = [
  { suffix: '123', status: 'succeeded' }, // any other
  { suffix: '899', status: 'succeeded' },
  { suffix: '907', status: 'succeeded' },
  { suffix: '900', status: 'pending' }, // then succeeded after SANDBOX_DELAY_MS
  { suffix: '901', status: 'failed' },
  { suffix: '902', status: 'pending' }, // then failed after the delay
  { suffix: '903', status: 'pending' }, // then canceled after the delay
  { suffix: '904', status: 'error' },
  { suffix: '905', status: 'pending' }, // until it expires
  { suffix: '906', status: 'pending' }, // the customer decides on the hosted checkout page
]

/** 10,000 XOF on orange-money in Côte d'Ivoire, under the default fee schedule. */
const kinds = [
  {
    kind: 'collect',
    direction: 'cash-in',
    pricing: { percentageFee: 1.5, additionalFee: 0, feesAmount: 150, supportedByAccount: true },
    cashAmount: 9_850,
    transactionAmount: 10_000,
  },
  {
    kind: 'recharge',
    direction: 'cash-in',
    pricing: { percentageFee: 0, additionalFee: 0, feesAmount: 0, supportedByAccount: false },
    cashAmount: 10_000,
    transactionAmount: 10_000,
  },
  {
    kind: 'disbursement',
    direction: 'cash-out',
    pricing: { percentageFee: 1, additionalFee: 0, feesAmount: 100, supportedByAccount: true },
    cashAmount: 10_100,
    transactionAmount: 10_000,
  },
  {
    kind: 'withdraw',
    direction: 'cash-out',
    pricing: { percentageFee: 0.5, additionalFee: 0, feesAmount: 50, supportedByAccount: true },
    cashAmount: 10_050,
    transactionAmount: 10_000,
  },
] as const

/**
 * What the balance shows for one operation: a cash-in is credited when it succeeds; a cash-out
 * is held at initiation, posted on success and released on any other final status.
 */
function expectedMoney(direction: 'cash-in' | 'cash-out', status: string, cashAmount: number) {
  if (direction === 'cash-in') {
    return status === 'succeeded'
      ? {
          entries: [{ type: 'cash-in', status: 'succeeded', amount: cashAmount }],
          posted: cashAmount,
          held: 0,
        }
      : { entries: [], posted: 0, held: 0 }
  }
  if (status === 'succeeded')
    return {
      entries: [{ type: 'cash-out', status: 'succeeded', amount: cashAmount }],
      posted: -cashAmount,
      held: 0,
    }
  if (status === 'pending')
    return {
      entries: [{ type: 'cash-out', status: 'pending', amount: cashAmount }],
      posted: 0,
      held: cashAmount,
    }
  return { entries: [{ type: 'cash-out', status: 'canceled', amount: cashAmount }], posted: 0, held: 0 }
}

describeEachStore('sandbox outcomes by phone suffix', (store) => {
  let app: TestApp
  before(async () => {
    app = await startApp(store(), { environment })
  })
  after(() => app.close())

  for (const kind of kinds) {
    for (const { suffix, status } of sandboxTable) {
      test(`${kind.kind} to a phone ending ${suffix}: ${status}`, async () => {
        const merchant = await app.createMerchant()
        const client = app.client(merchant.sandbox)
        const opening = await xofBalance(app, merchant.id)

        const response = await client.post(`/api/v1/${kind.kind}`, {
          amount: 10_000,
          channel: 'orange-money',
          country: 'CI',
          customer: { phoneNumber: phone(suffix), fullName: 'Koffi Mensah' },
          merchantReference: `sandbox-${suffix}`,
          callbackUrl,
        })
        assert.equal(response.status, 200, response.text)
        const record = response.body.data[kind.kind]
        assert.equal(record.operation, kind.kind)
        assert.equal(record.status, status)
        assert.deepEqual(
          {
            pricing: record.pricing,
            cashAmount: record.cashAmount,
            transactionAmount: record.transactionAmount,
          },
          { pricing: kind.pricing, cashAmount: kind.cashAmount, transactionAmount: kind.transactionAmount },
        )

        // failureReason {code, message} on failed and error; completionDate once final.
        if (status === 'failed' || status === 'error') {
          assert.deepEqual(Object.keys(record.failureReason ?? {}).sort(), ['code', 'message'])
          assert.equal(typeof record.failureReason.code, 'string')
          assert.ok(record.failureReason.code.length > 0)
          assert.equal(typeof record.failureReason.message, 'string')
          assert.ok(record.failureReason.message.length > 0)
        } else {
          assert.equal(record.failureReason, undefined, 'no failureReason')
        }
        if (status === 'pending')
          assert.equal(record.completionDate, undefined, 'no completionDate while pending')
        else assert.match(record.completionDate ?? '', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/)

        const details = await client.get(`/api/v1/${kind.kind}/${record.token}`)
        assert.equal(details.status, 200)
        assert.deepEqual(details.body.data[kind.kind], record, 'the details endpoint tells the same')

        const money = expectedMoney(kind.direction, status, kind.cashAmount)
        const listed = await client.get('/api/v1/transaction', { operation: kind.kind, perPage: 100 })
        const entries = (
          listed.body.data.transactions as { type: string; status: string; amount: number; token: string }[]
        )
          .filter((entry) => entry.token === record.token)
          .map(({ type, status, amount }) => ({ type, status, amount }))
        assert.deepEqual(entries, money.entries)
        const balance = await xofBalance(app, merchant.id)
        assert.deepEqual(
          { posted: balance.posted - opening.posted, held: balance.held - opening.held },
          { posted: money.posted, held: money.held },
        )
        assert.equal(availableOf(balance), availableOf(opening) + money.posted - money.held)
      })
    }
  }

  test('906: pending, with a redirectUrl to the hosted checkout page', async () => {
    const merchant = await app.createMerchant()
    const client = app.client(merchant.sandbox)
    for (const { kind } of kinds) {
      const response = await client.post(`/api/v1/${kind}`, {
        amount: 10_000,
        channel: 'orange-money',
        country: 'CI',
        customer: { phoneNumber: phone('906') },
        merchantReference: 'customer-decides',
        callbackUrl,
      })
      const record = response.body.data[kind]
      assert.equal(record.status, 'pending')
      assert.equal(typeof record.redirectUrl, 'string', `${kind}: redirectUrl is set`)
      assert.ok(record.redirectUrl.endsWith(`/checkout/${record.token}`), record.redirectUrl)
    }
  })
})
