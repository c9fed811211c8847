import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startOrangeMoneySimulator } from '../../src/simulators/orange-money/orange-money-simulator.ts'
import type { RunningSimulator } from '../../src/simulators/simulator.ts'
import type { ApiClient } from '../support/app.ts'
import { type LiveApp, settledRecord, startLiveApp } from '../support/live.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * Live mode through the Orange Money Web Payment adapter (issue 10), against the Orange simulator:
 * a collect is a web payment paid on Orange's page (payment_url the record's redirectUrl), its
 * unsigned notification only triggers a transactionstatus check, and the API has no payout.
 */

let sequence = 0

describeEachStore('live mode: Orange Money', (store) => {
  let orange: RunningSimulator
  let running: LiveApp
  let live: ApiClient

  before(async () => {
    running = await startLiveApp(store(), async () => {
      orange = await startOrangeMoneySimulator({ settleDelayMs: 100 })
      return [{ simulator: orange, channel: 'orange-money', countries: ['CI'] }]
    })
    live = running.live
  })
  after(() => running?.close())

  const initiate = (kind: string, amount = 5000) =>
    live.post(`/api/v1/${kind}`, {
      amount,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: '0700000123' },
      merchantReference: `orange-${sequence++}`,
      callbackUrl: 'https://merchant.example/callback',
    })

  async function payAs(token: string, msisdn: string): Promise<void> {
    const payments = (await (await fetch(`${orange.url}/_simulator/payments`)).json()) as any
    const list = (Array.isArray(payments) ? payments : (payments.payments ?? [])) as any[]
    const payment = list.find((candidate) => (candidate.order_id ?? candidate.orderId) === token)
    assert.ok(payment, `an Orange web payment for ${token}: ${JSON.stringify(list[0])}`)
    const id = payment.id ?? payment.pay_token ?? payment.payToken
    const paid = await fetch(`${orange.url}/_simulator/payments/${id}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ msisdn }),
    })
    assert.ok(paid.ok, await paid.text())
  }

  test('a collect is a web payment: pending with payment_url, paid, confirmed by transactionstatus', async () => {
    const response = await initiate('collect')
    assert.equal(response.status, 200, response.text)
    const record = response.body.data.collect
    assert.equal(record.status, 'pending')
    assert.ok(record.redirectUrl?.startsWith(orange.url), 'the customer pays on Orange’s page')
    await payAs(record.token, '0700000123')
    const done = await settledRecord(running, 'collect', record.token)
    assert.equal(done.status, 'succeeded')
  })

  test('a declined payment is failed', async () => {
    const record = (await initiate('collect', 1000)).body.data.collect
    await payAs(record.token, '0700000101')
    const done = await settledRecord(running, 'collect', record.token)
    assert.equal(done.status, 'failed')
    assert.equal(done.failureReason.code, 'orange_failed')
  })

  test('a forged notification changes nothing', async () => {
    const record = (await initiate('collect', 1000)).body.data.collect
    const forged = await fetch(
      `${running.app.url}/providers/orange-money/notifications?token=${record.token}&role=main`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ status: 'SUCCESS', notif_token: 'forged', txnid: 'MP1' }),
      },
    )
    assert.equal(forged.status, 200)
    const now = (await live.get(`/api/v1/collect/${record.token}`)).body.data.collect
    assert.equal(now.status, 'pending', 'Orange says it is not paid')
  })
})
