import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startApp, type TestApp } from './support/app.ts'
import { xofBalance } from './support/ledger.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * CONTRACT.md, Pricing (transfer), Balances and the ledger, Statuses (transfer): `from` is
 * priced as a collect and `to` as a disbursement; the `to` side's cashAmount is held at
 * initiation; `to` is attempted only once `from` succeeded; a `to` that fails after `from`
 * succeeded refunds the `from` customer and the transfer ends `failed`.
 */

const environment = { RATE_LIMIT_PER_SECOND: '0', SANDBOX_DELAY_MS: '3600000', OPERATION_TTL: '2h' }
const callbackUrl = 'http://127.0.0.1:9/callback'
const phone = (suffix: string) => `2250700${suffix}`

// `from`: orange-money collect, 1.5 % borne by the merchant. `to`: wave disbursement, 0.5 %.
const from = { amount: 10_000, channel: 'orange-money', country: 'CI' }
const to = { amount: 5_000, channel: 'wave', country: 'CI' }
const fromPriced = {
  amount: 10_000,
  pricing: { percentageFee: 1.5, additionalFee: 0, feesAmount: 150, supportedByAccount: true },
  cashAmount: 9_850,
  transactionAmount: 10_000,
}
const toPriced = {
  amount: 5_000,
  pricing: { percentageFee: 0.5, additionalFee: 0, feesAmount: 25, supportedByAccount: true },
  cashAmount: 5_025,
  transactionAmount: 5_000,
}

type Entry = { type: string; status: string; amount: number }
const cashIn = (status: string): Entry => ({ type: 'cash-in', status, amount: 9_850 })
const cashOut = (status: string): Entry => ({ type: 'cash-out', status, amount: 5_025 })
const reversal = (status: string): Entry => ({ type: 'reversal', status, amount: 9_850 })

const ok = '123'
const cases: {
  from: string
  to: string
  status: string
  fromStatus: string
  /** undefined: not attempted, so final without having moved money. */
  toStatus: string | undefined
  entries: Entry[]
  posted: number
  held: number
}[] = [
  {
    from: ok,
    to: ok,
    status: 'succeeded',
    fromStatus: 'succeeded',
    toStatus: 'succeeded',
    entries: [cashIn('succeeded'), cashOut('succeeded'), reversal('canceled')],
    posted: 9_850 - 5_025,
    held: 0,
  },
  {
    from: '901',
    to: ok,
    status: 'failed',
    fromStatus: 'failed',
    toStatus: undefined,
    entries: [cashOut('canceled')],
    posted: 0,
    held: 0,
  },
  {
    from: '904',
    to: ok,
    status: 'error',
    fromStatus: 'error',
    toStatus: undefined,
    entries: [cashOut('canceled')],
    posted: 0,
    held: 0,
  },
  {
    from: ok,
    to: '901',
    status: 'failed',
    fromStatus: 'succeeded',
    toStatus: 'failed',
    entries: [cashIn('succeeded'), cashOut('canceled'), reversal('succeeded')],
    posted: 0,
    held: 0,
  },
  {
    from: ok,
    to: '904',
    status: 'failed',
    fromStatus: 'succeeded',
    toStatus: 'error',
    entries: [cashIn('succeeded'), cashOut('canceled'), reversal('succeeded')],
    posted: 0,
    held: 0,
  },
  {
    from: '900',
    to: ok,
    status: 'pending',
    fromStatus: 'pending',
    toStatus: 'pending',
    entries: [cashOut('pending')],
    posted: 0,
    held: 5_025,
  },
  {
    from: ok,
    to: '900',
    status: 'pending',
    fromStatus: 'succeeded',
    toStatus: 'pending',
    entries: [cashIn('succeeded'), cashOut('pending'), reversal('pending')],
    posted: 9_850,
    held: 5_025 + 9_850,
  },
]

const isFinal = (status: string) => status !== 'pending'

describeEachStore('transfer: from outcome x to outcome', (store) => {
  let app: TestApp
  before(async () => {
    app = await startApp(store(), { environment })
  })
  after(() => app.close())

  for (const row of cases) {
    const label = (suffix: string) => (suffix === ok ? 'ok' : suffix)
    test(`from ${label(row.from)}, to ${label(row.to)}: ${row.status}`, async () => {
      const merchant = await app.createMerchant()
      const client = app.client(merchant.sandbox)
      const opening = await xofBalance(app, merchant.id)

      const response = await client.post('/api/v1/transfer', {
        from: { ...from, customer: { phoneNumber: phone(row.from) } },
        to: { ...to, customer: { phoneNumber: phone(row.to) } },
        merchantReference: `transfer-${row.from}-${row.to}`,
        callbackUrl,
      })
      assert.equal(response.status, 200, response.text)
      assert.equal(response.body.message, 'Transfer !')
      const transfer = response.body.data.transfer
      assert.equal(transfer.operation, 'transfer')
      assert.equal(transfer.status, row.status)
      assert.equal(transfer.currency, 'XOF')

      // Pricing: from as a collect, to as a disbursement, whatever the outcome.
      const { amount, pricing, cashAmount, transactionAmount } = transfer.from
      assert.deepEqual({ amount, pricing, cashAmount, transactionAmount }, fromPriced)
      const priced = transfer.to
      assert.deepEqual(
        {
          amount: priced.amount,
          pricing: priced.pricing,
          cashAmount: priced.cashAmount,
          transactionAmount: priced.transactionAmount,
        },
        toPriced,
      )

      // Side statuses (additive): a `to` side that was never attempted ends final without success.
      assert.equal(transfer.from.status, row.fromStatus)
      if (row.toStatus === undefined) {
        assert.ok(isFinal(transfer.to.status) && transfer.to.status !== 'succeeded', transfer.to.status)
      } else {
        assert.equal(transfer.to.status, row.toStatus)
      }

      // failureReason {code, message} on failed and error only; completionDate once final.
      if (row.status === 'failed' || row.status === 'error') {
        assert.equal(typeof transfer.failureReason?.code, 'string', 'failureReason.code')
        assert.ok(transfer.failureReason.code.length > 0)
        assert.equal(typeof transfer.failureReason.message, 'string', 'failureReason.message')
      } else {
        assert.equal(transfer.failureReason, undefined)
      }
      assert.equal(
        typeof transfer.completionDate === 'string',
        isFinal(row.status),
        'completionDate once final',
      )

      const details = await client.get(`/api/v1/transfer/${transfer.token}`)
      assert.equal(details.status, 200)
      assert.deepEqual(details.body.data.transfer, transfer, 'the details endpoint tells the same')

      // The ledger: what the transaction list shows, and what the balance holds.
      const listed = await client.get('/api/v1/transaction', { operation: 'transfer', perPage: 100 })
      const entries = (
        listed.body.data.transactions as { type: string; status: string; amount: number; token: string }[]
      )
        .map((entry) => {
          assert.equal(entry.token, transfer.token)
          return { type: entry.type, status: entry.status, amount: entry.amount }
        })
        .sort((a, b) => a.type.localeCompare(b.type))
      assert.deepEqual(entries, row.entries)
      const balance = await xofBalance(app, merchant.id)
      assert.deepEqual(
        { posted: balance.posted - opening.posted, held: balance.held - opening.held },
        { posted: row.posted, held: row.held },
      )
    })
  }

  test('a transfer ok/ok moves exactly from.cashAmount - to.cashAmount onto the balance', async () => {
    const merchant = await app.createMerchant()
    const client = app.client(merchant.sandbox)
    const opening = await xofBalance(app, merchant.id)
    const response = await client.post('/api/v1/transfer', {
      from: { amount: 123_457, channel: 'wave', country: 'SN', customer: { phoneNumber: phone(ok) } },
      to: { amount: 98_765, channel: 'orange-money', country: 'SN', customer: { phoneNumber: phone('777') } },
      merchantReference: 'odd-amounts',
      callbackUrl,
    })
    const transfer = response.body.data.transfer
    assert.equal(transfer.status, 'succeeded')
    // wave collect 1 %: 1,234.57 -> 1,235; orange-money disbursement 1 %: 987.65 -> 988.
    assert.equal(transfer.from.cashAmount, 123_457 - 1_235)
    assert.equal(transfer.to.cashAmount, 98_765 + 988)
    const balance = await xofBalance(app, merchant.id)
    assert.equal(balance.posted - opening.posted, transfer.from.cashAmount - transfer.to.cashAmount)
    assert.equal(balance.held, opening.held)
  })

  test('a transfer whose `to` side the available balance does not cover is refused and creates nothing', async () => {
    const merchant = await app.createMerchant()
    const client = app.client(merchant.sandbox)
    // The `from` money is not there yet when `to` is held: 1,000,000 covers 990,099 + 1 % = 1,000,000 only.
    const body = (toAmount: number, merchantReference: string) => ({
      from: { ...from, customer: { phoneNumber: phone(ok) } },
      to: { amount: toAmount, channel: 'orange-money', country: 'CI', customer: { phoneNumber: phone(ok) } },
      merchantReference,
      callbackUrl,
    })
    const refused = await client.post('/api/v1/transfer', body(990_100, 'too-much'))
    assert.equal(refused.status, 422)
    assert.equal(refused.body.code, 'insufficient_balance')
    const listed = await client.get('/api/v1/transfer')
    assert.equal(listed.body.meta.pagination.total, 0)
    const exact = await client.post('/api/v1/transfer', body(990_099, 'just-enough'))
    assert.equal(exact.status, 200, exact.text)
    assert.equal(exact.body.data.transfer.to.cashAmount, 1_000_000)
  })

  test('both sides must share a currency', async () => {
    const merchant = await app.createMerchant()
    const response = await app.client(merchant.sandbox).post('/api/v1/transfer', {
      from: { ...from, customer: { phoneNumber: phone(ok) } },
      to: { amount: 50, channel: 'mtn-momo', country: 'GH', customer: { phoneNumber: phone(ok) } },
      merchantReference: 'two-currencies',
      callbackUrl,
    })
    assert.equal(response.status, 422)
    assert.equal(response.body.code, 'validation_failed')
  })
})
