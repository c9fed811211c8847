import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { createCallbackVerifier } from '../../src/providers/pawapay/signature.ts'
import {
  type RunningPawapaySimulator,
  startPawapaySimulator,
} from '../../src/simulators/pawapay/pawapay-simulator.ts'
import type { ApiClient, TestApp } from '../support/app.ts'
import { entriesOfOperation } from '../support/ledger.ts'
import { type LiveApp, operatorReferenceOf, settledRecord, startLiveApp } from '../support/live.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * Live mode through the pawaPay adapter (API v2), against the pawaPay simulator as a real server:
 * a collect is a deposit, a disbursement a payout, the side's operator reference their depositId or
 * payoutId; callbacks name the payment by that id only and are confirmed with a status check;
 * polling finds what no callback reports. Moov Money in Benin (pawaPay's MOOV_BEN).
 */

/** A Benin number in its 10-digit plan (01 + 8 digits); the last three digits pick the simulator's outcome. */
const customer = (ending: string) => ({ phoneNumber: `+2290197000${ending}` })
const pawapayDigits = (ending: string) => `2290197000${ending}`
const uuidV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
let sequence = 0

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function parsed(body: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(body)
  } catch {
    return undefined
  }
}

/** Shared by both suites: the app, its merchant's live keys, and what the simulator saw. */
function liveHelpers(current: () => { running: LiveApp; simulator: RunningPawapaySimulator }) {
  const collect = (ending: string, amount = 5000) =>
    current().running.live.post('/api/v1/collect', {
      amount,
      channel: 'moov-money',
      country: 'BJ',
      customer: customer(ending),
      merchantReference: `pawapay-${sequence++}`,
      callbackUrl: 'https://merchant.example/callback',
    })

  /** The record once it leaves pending without any scheduled work run: only a callback can have settled it. */
  async function settledByCallback(kind: string, token: string, withinMs = 5000) {
    const deadline = Date.now() + withinMs
    for (;;) {
      const record = (await current().running.live.get(`/api/v1/${kind}/${token}`)).body.data[kind]
      if (record.status !== 'pending' || Date.now() > deadline) return record
      await pause(50)
    }
  }

  const referenceOf = (token: string) => operatorReferenceOf(current().running.app, token)

  /** The initiations pawaPay received for this payment id. */
  const initiations = (path: '/v2/deposits' | '/v2/payouts', id: string) =>
    current().simulator.requests.filter((request) => {
      const body = request.method === 'POST' && request.url === path ? parsed(request.body) : undefined
      return body?.depositId === id || body?.payoutId === id
    })

  /** A callback as pawaPay would POST it, claiming what the test likes. */
  const notify = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${current().running.app.url}/providers/pawapay/notifications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=UTF-8', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })

  /** Waits for the callback pawaPay sent for this payment to be answered, and returns it. */
  async function callbackFor(id: string, withinMs = 5000) {
    const deadline = Date.now() + withinMs
    for (;;) {
      const sent = current().simulator.callbacks.find((callback) => parsed(callback.body)?.depositId === id)
      if (sent) return sent
      assert.ok(Date.now() < deadline, `pawaPay sent no callback for ${id}`)
      await pause(50)
    }
  }

  return { collect, settledByCallback, referenceOf, initiations, notify, callbackFor }
}

describeEachStore('live mode: pawaPay', (store) => {
  let simulator: RunningPawapaySimulator
  let running: LiveApp
  let app: TestApp
  let live: ApiClient

  before(async () => {
    running = await startLiveApp(store(), async (publicBaseUrl) => {
      const callbackUrl = `${publicBaseUrl}/providers/pawapay/notifications`
      simulator = await startPawapaySimulator({
        settleDelayMs: 100,
        hangMs: 10_500,
        depositCallbackUrl: callbackUrl,
        payoutCallbackUrl: callbackUrl,
      })
      return [{ simulator, channel: 'moov-money', countries: ['BJ'] }]
    })
    ;({ app, live } = running)
  })
  after(() => running?.close())

  const { collect, settledByCallback, referenceOf, initiations, notify, callbackFor } = liveHelpers(() => ({
    running,
    simulator,
  }))
  const settled = (kind: string, token: string, withinMs?: number) =>
    settledRecord(running, kind, token, withinMs)

  const xofBalance = async (): Promise<number> =>
    (await live.get('/api/v1/balance')).body.data.balances.find(
      (entry: { currency: string }) => entry.currency === 'XOF',
    )?.balance ?? 0

  const eventTypesOf = async (token: string): Promise<string[]> =>
    (await live.get('/api/v1/events', { token })).body.data.events.map(
      (event: { type: string }) => event.type,
    )

  const paymentAt = (id: string) => simulator.transactions().filter((payment) => payment.id === id)

  async function waitForPawapayStatus(id: string, status: string): Promise<void> {
    const deadline = Date.now() + 5000
    while (paymentAt(id)[0]?.status !== status) {
      assert.ok(Date.now() < deadline, `pawaPay has ${id} ${paymentAt(id)[0]?.status}, not ${status}`)
      await pause(50)
    }
  }

  test('a collect is a deposit: pending, then succeeded by the callback once a status check confirms it', async () => {
    const before = await xofBalance()
    const response = await collect('123')
    assert.equal(response.status, 200, response.text)
    const record = response.body.data.collect
    assert.equal(record.status, 'pending')
    const reference = await referenceOf(record.token)
    assert.match(reference, uuidV4)
    const [sent, ...again] = initiations('/v2/deposits', reference)
    assert.ok(sent, 'pawaPay received the deposit under the side’s operator reference')
    assert.equal(again.length, 0)
    assert.equal(sent.headers.authorization, `Bearer ${simulator.apiToken}`)
    assert.deepEqual(JSON.parse(sent.body), {
      depositId: reference,
      amount: '5000',
      currency: 'XOF',
      payer: { type: 'MMO', accountDetails: { phoneNumber: pawapayDigits('123'), provider: 'MOOV_BEN' } },
      clientReferenceId: `${record.token}.main`,
      customerMessage: 'Live merchant',
    })
    const done = await settledByCallback('collect', record.token)
    assert.equal(done.status, 'succeeded', 'the callback, confirmed, settled it: no scheduled work ran')
    const callback = await callbackFor(reference)
    assert.equal(callback.status, 200)
    assert.equal(
      JSON.parse(callback.body).clientReferenceId,
      undefined,
      'pawaPay’s callback names only its depositId',
    )
    const checked = simulator.requests.filter(
      (request) => request.method === 'GET' && request.url === `/v2/deposits/${reference}`,
    )
    assert.ok(checked.length >= 1, 'Sika asked pawaPay’s status endpoint')
    assert.equal(done.operatorReference, paymentAt(reference)[0]?.view.providerTransactionId)
    assert.equal(
      (await xofBalance()) - before,
      done.cashAmount,
      'the live balance is credited the cashAmount',
    )
  })

  test('the same callback twice settles once: one ledger entry, one credit, one collect.succeeded', async () => {
    const record = (await collect('123')).body.data.collect
    assert.equal((await settledByCallback('collect', record.token)).status, 'succeeded')
    const before = await xofBalance()
    const callback = await callbackFor(await referenceOf(record.token))
    const replayed = await notify(callback.body)
    assert.equal(replayed.status, 200, await replayed.text())
    assert.equal((await live.get(`/api/v1/collect/${record.token}`)).body.data.collect.status, 'succeeded')
    assert.equal(await xofBalance(), before, 'credited once')
    assert.equal((await entriesOfOperation(app, record.token)).length, 1, 'one ledger entry')
    assert.deepEqual((await eventTypesOf(record.token)).sort(), ['collect.pending', 'collect.succeeded'])
  })

  test('a decline is failed, a refusal or an unanswered PIN prompt canceled, with pawaPay’s reason', async () => {
    const cases = [
      ['101', 'failed', 'pawapay_insufficient_balance'],
      ['102', 'canceled', 'pawapay_payment_not_approved'],
      ['103', 'canceled', 'pawapay_payment_not_approved'],
      ['108', 'failed', 'pawapay_payer_not_found'],
    ] as const
    for (const [ending, status, code] of cases) {
      const record = (await collect(ending)).body.data.collect
      const done = await settledByCallback('collect', record.token)
      assert.equal(done.status, status, ending)
      assert.equal(done.failureReason.code, code, ending)
      assert.ok(done.failureReason.message.length > 0)
    }
  })

  test('a callback that never comes: polling finds the outcome', async () => {
    const record = (await collect('105')).body.data.collect
    const reference = await referenceOf(record.token)
    const done = await settled('collect', record.token, 10_000)
    assert.equal(done.status, 'succeeded')
    assert.equal(paymentAt(reference)[0]?.callbackSent, false, 'pawaPay never called back')
  })

  test('pawaPay answers 500 UNKNOWN_ERROR yet took the deposit: pending, resolved by polling, submitted once', async () => {
    const response = await collect('106')
    assert.equal(response.status, 200, response.text)
    const record = response.body.data.collect
    assert.equal(record.status, 'pending', 'a 500 is no outcome')
    const done = await settled('collect', record.token, 10_000)
    assert.equal(done.status, 'succeeded')
    const reference = await referenceOf(record.token)
    assert.equal(initiations('/v2/deposits', reference).length, 1, 'one POST')
    assert.equal(paymentAt(reference).length, 1, 'one deposit at pawaPay')
  })

  test('pawaPay answers only after the 10 s timeout: its callback meanwhile settles it, submitted once', async () => {
    const response = await collect('107')
    assert.equal(response.status, 200, response.text)
    const record = response.body.data.collect
    // pawaPay completed the deposit and called back while the POST hung: the status check found
    // pawaPay's record of it, which answers the submission.
    assert.equal(record.status, 'succeeded', 'settled by the callback while the POST hung')
    const done = await settled('collect', record.token, 10_000)
    assert.equal(done.status, 'succeeded')
    const reference = await referenceOf(record.token)
    assert.equal(initiations('/v2/deposits', reference).length, 1, 'one POST')
    assert.equal(paymentAt(reference).length, 1, 'one deposit at pawaPay')
  })

  test('a forged callback changes nothing: an unknown id, a malformed body, a status pawaPay contradicts', async () => {
    const unknown = await notify({ depositId: crypto.randomUUID(), status: 'COMPLETED' })
    assert.equal(unknown.status, 404, 'no side has that depositId')
    for (const malformed of [
      '{',
      '[]',
      JSON.stringify({ status: 'COMPLETED' }),
      JSON.stringify({ depositId: 'x' }),
    ]) {
      const answer = await notify(malformed)
      assert.equal(answer.status, 401, malformed)
    }
    const record = (await collect('104')).body.data.collect
    const reference = await referenceOf(record.token)
    const forged = await notify({
      depositId: reference,
      status: 'COMPLETED',
      amount: '5000.00',
      currency: 'XOF',
      providerTransactionId: '1',
    })
    assert.equal(forged.status, 200)
    const now = (await live.get(`/api/v1/collect/${record.token}`)).body.data.collect
    assert.equal(now.status, 'pending', 'pawaPay says it is still processing')
    assert.equal((await entriesOfOperation(app, record.token)).length, 0)
  })

  test('a callback is only a hint: pawaPay’s status endpoint settles, not the body', async () => {
    const record = (await collect('105')).body.data.collect
    const reference = await referenceOf(record.token)
    await waitForPawapayStatus(reference, 'COMPLETED')
    const hint = await notify({
      depositId: reference,
      status: 'FAILED',
      failureReason: { failureCode: 'INSUFFICIENT_BALANCE', failureMessage: 'forged' },
    })
    assert.equal(hint.status, 200)
    const now = (await live.get(`/api/v1/collect/${record.token}`)).body.data.collect
    assert.equal(now.status, 'succeeded', 'what pawaPay’s status endpoint says')
  })

  test('a payout is a pawaPay payout from the live balance; one the balance cannot cover calls no operator', async () => {
    const payOut = (amount: number, ending = '124') =>
      live.post('/api/v1/disbursement', {
        amount,
        channel: 'moov-money',
        country: 'BJ',
        customer: customer(ending),
        merchantReference: `pawapay-payout-${sequence++}`,
        callbackUrl: 'https://merchant.example/callback',
      })
    const seen = simulator.requests.length
    const refused = await payOut(1_000_000)
    assert.equal(refused.status, 422, refused.text)
    assert.equal(refused.body.code, 'insufficient_balance')
    assert.equal(simulator.requests.length, seen, 'no operator call')

    const before = await xofBalance()
    const payout = await payOut(1000)
    assert.equal(payout.status, 200, payout.text)
    const record = payout.body.data.disbursement
    const reference = await referenceOf(record.token)
    const [sent] = initiations('/v2/payouts', reference)
    assert.ok(sent, 'pawaPay received the payout under the side’s operator reference')
    assert.deepEqual(JSON.parse(sent.body), {
      payoutId: reference,
      amount: String(record.transactionAmount),
      currency: 'XOF',
      recipient: { type: 'MMO', accountDetails: { phoneNumber: pawapayDigits('124'), provider: 'MOOV_BEN' } },
      clientReferenceId: `${record.token}.main`,
      customerMessage: 'Live merchant',
    })
    const done = await settledByCallback('disbursement', record.token)
    assert.equal(done.status, 'succeeded')
    assert.equal(before - (await xofBalance()), done.cashAmount, 'the balance paid the payout')

    const declined = (await payOut(1000, '108')).body.data.disbursement
    const failed = await settledByCallback('disbursement', declined.token)
    assert.equal(failed.status, 'failed')
    assert.equal(failed.failureReason.code, 'pawapay_recipient_not_found')
    assert.equal(before - (await xofBalance()), done.cashAmount, 'the declined payout’s hold is released')
  })

  // Last: pawaPay tokens do not expire but can be revoked, and this app keeps the revoked one.
  test('a revoked API token: a new deposit ends in error as nothing was created; one in flight stays pending', async () => {
    const inFlight = (await collect('105')).body.data.collect
    const inFlightReference = await referenceOf(inFlight.token)
    simulator.expireAccessTokens()
    const unsure = await settled('collect', inFlight.token, 3000)
    assert.equal(unsure.status, 'pending', 'a refused status check says nothing about the payment')
    assert.ok(
      simulator.requests.some(
        (request) => request.method === 'GET' && request.url === `/v2/deposits/${inFlightReference}`,
      ),
      'Sika did ask',
    )

    const response = await collect('123')
    assert.equal(response.status, 200, response.text)
    const record = response.body.data.collect
    assert.equal(record.status, 'error')
    assert.equal(record.failureReason.code, 'pawapay_authentication_error')
    assert.match(record.failureReason.message, /token/)
    const reference = await referenceOf(record.token)
    assert.equal(initiations('/v2/deposits', reference).length, 1)
    assert.equal(paymentAt(reference).length, 0, 'pawaPay created nothing')
  })
})

describeEachStore('live mode: pawaPay signed callbacks', (store) => {
  let simulator: RunningPawapaySimulator
  let running: LiveApp

  before(async () => {
    running = await startLiveApp(store(), async (publicBaseUrl) => {
      simulator = await startPawapaySimulator({
        settleDelayMs: 100,
        signCallbacks: true,
        webhookUrl: `${publicBaseUrl}/providers/pawapay/notifications`,
      })
      const signed = simulator
      // The Dashboard's public key (GET /v2/public-key/http), given to Sika with the connection.
      const withKey = {
        ...signed,
        connection: (channel: string, countries: readonly string[]) => ({
          ...signed.connection(channel, countries),
          callbackPublicKey: signed.signingKey.publicKeyPem,
        }),
      }
      return [{ simulator: withKey, channel: 'moov-money', countries: ['BJ'] }]
    })
  })
  after(() => running?.close())

  const { collect, settledByCallback, referenceOf, notify, callbackFor } = liveHelpers(() => ({
    running,
    simulator,
  }))

  test('a callback signed with pawaPay’s key is heard; unsigned or tampered ones are 401', async () => {
    const record = (await collect('123')).body.data.collect
    const done = await settledByCallback('collect', record.token)
    assert.equal(done.status, 'succeeded', 'the signed callback was verified, then confirmed')
    const reference = await referenceOf(record.token)
    const callback = await callbackFor(reference)
    assert.equal(callback.status, 200)
    const signedHeaders = Object.fromEntries(
      Object.entries(callback.headers).filter(([name]) => name.toLowerCase() !== 'content-length'),
    )
    assert.match(
      Object.entries(signedHeaders).find(([name]) => name.toLowerCase() === 'signature-input')?.[1] ?? '',
      /sig-pp=/,
    )

    const pending = (await collect('104')).body.data.collect
    const pendingReference = await referenceOf(pending.token)
    const tampered = callback.body.replace(reference, pendingReference)
    const answers = [
      await notify(callback.body),
      await notify(tampered, signedHeaders),
      await notify(callback.body, { ...signedHeaders, 'content-digest': `sha-512=:${'A'.repeat(86)}==:` }),
    ]
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [401, 401, 401],
    )
    const replayed = await notify(callback.body, signedHeaders)
    assert.equal(replayed.status, 200, 'the genuine callback, again, is still authentic')
    const still = (await running.live.get(`/api/v1/collect/${pending.token}`)).body.data.collect
    assert.equal(still.status, 'pending')
  })

  test('a signature holds only for Sika’s own notification URL and the exact body', async () => {
    const record = (await collect('123')).body.data.collect
    assert.equal((await settledByCallback('collect', record.token)).status, 'succeeded')
    const callback = await callbackFor(await referenceOf(record.token))
    const headers = Object.fromEntries(
      Object.entries(callback.headers).map(([name, value]) => [name.toLowerCase(), value]),
    )
    const key = simulator.signingKey.publicKeyPem
    const ours = createCallbackVerifier(key, `${running.app.url}/providers/pawapay/notifications`)
    assert.equal(await ours({ headers, rawBody: callback.body }), true)
    const elsewhere = createCallbackVerifier(key, 'https://other.example/providers/pawapay/notifications')
    assert.equal(await elsewhere({ headers, rawBody: callback.body }), false, 'signed for another authority')
    assert.equal(await ours({ headers, rawBody: `${callback.body} ` }), false, 'another body')
  })
})
