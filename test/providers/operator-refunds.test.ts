import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startMtnMomoSimulator } from '../../src/simulators/mtn-momo/mtn-momo-simulator.ts'
import { startPawapaySimulator } from '../../src/simulators/pawapay/pawapay-simulator.ts'
import type { RunningSimulator } from '../../src/simulators/simulator.ts'
import { startWaveSimulator } from '../../src/simulators/wave/wave-simulator.ts'
import type { ApiClient, TestApp } from '../support/app.ts'
import { type LiveApp, operatorReferenceOf, settledRecord, startLiveApp } from '../support/live.ts'
import { describeEachStore } from '../support/stores.ts'
import { assertStoreConsistent } from '../support/verify.ts'

/**
 * CONTRACT.md, Operators: live refunds go through the operators' own refund APIs, against the
 * refunded payment's reference (pawaPay POST /v2/refunds, MTN MoMo's disbursement refund, Wave's
 * refund of a whole checkout session; a part of a Wave payment is paid out). Every adapter sends
 * what its API asks for from the operation's own data: the customer's name, and the text the
 * customer sees. A notification that arrives while Sika's own POST is in flight is acted on as
 * soon as that POST answers.
 */

const webhookSecret = `wave_sn_WHS_${'s'.repeat(43)}`
let sequence = 0

type Operator = 'pawapay' | 'mtn' | 'wave'

const routes = {
  pawapay: { channel: 'moov-money', country: 'BJ', phone: (ending: string) => `+2290197000${ending}` },
  mtn: { channel: 'mtn-momo', country: 'CI', phone: (ending: string) => `+2250500000${ending}` },
  wave: { channel: 'wave', country: 'SN', phone: (ending: string) => `+221770000${ending}` },
} as const

const parsed = (body: string): Record<string, any> => {
  try {
    return JSON.parse(body)
  } catch {
    return {}
  }
}

describeEachStore('live mode: refunds through the operators, and what each operator is sent', (store) => {
  const simulators = {} as Record<Operator | 'pawapayQuick', RunningSimulator>
  let running: LiveApp
  let app: TestApp
  let live: ApiClient

  before(async () => {
    running = await startLiveApp(store(), async (publicBaseUrl) => {
      const notifications = (name: string) => `${publicBaseUrl}/providers/${name}/notifications`
      const pawapayCallbacks = {
        depositCallbackUrl: notifications('pawapay'),
        payoutCallbackUrl: notifications('pawapay'),
        refundCallbackUrl: notifications('pawapay'),
      }
      // 107 answers after 10.5 s, past Sika's 10 s timeout.
      simulators.pawapay = await startPawapaySimulator({
        settleDelayMs: 100,
        hangMs: 10_500,
        ...pawapayCallbacks,
      })
      // 107 answers after 3 s, and calls back as soon as the payment is done.
      simulators.pawapayQuick = await startPawapaySimulator({
        settleDelayMs: 100,
        hangMs: 3000,
        ...pawapayCallbacks,
      })
      simulators.mtn = await startMtnMomoSimulator({ settleDelayMs: 100, hangMs: 3000 })
      simulators.wave = await startWaveSimulator({
        settleDelayMs: 100,
        webhookUrl: notifications('wave'),
        webhookSecret,
      })
      return [
        { simulator: simulators.pawapay, channel: 'moov-money', countries: ['BJ'] },
        { simulator: simulators.pawapayQuick, channel: 'mtn-momo', countries: ['BJ'] },
        { simulator: simulators.mtn, channel: 'mtn-momo', countries: ['CI'] },
        { simulator: simulators.wave, channel: 'wave', countries: ['SN'] },
      ]
    })
    ;({ app, live } = running)
    // Live balances open at zero: a collect funds the refunds' and payouts' holds.
    const funding = await live.post('/api/v1/collect', {
      amount: 100_000,
      channel: 'moov-money',
      country: 'BJ',
      customer: { phoneNumber: routes.pawapay.phone('121') },
      merchantReference: 'funding',
      callbackUrl: 'https://merchant.example/callback',
    })
    assert.equal(funding.status, 200, funding.text)
    assert.equal((await settled('collect', funding.body.data.collect.token)).status, 'succeeded')
  })
  after(() => running?.close())

  const settled = (kind: string, token: string, withinMs = 10_000) =>
    settledRecord(running, kind, token, withinMs)

  const posts = (simulator: RunningSimulator, match: (url: string, body: Record<string, any>) => boolean) =>
    simulator.requests.filter(
      (request) => request.method === 'POST' && match(request.url, parsed(request.body)),
    )

  function initiate(kind: string, operator: Operator, ending: string, extra: Record<string, unknown> = {}) {
    const { channel, country, phone } = routes[operator]
    return live.post(`/api/v1/${kind}`, {
      amount: 5000,
      channel,
      country,
      customer: { phoneNumber: phone(ending), fullName: 'Awa Diop' },
      merchantReference: `${kind}-${sequence++}`,
      callbackUrl: 'https://merchant.example/callback',
      ...extra,
    })
  }

  /** A collect the customer paid: on Wave's page, by the simulator's control path. */
  async function paidCollect(operator: Operator, ending = '120') {
    const response = await initiate('collect', operator, ending)
    assert.equal(response.status, 200, response.text)
    const { token } = response.body.data.collect
    if (operator === 'wave') {
      const sessions = (await (await fetch(`${simulators.wave.url}/_simulator/sessions`)).json()) as any[]
      const session = sessions.find((entry) => entry.view?.client_reference === `${token}.main`)
      await fetch(`${simulators.wave.url}/_simulator/sessions/${session.id}/pay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
    }
    const done = await settled('collect', token, 15_000)
    assert.equal(done.status, 'succeeded', JSON.stringify(done))
    return { ...done, depositReference: await operatorReferenceOf(app, token) }
  }

  const refund = (token: string, amount?: number) =>
    live.post(`/api/v1/collect/${token}/refund`, {
      merchantReference: `refund-${sequence++}`,
      ...(amount === undefined ? {} : { amount }),
    })

  /** What the operator received that pays back the collect's customer. */
  function refundCalls(
    operator: Operator,
    collect: { depositReference: string; operatorReference?: string },
  ) {
    if (operator === 'pawapay')
      return posts(
        simulators.pawapay,
        (url, body) => url === '/v2/refunds' && body.depositId === collect.depositReference,
      )
    if (operator === 'mtn')
      return posts(
        simulators.mtn,
        (url, body) =>
          url === '/disbursement/v1_0/refund' && body.referenceIdToRefund === collect.depositReference,
      )
    return posts(
      simulators.wave,
      (url, body) =>
        url === `/v1/checkout/sessions/${collect.operatorReference}/refund` ||
        (url === '/v1/payout' && body.mobile === routes.wave.phone('120')),
    )
  }

  for (const operator of ['pawapay', 'mtn'] as const) {
    test(`${operator}: a partial, then a full refund of what is left, through its refund API; more is refused before any call`, async () => {
      const collect = await paidCollect(operator)
      const partial = await refund(collect.token, 2000)
      assert.equal(partial.status, 200, partial.text)
      assert.equal((await settled('refund', partial.body.data.refund.token)).status, 'succeeded')
      const rest = await refund(collect.token)
      assert.equal(rest.status, 200, rest.text)
      assert.equal(rest.body.data.refund.amount, 3000, 'what was left')
      assert.equal((await settled('refund', rest.body.data.refund.token)).status, 'succeeded')

      const calls = refundCalls(operator, collect)
      assert.deepEqual(
        calls.map((call) => parsed(call.body).amount),
        ['2000', '3000'],
        'each refund once, for its amount, against the collect',
      )
      if (operator === 'pawapay') {
        assert.deepEqual(Object.keys(parsed(calls[0]!.body)).sort(), [
          'amount',
          'clientReferenceId',
          'currency',
          'depositId',
          'refundId',
        ])
        assert.equal(
          parsed(calls[0]!.body).refundId,
          await operatorReferenceOf(app, partial.body.data.refund.token),
        )
      } else {
        assert.equal(
          calls[0]!.headers['x-reference-id'],
          await operatorReferenceOf(app, partial.body.data.refund.token),
        )
      }
      const payouts = posts(simulators[operator], (url) => url === '/v2/payouts' || url.endsWith('/transfer'))
      assert.equal(payouts.length, 0, 'no refund went out as a payout')

      const seen = simulators[operator].requests.length
      const more = await refund(collect.token, 1)
      assert.equal(more.status, 409, more.text)
      assert.equal(more.body.code, 'refund_exceeds_collected')
      assert.equal(simulators[operator].requests.length, seen, 'no call to the operator')
      await assertStoreConsistent(app)
    })
  }

  test('wave: a whole refund refunds the checkout session; a part of one is a payout of that part, to the customer by name', async () => {
    const whole = await paidCollect('wave')
    const full = await refund(whole.token)
    assert.equal(full.status, 200, full.text)
    assert.equal(full.body.data.refund.status, 'succeeded', 'Wave refunds a session at once')
    const sessionRefunds = posts(
      simulators.wave,
      (url) => url === `/v1/checkout/sessions/${whole.operatorReference}/refund`,
    )
    assert.equal(sessionRefunds.length, 1)

    const split = await paidCollect('wave')
    const part = await refund(split.token, 2000)
    assert.equal(part.status, 200, part.text)
    assert.equal((await settled('refund', part.body.data.refund.token)).status, 'succeeded')
    const reference = await operatorReferenceOf(app, part.body.data.refund.token)
    const payouts = posts(simulators.wave, (url) => url === '/v1/payout').filter(
      (request) => request.headers['idempotency-key'] === reference,
    )
    assert.equal(payouts.length, 1)
    assert.deepEqual(parsed(payouts[0]!.body), {
      currency: 'XOF',
      receive_amount: '2000',
      mobile: routes.wave.phone('120'),
      name: 'Awa Diop',
      client_reference: `${part.body.data.refund.token}.main`,
      payment_reason: 'Live merchant',
    })
    await assertStoreConsistent(app)
  })

  test('pawapay: a refund whose POST times out reaches pawaPay once, under the same refundId', async () => {
    const collect = await paidCollect('pawapay', '107')
    const started = Date.now()
    const response = await refund(collect.token)
    assert.equal(response.status, 200, response.text)
    const done = await settled('refund', response.body.data.refund.token, 15_000)
    assert.equal(done.status, 'succeeded')
    const calls = refundCalls('pawapay', collect)
    assert.equal(calls.length, 1, 'one POST /v2/refunds')
    assert.equal(parsed(calls[0]!.body).refundId, await operatorReferenceOf(app, done.token))
    console.log(`# a refund answered after the timeout settled ${Date.now() - started} ms after it was asked`)
  })

  test('the customer’s name and the text they see, as each operator receives them', async () => {
    const named = await initiate('disbursement', 'wave', '130', { amount: 1000 })
    const unnamed = await live.post('/api/v1/disbursement', {
      amount: 1000,
      channel: 'wave',
      country: 'SN',
      customer: { phoneNumber: routes.wave.phone('131') },
      merchantReference: `unnamed-${sequence++}`,
      callbackUrl: 'https://merchant.example/callback',
      statementDescriptor: 'Boutique Awa',
    })
    assert.equal(named.status, 200, named.text)
    assert.equal(unnamed.status, 200, unnamed.text)
    const payoutBody = (mobile: string) =>
      posts(simulators.wave, (url, body) => url === '/v1/payout' && body.mobile === mobile).map((call) =>
        parsed(call.body),
      )[0]
    assert.equal(payoutBody(routes.wave.phone('130'))?.name, 'Awa Diop')
    assert.equal(payoutBody(routes.wave.phone('130'))?.payment_reason, 'Live merchant')
    assert.equal('name' in (payoutBody(routes.wave.phone('131')) ?? {}), false, 'no name when none was given')
    assert.equal(payoutBody(routes.wave.phone('131'))?.payment_reason, 'Boutique Awa')

    const plain = await initiate('collect', 'pawapay', '140')
    const described = await initiate('collect', 'pawapay', '141', { statementDescriptor: 'Boutique Awa' })
    const deposit = (token: string) =>
      posts(simulators.pawapay, (url) => url === '/v2/deposits').find(
        (call) => parsed(call.body).clientReferenceId === `${token}.main`,
      )
    assert.equal(parsed(deposit(plain.body.data.collect.token)!.body).customerMessage, 'Live merchant')
    assert.equal(parsed(deposit(described.body.data.collect.token)!.body).customerMessage, 'Boutique Awa')

    const mtnPlain = await initiate('collect', 'mtn', '140')
    const mtnDescribed = await initiate('collect', 'mtn', '141', { statementDescriptor: 'Boutique Awa' })
    const requestToPay = (token: string) =>
      parsed(
        posts(
          simulators.mtn,
          (url, body) => url === '/collection/v1_0/requesttopay' && body.externalId === token,
        )[0]!.body,
      )
    assert.equal(requestToPay(mtnPlain.body.data.collect.token).payerMessage, 'Live merchant')
    assert.equal(requestToPay(mtnPlain.body.data.collect.token).payeeNote, 'Live merchant')
    assert.equal(requestToPay(mtnDescribed.body.data.collect.token).payerMessage, 'Boutique Awa')

    const refused = await initiate('collect', 'mtn', '142', { statementDescriptor: 'Café Awa!' })
    assert.equal(refused.status, 422, refused.text)
    assert.equal(refused.body.errors[0].field, 'statementDescriptor')
    assert.match(refused.body.errors[0].message, /4 to 22 letters/)
  })

  for (const [name, operator, channel, country, phone] of [
    ['pawaPay', 'pawapayQuick', 'mtn-momo', 'BJ', '+2290197000107'],
    ['MTN MoMo', 'mtn', 'mtn-momo', 'CI', '+2250500000107'],
  ] as const)
    test(`${name} calls back while Sika's POST is in flight (it answers after 3 s): settled within 1 s of the answer`, async () => {
      const started = Date.now()
      const response = await live.post('/api/v1/collect', {
        amount: 5000,
        channel,
        country,
        customer: { phoneNumber: phone },
        merchantReference: `in-flight-${sequence++}`,
        callbackUrl: 'https://merchant.example/callback',
      })
      const answeredAfterMs = Date.now() - started
      assert.equal(response.status, 200, response.text)
      const { token } = response.body.data.collect
      const callbacks = simulators[operator].callbacks.length
      assert.ok(callbacks > 0, 'the operator called back')
      // Nothing else runs here (no scheduled work): only the notification can have settled it.
      const settledAt = await (async () => {
        for (;;) {
          const now = (await live.get(`/api/v1/collect/${token}`)).body.data.collect
          if (now.status !== 'pending') return Date.now() - started
          if (Date.now() - started > 8000) return undefined
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
      })()
      assert.ok(settledAt !== undefined, 'settled without any poll')
      console.log(
        `# ${name}: POST answered after ~3000 ms, initiation answered after ${answeredAfterMs} ms, settled by ${settledAt} ms`,
      )
      assert.ok(settledAt < 3000 + 1000 + 500, `settled ${settledAt} ms after the POST was sent`)
    })
})
