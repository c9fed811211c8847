import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startMtnMomoSimulator } from '../../src/simulators/mtn-momo/mtn-momo-simulator.ts'
import type { RunningSimulator } from '../../src/simulators/simulator.ts'
import type { ApiClient, TestApp } from '../support/app.ts'
import { type LiveApp, operatorReferenceOf, settledRecord, startLiveApp } from '../support/live.ts'
import { describeEachStore } from '../support/stores.ts'
import { waitFor } from '../support/wait.ts'

/**
 * Live mode through the MTN MoMo adapter (issue 10), against the MTN simulator as a real server:
 * RequestToPay for cash-in, Transfer for cash-out, the side's operator reference as X-Reference-Id,
 * unsigned callbacks confirmed by a status check, polling when no callback comes.
 */

const customer = (ending: string) => ({ phoneNumber: `2250700000${ending}` })
let sequence = 0

describeEachStore('live mode: MTN MoMo', (store) => {
  let simulator: RunningSimulator
  let running: LiveApp
  let app: TestApp
  let live: ApiClient

  before(async () => {
    running = await startLiveApp(store(), async () => {
      simulator = await startMtnMomoSimulator({ settleDelayMs: 100, hangMs: 10_500 })
      return [{ simulator, channel: 'mtn-momo', countries: ['CI'] }]
    })
    ;({ app, live } = running)
  })
  after(() => running?.close())

  const collect = (ending: string, amount = 5000) =>
    live.post('/api/v1/collect', {
      amount,
      channel: 'mtn-momo',
      country: 'CI',
      customer: customer(ending),
      merchantReference: `live-${sequence++}`,
      callbackUrl: 'https://merchant.example/callback',
    })

  const settled = (kind: string, token: string, withinMs?: number) =>
    settledRecord(running, kind, token, withinMs)

  const requestsTo = (path: string, reference: string) =>
    simulator.requests.filter(
      (request) =>
        request.method === 'POST' && request.url === path && request.headers['x-reference-id'] === reference,
    )

  const xofBalance = async () =>
    (await live.get('/api/v1/balance')).body.data.balances.find(
      (entry: { currency: string }) => entry.currency === 'XOF',
    )

  const eventTypesOf = async (token: string): Promise<string[]> =>
    (await live.get('/api/v1/events', { token })).body.data.events.map(
      (event: { type: string }) => event.type,
    )

  const tokenRequests = (product: string) =>
    simulator.requests.filter((request) => request.method === 'POST' && request.url === `/${product}/token/`)
      .length

  /** The status MTN holds for a reference, read through the simulator's control path. */
  const mtnStatusOf = async (reference: string) =>
    (
      (await (await fetch(`${simulator.url}/_simulator/transactions/${reference}`)).json()) as {
        status: string
      }[]
    )[0]?.status

  /** An unsigned notification at the X-Callback-Url Sika gave MTN, claiming what the test likes. */
  const notify = (token: string, body: Record<string, unknown>) =>
    fetch(`${app.url}/providers/mtn-momo/notifications?token=${token}&role=main`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })

  test('a collect is a RequestToPay: pending, then succeeded by the callback confirmed with a status check', async () => {
    const response = await collect('123')
    assert.equal(response.status, 200, response.text)
    const record = response.body.data.collect
    assert.equal(record.status, 'pending')
    const reference = await operatorReferenceOf(app, record.token)
    assert.match(reference, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    const [sent] = requestsTo('/collection/v1_0/requesttopay', reference)
    assert.ok(sent, 'MTN received the RequestToPay under the side’s operator reference')
    const body = JSON.parse(sent.body)
    assert.deepEqual(
      { amount: body.amount, currency: body.currency, payer: body.payer, externalId: body.externalId },
      {
        amount: '5000',
        currency: 'XOF',
        payer: { partyIdType: 'MSISDN', partyId: '2250700000123' },
        externalId: record.token,
      },
    )
    assert.equal(
      new URL(String(sent.headers['x-callback-url'])).pathname,
      '/providers/mtn-momo/notifications',
    )
    const done = await settled('collect', record.token)
    assert.equal(done.status, 'succeeded')
    const balance = await xofBalance()
    assert.equal(balance.balance, 4925, 'the live balance is credited the cashAmount')
  })

  test('the same callback twice settles once: one credit, one collect.succeeded', async () => {
    const before = (await xofBalance()).balance
    const record = (await collect('123')).body.data.collect
    assert.equal((await settled('collect', record.token)).status, 'succeeded')
    // Sika's own poll may settle it before MTN's callback has gone out.
    await waitFor('MTN to send its callback', () =>
      simulator.callbacks.some((callback) => callback.url.includes(record.token)),
    )
    const sent = simulator.callbacks.find((callback) => callback.url.includes(record.token))
    assert.ok(sent, 'MTN sent its callback to Sika')
    const again = await fetch(sent.url, {
      method: sent.method,
      headers: { 'content-type': 'application/json' },
      body: sent.body,
    })
    assert.equal(again.status, 200)
    assert.equal((await live.get(`/api/v1/collect/${record.token}`)).body.data.collect.status, 'succeeded')
    assert.equal((await xofBalance()).balance - before, 4925, 'credited once')
    assert.deepEqual((await eventTypesOf(record.token)).sort(), ['collect.pending', 'collect.succeeded'])
  })

  test('a decline is failed, a customer’s refusal or an expiry canceled, with MTN’s reason', async () => {
    const declined = await settled('collect', (await collect('101')).body.data.collect.token)
    assert.equal(declined.status, 'failed')
    assert.equal(declined.failureReason.code, 'mtn_not_enough_funds')
    const refused = await settled('collect', (await collect('102')).body.data.collect.token)
    assert.equal(refused.status, 'canceled')
    assert.equal(refused.failureReason.code, 'mtn_approval_rejected')
    const expired = await settled('collect', (await collect('103')).body.data.collect.token)
    assert.equal(expired.status, 'canceled')
    assert.equal(expired.failureReason.code, 'mtn_expired')
  })

  test('a callback that never comes: polling finds the outcome', async () => {
    const record = (await collect('105')).body.data.collect
    const done = await settled('collect', record.token, 10_000)
    assert.equal(done.status, 'succeeded')
    assert.equal(simulator.callbacks.filter((callback) => callback.url.includes(record.token)).length, 0)
  })

  test('MTN answers 500 yet took the request: pending, resolved by polling, never submitted twice', async () => {
    const record = (await collect('106')).body.data.collect
    assert.equal(record.status, 'pending')
    const done = await settled('collect', record.token, 10_000)
    assert.equal(done.status, 'succeeded')
    const reference = await operatorReferenceOf(app, record.token)
    assert.equal(requestsTo('/collection/v1_0/requesttopay', reference).length, 1)
  })

  test('MTN answers only after the 10 s timeout: its callback meanwhile settles it, never submitted twice', async () => {
    const response = await collect('107')
    assert.equal(response.status, 200, response.text)
    const record = response.body.data.collect
    // MTN settled it and called back while its answer was still on the way: that callback's status
    // check found MTN's record of the payment, which answers the submission; it must not hand the
    // side to MTN a second time.
    assert.equal(record.status, 'succeeded', 'settled by the callback while the POST hung')
    const done = await settled('collect', record.token, 10_000)
    assert.equal(done.status, 'succeeded')
    const reference = await operatorReferenceOf(app, record.token)
    assert.equal(requestsTo('/collection/v1_0/requesttopay', reference).length, 1)
  })

  test('a forged callback changes nothing until MTN confirms it', async () => {
    const record = (await collect('104')).body.data.collect
    const forged = await notify(record.token, {
      externalId: record.token,
      status: 'SUCCESSFUL',
      financialTransactionId: '1',
    })
    assert.equal(forged.status, 200)
    const now = (await live.get(`/api/v1/collect/${record.token}`)).body.data.collect
    assert.equal(now.status, 'pending', 'MTN says it is still pending')
  })

  test('an unsigned callback only triggers a status check: MTN’s answer settles, not the body', async () => {
    const record = (await collect('105')).body.data.collect
    const reference = await operatorReferenceOf(app, record.token)
    await waitFor('MTN to complete the payment', async () => (await mtnStatusOf(reference)) === 'SUCCESSFUL')
    const hint = await notify(record.token, {
      externalId: record.token,
      status: 'FAILED',
      reason: 'NOT_ALLOWED',
    })
    assert.equal(hint.status, 200)
    const now = (await live.get(`/api/v1/collect/${record.token}`)).body.data.collect
    assert.equal(now.status, 'succeeded', 'what MTN’s status endpoint says')
  })

  test('an access token that expires mid-run is renewed once, and the payment goes through', async () => {
    const record = (await collect('105')).body.data.collect
    const issued = tokenRequests('collection')
    simulator.expireAccessTokens()
    const done = await settled('collect', record.token)
    assert.equal(done.status, 'succeeded', 'the status check renewed its token and found the payment')
    assert.equal(tokenRequests('collection'), issued + 1, 'one new token')
    simulator.expireAccessTokens()
    const next = await settled('collect', (await collect('123')).body.data.collect.token)
    assert.equal(next.status, 'succeeded', 'a RequestToPay renews it too')
    assert.equal(tokenRequests('collection'), issued + 2)
  })

  test('a payout is a Transfer from the live balance; one the balance cannot cover calls no operator', async () => {
    const before = simulator.requests.length
    const payOut = (amount: number) =>
      live.post('/api/v1/disbursement', {
        amount,
        channel: 'mtn-momo',
        country: 'CI',
        customer: customer('124'),
        merchantReference: `payout-${sequence++}`,
        callbackUrl: 'https://merchant.example/callback',
      })
    const refused = await payOut(1_000_000)
    assert.equal(refused.status, 422, refused.text)
    assert.equal(refused.body.code, 'insufficient_balance')
    assert.equal(simulator.requests.length, before, 'no operator call')

    const payout = await payOut(1000)
    assert.equal(payout.status, 200, payout.text)
    const reference = await operatorReferenceOf(app, payout.body.data.disbursement.token)
    const [sent] = requestsTo('/disbursement/v1_0/transfer', reference)
    assert.ok(sent, 'MTN received the Transfer')
    assert.deepEqual(JSON.parse(sent.body).payee, { partyIdType: 'MSISDN', partyId: '2250700000124' })
    const done = await settled('disbursement', payout.body.data.disbursement.token)
    assert.equal(done.status, 'succeeded')
  })
})
