import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { verifyStore } from '../src/app/verify-store.ts'
import { startApp, type TestApp } from './support/app.ts'
import { xofBalance } from './support/ledger.ts'
import { describeEachStore } from './support/stores.ts'
import { assertStoreConsistent } from './support/verify.ts'

/**
 * CONTRACT.md, Refunds: POST /api/v1/collect/{token}/refund refunds a succeeded collect, in full or
 * in part, to the customer who paid it; the refunds of one collect that may still move money never
 * add up to more than its amount, also under concurrency; a refund holds its amount at once, posts
 * a reversal on success and releases it otherwise.
 */

const environment = { RATE_LIMIT_PER_SECOND: '0', SANDBOX_DELAY_MS: '3600000', OPERATION_TTL: '2h' }
const callbackUrl = 'http://127.0.0.1:9/callback'
let sequence = 0
const reference = (name: string) => `${name}-${sequence++}`

describeEachStore('refunds', (store) => {
  let app: TestApp
  before(async () => {
    app = await startApp(store(), { environment })
  })
  after(() => app.close())

  async function merchantWithCollect(phoneEnding = '123', amount = 5000) {
    const merchant = await app.createMerchant()
    const client = app.client(merchant.sandbox)
    const collected = await client.post('/api/v1/collect', {
      amount,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: `2250700000${phoneEnding}`, fullName: 'Awa Kone' },
      merchantReference: reference('order'),
      callbackUrl,
    })
    assert.equal(collected.status, 200, collected.text)
    return { merchant, client, collect: collected.body.data.collect }
  }

  test('a full refund: the Refund record, a reversal posted, the collect’s refundedAmount', async () => {
    const { merchant, client, collect } = await merchantWithCollect()
    const before = await xofBalance(app, merchant.id)
    const merchantReference = reference('refund')
    const response = await client.post(`/api/v1/collect/${collect.token}/refund`, {
      merchantReference,
      metadata: { reason: 'damaged' },
    })
    assert.equal(response.status, 200, response.text)
    assert.equal(response.body.message, 'Refund !')
    const refund = response.body.data.refund
    assert.equal(refund.operation, 'refund')
    assert.match(refund.token, /^[a-z0-9]{5}(-[a-z0-9]{5}){4}$/)
    assert.notEqual(refund.token, collect.token)
    assert.equal(refund.status, 'succeeded')
    assert.equal(refund.amount, 5000, 'what is left to refund, when no amount is given')
    assert.equal(refund.currency, 'XOF')
    assert.equal(refund.collect, collect.token)
    assert.deepEqual(refund.customer, collect.customer)
    assert.equal(refund.merchantReference, merchantReference)
    assert.equal(typeof refund.initiationDate, 'string')
    assert.equal(refund.channel, 'orange-money')
    assert.equal(refund.country, 'CI')
    assert.deepEqual(refund.metadata, { reason: 'damaged' })

    const details = await client.get(`/api/v1/refund/${refund.token}`)
    assert.equal(details.status, 200)
    assert.deepEqual(details.body.data.refund, refund)
    const listed = await client.get('/api/v1/refund')
    assert.equal(listed.body.message, 'Refunds !')
    assert.deepEqual(listed.body.data.refunds, [refund])

    const collectNow = await client.get(`/api/v1/collect/${collect.token}`)
    assert.equal(collectNow.body.data.collect.refundedAmount, 5000)
    // The whole amount goes back to the customer; the collect's fee is not returned to the merchant.
    const after = await xofBalance(app, merchant.id)
    assert.deepEqual(after, { posted: before.posted - 5000, held: 0 })
    const movements = await client.get('/api/v1/transaction', { operation: 'refund' })
    const [row] = movements.body.data.transactions
    assert.equal(row.type, 'reversal')
    assert.equal(row.status, 'succeeded')
    assert.equal(row.amount, 5000)
    assert.equal(row.token, refund.token)
    assert.equal(row.merchantReference, merchantReference)

    const again = await client.post(`/api/v1/collect/${collect.token}/refund`, {
      merchantReference: reference('refund'),
    })
    assert.equal(again.status, 409, again.text)
    assert.equal(again.body.code, 'refund_exceeds_collected')
    assert.match(again.body.message, /0 XOF is left to refund/)
  })

  test('partial refunds add up to the collected amount and no further', async () => {
    const { client, collect } = await merchantWithCollect()
    const first = await client.post(`/api/v1/collect/${collect.token}/refund`, {
      merchantReference: reference('refund'),
      amount: 2000,
    })
    assert.equal(first.status, 200, first.text)
    assert.equal(first.body.data.refund.amount, 2000)
    const tooMuch = await client.post(`/api/v1/collect/${collect.token}/refund`, {
      merchantReference: reference('refund'),
      amount: 3001,
    })
    assert.equal(tooMuch.status, 409, tooMuch.text)
    assert.equal(tooMuch.body.code, 'refund_exceeds_collected')
    assert.match(tooMuch.body.message, /3000 XOF is left to refund/)
    const rest = await client.post(`/api/v1/collect/${collect.token}/refund`, {
      merchantReference: reference('refund'),
    })
    assert.equal(rest.status, 200, rest.text)
    assert.equal(rest.body.data.refund.amount, 3000)
    const collectNow = await client.get(`/api/v1/collect/${collect.token}`)
    assert.equal(collectNow.body.data.collect.refundedAmount, 5000)
  })

  /** The sandbox's hosted checkout (906): the customer decides, here by the page's own form. */
  async function decide(token: string, decision: 'pay' | 'decline') {
    const shown = await fetch(`${app.url}/checkout/${token}`)
    const html = await shown.text()
    const cookie = shown.headers.get('set-cookie')?.split(';')[0] ?? ''
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? ''
    const response = await fetch(`${app.url}/checkout/${token}/${decision}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ csrf, decision }).toString(),
    })
    assert.equal(response.status, 303, await response.text())
  }

  test('the sandbox table follows the refunded customer: a declined refund releases its hold and its claim', async () => {
    // The customer of ...906 decides on the checkout page, for the collect and then for its refund.
    const { merchant, client, collect } = await merchantWithCollect('906')
    assert.equal(collect.status, 'pending')
    await decide(collect.token, 'pay')
    const before = await xofBalance(app, merchant.id)
    const refund = await client.post(`/api/v1/collect/${collect.token}/refund`, {
      merchantReference: reference('refund'),
      amount: 4000,
    })
    assert.equal(refund.status, 200, refund.text)
    assert.equal(refund.body.data.refund.status, 'pending')
    assert.deepEqual(await xofBalance(app, merchant.id), { posted: before.posted, held: 4000 })
    const claimed = await client.get(`/api/v1/collect/${collect.token}`)
    assert.equal(claimed.body.data.collect.refundedAmount, 4000, 'a pending refund keeps its claim')
    const second = await client.post(`/api/v1/collect/${collect.token}/refund`, {
      merchantReference: reference('refund'),
      amount: 1001,
    })
    assert.equal(second.status, 409, 'the pending refund’s claim counts')

    await decide(refund.body.data.refund.token, 'decline')
    const declined = await client.get(`/api/v1/refund/${refund.body.data.refund.token}`)
    assert.equal(declined.body.data.refund.status, 'canceled')
    assert.deepEqual(await xofBalance(app, merchant.id), before, 'the hold is released')
    const released = await client.get(`/api/v1/collect/${collect.token}`)
    assert.equal(released.body.data.collect.refundedAmount, 0, 'and the claim given back')
    const whole = await client.post(`/api/v1/collect/${collect.token}/refund`, {
      merchantReference: reference('refund'),
    })
    assert.equal(whole.status, 200, whole.text)
    assert.equal(whole.body.data.refund.amount, 5000)
  })

  test('ten concurrent partial refunds: exactly what fits succeeds', async () => {
    const { merchant, client, collect } = await merchantWithCollect('123', 5000)
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        client.post(`/api/v1/collect/${collect.token}/refund`, {
          merchantReference: reference(`concurrent-${index}`),
          amount: 700,
        }),
      ),
    )
    const statuses = answers.map((answer) => answer.status).sort()
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 200, 409, 409, 409], JSON.stringify(statuses))
    for (const answer of answers.filter((candidate) => candidate.status === 409))
      assert.equal(answer.body.code, 'refund_exceeds_collected')
    const collectNow = await client.get(`/api/v1/collect/${collect.token}`)
    assert.equal(collectNow.body.data.collect.refundedAmount, 4900)
    const refunds = await client.get('/api/v1/refund', { perPage: 100 })
    assert.equal(refunds.body.meta.pagination.total, 7)
    const row = await app.db
      .selectFrom('operations')
      .select(['refunded_minor', 'refundable_minor'])
      .where('token', '=', collect.token)
      .executeTakeFirstOrThrow()
    assert.deepEqual(row, { refunded_minor: 4900, refundable_minor: 5000 })
    const balance = await xofBalance(app, merchant.id)
    assert.equal(balance.held, 0)
  })

  test('only a succeeded collect can be refunded: pending and failed ones are 422 not_refundable', async () => {
    for (const ending of ['900', '901']) {
      const { client, collect } = await merchantWithCollect(ending)
      const response = await client.post(`/api/v1/collect/${collect.token}/refund`, {
        merchantReference: reference('refund'),
      })
      assert.equal(response.status, 422, response.text)
      assert.equal(response.body.code, 'not_refundable')
      assert.match(response.body.message, new RegExp(`is ${collect.status}`))
    }
  })

  test('another merchant’s collect, the other mode’s, a refund’s token and an unknown one are all 404', async () => {
    const { merchant: owner, client, collect } = await merchantWithCollect()
    const stranger = await app.createMerchant()
    const body = { merchantReference: reference('refund') }
    const theirs = await app.client(stranger.sandbox).post(`/api/v1/collect/${collect.token}/refund`, body)
    assert.equal(theirs.status, 404, theirs.text)
    const otherMode = await app.client(owner.live).post(`/api/v1/collect/${collect.token}/refund`, body)
    assert.equal(otherMode.status, 404, otherMode.text)
    const refund = await client.post(`/api/v1/collect/${collect.token}/refund`, { ...body, amount: 100 })
    assert.equal(refund.status, 200, refund.text)
    const ofRefund = await client.post(`/api/v1/collect/${refund.body.data.refund.token}/refund`, {
      merchantReference: reference('refund'),
    })
    assert.equal(ofRefund.status, 404, ofRefund.text)
    const unknown = await client.post('/api/v1/collect/aaaaa-bbbbb-ccccc-ddddd-eeeee/refund', {
      merchantReference: reference('refund'),
    })
    assert.equal(unknown.status, 404)
  })

  test('the same merchantReference: the same body replays, another body is a 409 naming the refund', async () => {
    const { client, collect } = await merchantWithCollect()
    const body = { merchantReference: reference('refund'), amount: 1500 }
    const first = await client.post(`/api/v1/collect/${collect.token}/refund`, body)
    assert.equal(first.status, 200, first.text)
    const replay = await client.post(`/api/v1/collect/${collect.token}/refund`, body)
    assert.equal(replay.status, 200, replay.text)
    assert.deepEqual(replay.body.data.refund, first.body.data.refund)
    const changed = await client.post(`/api/v1/collect/${collect.token}/refund`, { ...body, amount: 1000 })
    assert.equal(changed.status, 409, changed.text)
    assert.equal(changed.body.code, 'duplicate_merchant_reference')
    assert.equal(changed.body.token, first.body.data.refund.token)
    const refunds = await client.get('/api/v1/refund')
    assert.equal(refunds.body.meta.pagination.total, 1)

    // A full refund replayed once nothing is left still returns itself.
    const whole = { merchantReference: reference('refund') }
    const rest = await client.post(`/api/v1/collect/${collect.token}/refund`, whole)
    assert.equal(rest.status, 200, rest.text)
    const restAgain = await client.post(`/api/v1/collect/${collect.token}/refund`, whole)
    assert.equal(restAgain.status, 200, restAgain.text)
    assert.equal(restAgain.body.data.refund.token, rest.body.data.refund.token)
    // A partial refund replayed once nothing is left: its claim is refused, its reference returns it.
    const late = await client.post(`/api/v1/collect/${collect.token}/refund`, body)
    assert.equal(late.status, 200, late.text)
    assert.deepEqual(late.body.data.refund, first.body.data.refund)
    const lateChanged = await client.post(`/api/v1/collect/${collect.token}/refund`, {
      ...body,
      amount: 1400,
    })
    assert.equal(lateChanged.status, 409, lateChanged.text)
    assert.equal(lateChanged.body.code, 'duplicate_merchant_reference')
  })

  test('a refund holds its amount: when the available balance cannot cover it, 422 and nothing written', async () => {
    const { merchant, client, collect } = await merchantWithCollect()
    // Opening 1,000,000 + 4,925 credited; a withdraw of 995,000 costs 999,975: 4,950 left.
    const withdraw = await client.post('/api/v1/withdraw', {
      amount: 995_000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: '2250700000123' },
      merchantReference: reference('withdraw'),
      callbackUrl,
    })
    assert.equal(withdraw.status, 200, withdraw.text)
    const before = await xofBalance(app, merchant.id)
    assert.equal(before.posted - before.held, 4950)
    const response = await client.post(`/api/v1/collect/${collect.token}/refund`, {
      merchantReference: reference('refund'),
    })
    assert.equal(response.status, 422, response.text)
    assert.equal(response.body.code, 'insufficient_balance')
    assert.match(response.body.message, /4950/)
    assert.match(response.body.message, /5000/)
    assert.deepEqual(await xofBalance(app, merchant.id), before)
    const collectNow = await client.get(`/api/v1/collect/${collect.token}`)
    assert.equal(collectNow.body.data.collect.refundedAmount, 0)
    const refunds = await client.get('/api/v1/refund')
    assert.equal(refunds.body.meta.pagination.total, 0)
  })

  test('a refund’s events go to its callbackUrl, or to the collect’s', async () => {
    const { client, collect } = await merchantWithCollect()
    const own = await client.post(`/api/v1/collect/${collect.token}/refund`, {
      merchantReference: reference('refund'),
      amount: 100,
      callbackUrl: 'http://127.0.0.1:9/refunds',
    })
    const inherited = await client.post(`/api/v1/collect/${collect.token}/refund`, {
      merchantReference: reference('refund'),
      amount: 100,
    })
    for (const [answer, url] of [
      [own, 'http://127.0.0.1:9/refunds'],
      [inherited, callbackUrl],
    ] as const) {
      const events = await client.get('/api/v1/events', { token: answer.body.data.refund.token })
      const types = events.body.data.events.map((event: { type: string }) => event.type).sort()
      assert.deepEqual(types, ['refund.pending', 'refund.succeeded'])
      const rows = await app.db
        .selectFrom('events')
        .innerJoin('operations', 'operations.id', 'events.operation_id')
        .select('events.callback_url')
        .where('operations.token', '=', answer.body.data.refund.token)
        .execute()
      for (const row of rows) assert.equal(row.callback_url, url)
    }
  })

  test('a refund amount with decimals the currency does not have is a 422 on amount, and nothing is written', async () => {
    const { client, collect } = await merchantWithCollect()
    const response = await client.post(`/api/v1/collect/${collect.token}/refund`, {
      merchantReference: reference('refund'),
      amount: 10.5,
    })
    assert.equal(response.status, 422, response.text)
    assert.deepEqual(response.body.errors, [
      { field: 'amount', code: 'invalid_precision', message: 'XOF amounts take no decimals.' },
    ])
    assert.equal((await client.get('/api/v1/refund')).body.meta.pagination.total, 0)
  })

  test('after all of it, sika verify finds every balance, claim and entry consistent', async () => {
    await assertStoreConsistent(app)
    // And it would name a collect whose recorded claims had drifted from its refunds.
    const { collect } = await merchantWithCollect()
    await app.db
      .updateTable('operations')
      .set({ refunded_minor: 1 })
      .where('token', '=', collect.token)
      .execute()
    const report = await verifyStore(app.context)
    assert.deepEqual(report.inconsistencies, [
      {
        subject: `operation ${collect.token}`,
        problem: 'records 1 refunded, but its live refunds hold or posted 0',
      },
    ])
    await app.db
      .updateTable('operations')
      .set({ refunded_minor: 0 })
      .where('token', '=', collect.token)
      .execute()
  })
})
