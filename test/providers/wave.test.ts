import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startMtnMomoSimulator } from '../../src/simulators/mtn-momo/mtn-momo-simulator.ts'
import type { RunningSimulator } from '../../src/simulators/simulator.ts'
import { startWaveSimulator } from '../../src/simulators/wave/wave-simulator.ts'
import type { ApiClient, TestApp } from '../support/app.ts'
import { type LiveApp, settledRecord, startLiveApp } from '../support/live.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * Live mode through the Wave adapter (issue 10), against the Wave simulator as a real server: a
 * collect is a checkout session paid on Wave's page (its wave_launch_url the record's
 * redirectUrl), a payout a Wave payout, webhooks verified by Wave-Signature and then confirmed.
 * And a live transfer from an MTN MoMo CI collect to a Wave SN payout.
 */

let sequence = 0

describeEachStore('live mode: Wave', (store) => {
  let wave: RunningSimulator
  let running: LiveApp
  let app: TestApp
  let live: ApiClient

  before(async () => {
    running = await startLiveApp(store(), async (publicBaseUrl) => {
      wave = await startWaveSimulator({
        settleDelayMs: 100,
        webhookUrl: `${publicBaseUrl}/providers/wave/notifications`,
      })
      const mtn = await startMtnMomoSimulator({ settleDelayMs: 100 })
      return [
        { simulator: wave, channel: 'wave', countries: ['SN'] },
        { simulator: mtn, channel: 'mtn-momo', countries: ['CI'] },
      ]
    })
    ;({ app, live } = running)
  })
  after(() => running?.close())

  const initiate = (kind: string, ending: string, amount: number, extra: Record<string, unknown> = {}) =>
    live.post(`/api/v1/${kind}`, {
      amount,
      channel: 'wave',
      country: 'SN',
      customer: { phoneNumber: `+221770000${ending}` },
      merchantReference: `wave-${sequence++}`,
      callbackUrl: 'https://merchant.example/callback',
      ...extra,
    })

  const settled = (kind: string, token: string, withinMs?: number) =>
    settledRecord(running, kind, token, withinMs)

  async function sessionOf(token: string): Promise<Record<string, any>> {
    const sessions = (await (await fetch(`${wave.url}/_simulator/sessions`)).json()) as any
    const list = (Array.isArray(sessions) ? sessions : (sessions.sessions ?? sessions.result ?? [])) as any[]
    const found = list.find(
      (session) => (session.client_reference ?? session.view?.client_reference) === `${token}.main`,
    )
    assert.ok(found, `a Wave checkout session for ${token}`)
    return found.view ?? found
  }

  test('a collect is a Wave checkout: pending with wave_launch_url, paid on Wave’s page, confirmed by the webhook', async () => {
    const response = await initiate('collect', '123', 5000, { succeededUrl: 'https://merchant.example/paid' })
    assert.equal(response.status, 200, response.text)
    const record = response.body.data.collect
    assert.equal(record.status, 'pending')
    const session = await sessionOf(record.token)
    assert.equal(record.redirectUrl, session.wave_launch_url)
    assert.equal(session.amount, '5000')
    const paid = await fetch(`${wave.url}/_simulator/sessions/${session.id}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mobile: '+221770000123' }),
    })
    assert.ok(paid.ok, await paid.text())
    const done = await settled('collect', record.token)
    assert.equal(done.status, 'succeeded')
    // The same signed webhook again (Wave may send duplicates): accepted, and it settles nothing twice.
    const sent = wave.callbacks.find((callback) => callback.body.includes(`${record.token}.main`))
    assert.ok(sent, 'Wave sent its webhook to Sika')
    assert.equal(sent.status, 200)
    const replayed = await fetch(sent.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'wave-signature': String(sent.headers['wave-signature']),
      },
      body: sent.body,
    })
    assert.equal(replayed.status, 200)
    const events = (await live.get('/api/v1/events', { token: record.token })).body.data.events
    assert.deepEqual(events.map((event: { type: string }) => event.type).sort(), [
      'collect.pending',
      'collect.succeeded',
    ])
    // Wave sends the customer back to Sika, which sends them on to the merchant's page for the status.
    const back = await fetch(`${app.url}/checkout/${record.token}/return`, { redirect: 'manual' })
    assert.equal(back.status, 303)
    assert.match(String(back.headers.get('location')), /^https:\/\/merchant\.example\/paid\?token=/)
  })

  test('a webhook with a bad signature is a 401 and changes nothing', async () => {
    const record = (await initiate('collect', '124', 1000)).body.data.collect
    const body = JSON.stringify({
      id: 'AE_forged',
      type: 'checkout.session.completed',
      data: { client_reference: `${record.token}.main`, payment_status: 'succeeded' },
    })
    const forged = await fetch(`${app.url}/providers/wave/notifications`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'wave-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`,
      },
      body,
    })
    assert.equal(forged.status, 401)
    const now = (await live.get(`/api/v1/collect/${record.token}`)).body.data.collect
    assert.equal(now.status, 'pending')
  })

  test('a payout is a Wave payout from the live balance; a declined one is failed and its hold released', async () => {
    const payout = await initiate('disbursement', '125', 1000)
    assert.equal(payout.status, 200, payout.text)
    const done = await settled('disbursement', payout.body.data.disbursement.token)
    assert.equal(done.status, 'succeeded')
    const declined = await initiate('disbursement', '101', 1000)
    assert.equal(declined.status, 200, declined.text)
    const failed = await settled('disbursement', declined.body.data.disbursement.token)
    assert.equal(failed.status, 'failed')
    const balance = (await live.get('/api/v1/balance')).body.data.balances.find(
      (entry: { currency: string }) => entry.currency === 'XOF',
    )
    assert.equal(balance.held, 0, 'the failed payout’s hold is released')
  })

  test('a live transfer: an MTN MoMo CI collect, then a Wave SN payout', async () => {
    const response = await live.post('/api/v1/transfer', {
      from: { amount: 3000, channel: 'mtn-momo', country: 'CI', customer: { phoneNumber: '2250700000123' } },
      to: { amount: 2000, channel: 'wave', country: 'SN', customer: { phoneNumber: '+221770000126' } },
      merchantReference: `transfer-${sequence++}`,
      callbackUrl: 'https://merchant.example/callback',
    })
    assert.equal(response.status, 200, response.text)
    const done = await settled('transfer', response.body.data.transfer.token, 10_000)
    assert.equal(done.status, 'succeeded', JSON.stringify(done))
    assert.equal(done.from.status, 'succeeded')
    assert.equal(done.to.status, 'succeeded')
  })
})
