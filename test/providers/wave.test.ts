import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { after, before, test } from 'node:test'
import { startMtnMomoSimulator } from '../../src/simulators/mtn-momo/mtn-momo-simulator.ts'
import type { RunningSimulator } from '../../src/simulators/simulator.ts'
import { startWaveSimulator } from '../../src/simulators/wave/wave-simulator.ts'
import type { ApiClient, TestApp } from '../support/app.ts'
import { type LiveApp, operatorReferenceOf, settledRecord, startLiveApp } from '../support/live.ts'
import { describeEachStore } from '../support/stores.ts'
import { waitFor } from '../support/wait.ts'

/**
 * Live mode through the Wave adapter (issue 10), against the Wave simulator as a real server: a
 * collect is a checkout session paid on Wave's page (its wave_launch_url the record's
 * redirectUrl), a payout a Wave payout, webhooks verified by Wave-Signature and then confirmed.
 * And a live transfer from an MTN MoMo CI collect to a Wave SN payout.
 */

let sequence = 0

/** The SN wallet's webhook secret; the CI wallet has its own, and Sika tries each connection's. */
const webhookSecret = `wave_sn_WHS_${'s'.repeat(43)}`

function signed(body: string): string {
  const timestamp = Math.floor(Date.now() / 1000)
  return `t=${timestamp},v1=${createHmac('sha256', webhookSecret).update(`${timestamp}${body}`).digest('hex')}`
}

describeEachStore('live mode: Wave', (store) => {
  let wave: RunningSimulator
  /** A second Wave wallet, serving CI, whose checkout sessions expire after one second. */
  let shortLived: RunningSimulator
  let running: LiveApp
  let app: TestApp
  let live: ApiClient

  before(async () => {
    running = await startLiveApp(store(), async (publicBaseUrl) => {
      const webhookUrl = `${publicBaseUrl}/providers/wave/notifications`
      wave = await startWaveSimulator({ settleDelayMs: 100, hangMs: 10_500, webhookUrl, webhookSecret })
      // Another wallet signs with its own secret: webhooks of both must verify.
      shortLived = await startWaveSimulator({
        checkoutLifetimeSeconds: 1,
        webhookUrl,
        webhookSecret: `wave_ci_WHS_${'c'.repeat(43)}`,
      })
      const mtn = await startMtnMomoSimulator({ settleDelayMs: 100 })
      return [
        { simulator: wave, channel: 'wave', countries: ['SN'] },
        { simulator: mtn, channel: 'mtn-momo', countries: ['CI'] },
        { simulator: shortLived, channel: 'wave', countries: ['CI'] },
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

  const xofBalance = async () =>
    (await live.get('/api/v1/balance')).body.data.balances.find(
      (entry: { currency: string }) => entry.currency === 'XOF',
    ) ?? { balance: 0, held: 0 }

  /** The customer acts on Wave's page: `pay` as a number, or `decline`. */
  async function actOnSession(id: string, action: 'pay' | 'decline', mobile?: string) {
    const acted = await fetch(`${wave.url}/_simulator/sessions/${id}/${action}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(mobile ? { mobile } : {}),
    })
    assert.ok(acted.ok, await acted.text())
  }

  const payoutPosts = (key: string) =>
    wave.requests.filter(
      (request) =>
        request.method === 'POST' &&
        request.url === '/v1/payout' &&
        request.headers['idempotency-key'] === key,
    )

  async function sessionOf(token: string, simulator = wave): Promise<Record<string, any>> {
    const sessions = (await (await fetch(`${simulator.url}/_simulator/sessions`)).json()) as any
    const list = (Array.isArray(sessions) ? sessions : (sessions.sessions ?? sessions.result ?? [])) as any[]
    const found = list.find(
      (session) => (session.client_reference ?? session.view?.client_reference) === `${token}.main`,
    )
    assert.ok(found, `a Wave checkout session for ${token}`)
    return found.view ?? found
  }

  test('a collect is a Wave checkout: pending with wave_launch_url, paid on Wave’s page, confirmed by the webhook', async () => {
    const before = (await xofBalance()).balance
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
    assert.equal((await xofBalance()).balance - before, 4950, 'credited once')
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

  test('a webhook with a bad signature, or none, is a 401 and changes nothing', async () => {
    const record = (await initiate('collect', '124', 1000)).body.data.collect
    const body = JSON.stringify({
      id: 'AE_forged',
      type: 'checkout.session.completed',
      data: { client_reference: `${record.token}.main`, payment_status: 'succeeded' },
    })
    const calls = wave.requests.length
    const forged = await fetch(`${app.url}/providers/wave/notifications`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'wave-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`,
      },
      body,
    })
    assert.equal(forged.status, 401)
    const unsigned = await fetch(`${app.url}/providers/wave/notifications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    })
    assert.equal(unsigned.status, 401)
    const now = (await live.get(`/api/v1/collect/${record.token}`)).body.data.collect
    assert.equal(now.status, 'pending')
    assert.equal(wave.requests.length, calls, 'not even a status check')
  })

  test('a correctly signed webhook is still only a hint: Wave’s session decides', async () => {
    const record = (await initiate('collect', '127', 1000)).body.data.collect
    const body = JSON.stringify({
      id: 'AE_signed',
      type: 'checkout.session.completed',
      data: { client_reference: `${record.token}.main`, payment_status: 'succeeded' },
    })
    const hint = await fetch(`${app.url}/providers/wave/notifications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'wave-signature': signed(body) },
      body,
    })
    assert.equal(hint.status, 200)
    const now = (await live.get(`/api/v1/collect/${record.token}`)).body.data.collect
    assert.equal(now.status, 'pending', 'the session is still open at Wave')
  })

  test('a failed attempt leaves the checkout open; the customer’s refusal cancels it with Wave’s reason', async () => {
    const record = (await initiate('collect', '128', 1000)).body.data.collect
    const session = await sessionOf(record.token)
    await actOnSession(session.id, 'pay', '+221770000101')
    await waitFor('Sika to take the payment_failed webhook', () =>
      wave.callbacks.some((callback) => callback.body.includes(record.token) && callback.status === 200),
    )
    const now = (await live.get(`/api/v1/collect/${record.token}`)).body.data.collect
    assert.equal(now.status, 'pending', 'the customer may try again')
    await actOnSession(session.id, 'decline')
    const done = await settled('collect', record.token)
    assert.equal(done.status, 'canceled')
    assert.equal(done.failureReason.code, 'wave_expired')
  })

  test('a checkout session whose when_expires passes unpaid is canceled', async () => {
    const response = await live.post('/api/v1/collect', {
      amount: 1000,
      channel: 'wave',
      country: 'CI',
      customer: { phoneNumber: '+2250700000123' },
      merchantReference: `wave-${sequence++}`,
      callbackUrl: 'https://merchant.example/callback',
    })
    assert.equal(response.status, 200, response.text)
    const record = response.body.data.collect
    const session = await sessionOf(record.token, shortLived)
    assert.equal(Date.parse(session.when_expires) - Date.parse(session.when_created), 1000)
    const done = await settled('collect', record.token)
    assert.equal(done.status, 'canceled')
    assert.equal(done.failureReason.code, 'wave_expired')
  })

  test('a webhook that never comes: polling finds the payment', async () => {
    const record = (await initiate('collect', '129', 1000)).body.data.collect
    await actOnSession((await sessionOf(record.token)).id, 'pay', '+221770000105')
    const done = await settled('collect', record.token)
    assert.equal(done.status, 'succeeded')
    assert.equal(wave.callbacks.filter((callback) => callback.body.includes(record.token)).length, 0)
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
    assert.equal(failed.failureReason.code, 'wave_insufficient_funds')
    assert.equal((await xofBalance()).held, 0, 'the failed payout’s hold is released')
  })

  test('Wave answers a payout 500 yet made it: pending, resolved by polling, never paid twice', async () => {
    const payout = await initiate('disbursement', '106', 1000)
    assert.equal(payout.status, 200, payout.text)
    const record = payout.body.data.disbursement
    assert.equal(record.status, 'pending')
    const done = await settled('disbursement', record.token)
    assert.equal(done.status, 'succeeded')
    assert.equal(payoutPosts(await operatorReferenceOf(app, record.token)).length, 1)
  })

  test('Wave answers a payout only after the 10 s timeout: pending, resolved by polling, never paid twice', async () => {
    const payout = await initiate('disbursement', '107', 1000)
    assert.equal(payout.status, 200, payout.text)
    const record = payout.body.data.disbursement
    assert.equal(record.status, 'pending', 'no answer is no outcome')
    const done = await settled('disbursement', record.token)
    assert.equal(done.status, 'succeeded')
    assert.equal(payoutPosts(await operatorReferenceOf(app, record.token)).length, 1)
  })

  // Wave's API key is static (no token to expire mid-run): a key Wave refuses is a clean error instead.
  test('an API key Wave refuses (401) is an error: nothing paid out, the hold released', async () => {
    const revoke = await fetch(`${wave.url}/_simulator/revoke-api-key`, { method: 'POST' })
    assert.equal(revoke.status, 204)
    try {
      const payout = await initiate('disbursement', '130', 1000)
      assert.equal(payout.status, 200, payout.text)
      const record = payout.body.data.disbursement
      assert.equal(record.status, 'error')
      assert.equal(record.failureReason.code, 'wave_api_key_revoked')
      assert.equal((await xofBalance()).held, 0, 'the hold is released')
    } finally {
      await fetch(`${wave.url}/_simulator/restore-api-key`, { method: 'POST' })
    }
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
