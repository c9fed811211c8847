import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, test } from 'node:test'
import {
  type RunningOrangeMoneySimulator,
  startOrangeMoneySimulator,
} from '../../src/simulators/orange-money/orange-money-simulator.ts'
import { type Receiver, startReceiver } from '../support/receiver.ts'
import { pollUntilDefined, sleep } from '../support/wait.ts'

// The Orange Money Web Payment simulator, driven as a merchant following Orange's published guide
// would drive it (developer.orange.com, "Orange Money WebPay Dev – Getting started"): a token from
// /oauth/v3/token, a webpayment, the customer on the payment page, the notification on notif_url,
// and transactionstatus.

const settleDelayMs = 50
const hangMs = 300

interface Answer {
  status: number
  text: string
  json: any
  location: string | null
}

/** A tiny client written from Orange's documentation, not shared with anything else. */
class WebPayClient {
  private bearer: string | undefined
  constructor(private readonly simulator: RunningOrangeMoneySimulator) {}

  async request(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<Answer> {
    const response = await fetch(`${this.simulator.url}${path}`, {
      method,
      headers,
      body,
      redirect: 'manual',
    })
    const text = await response.text()
    const json =
      response.headers.get('content-type')?.includes('json') && text !== '' ? JSON.parse(text) : undefined
    return { status: response.status, text, json, location: response.headers.get('location') }
  }

  /** POST /oauth/v3/token, Basic base64(client_id:client_secret), grant_type=client_credentials. */
  createToken(clientId = this.simulator.clientId, clientSecret = this.simulator.clientSecret) {
    const basic = Buffer.from(`${clientId}:${clientSecret}`).toString('base64')
    return this.request(
      'POST',
      '/oauth/v3/token',
      {
        Authorization: `Basic ${basic}`,
        'Content-Type': 'application/x-www-form-urlencoded',
        Accept: 'application/json',
      },
      'grant_type=client_credentials',
    )
  }

  async token(): Promise<string> {
    if (this.bearer === undefined) this.bearer = (await this.createToken()).json.access_token as string
    return this.bearer
  }

  forget(): void {
    this.bearer = undefined
  }

  async post(path: string, body: unknown, authorization?: string): Promise<Answer> {
    return this.request(
      'POST',
      path,
      {
        Authorization: authorization ?? `Bearer ${await this.token()}`,
        Accept: 'application/json',
        'Content-Type': 'application/json',
      },
      typeof body === 'string' ? body : JSON.stringify(body),
    )
  }

  webPayment(overrides: Record<string, unknown> = {}, country = 'dev') {
    const body = {
      merchant_key: this.simulator.merchantKey,
      currency: country === 'dev' ? 'OUV' : 'XOF',
      order_id: `ORD_${randomUUID().slice(0, 18)}`,
      amount: 1200,
      return_url: 'http://shop.example/return',
      cancel_url: 'http://shop.example/cancel',
      notif_url: listener.url(hook()),
      lang: 'fr',
      reference: 'ref Merchant',
      ...overrides,
    }
    return this.post(`/orange-money-webpay/${country}/v1/webpayment`, body).then((answer) => ({
      answer,
      body,
    }))
  }

  status(orderId: string, amount: unknown, payToken: string, country = 'dev') {
    return this.post(`/orange-money-webpay/${country}/v1/transactionstatus`, {
      order_id: orderId,
      amount,
      pay_token: payToken,
    })
  }

  page(payToken: string) {
    return this.request('GET', `/payment/pay_token/${payToken}`, {})
  }

  /** The page's form, as a browser posts it. */
  submit(payToken: string, action: 'pay' | 'cancel', fields: Record<string, string> = {}) {
    return this.request(
      'POST',
      `/payment/pay_token/${payToken}/${action}`,
      { 'Content-Type': 'application/x-www-form-urlencoded' },
      new URLSearchParams(fields).toString(),
    )
  }
}

let simulator: RunningOrangeMoneySimulator
let client: WebPayClient
let listener: Receiver
let hookCount = 0
const hook = () => `/notif/${hookCount++}`
const hookOf = (body: { notif_url: string }) => new URL(body.notif_url).pathname

/** A new payment, INITIATED, with its body and its webpayment answer. */
async function initiated(overrides: Record<string, unknown> = {}, country = 'dev') {
  const { answer, body } = await client.webPayment(overrides, country)
  assert.equal(answer.status, 201, answer.text)
  return { body, payToken: answer.json.pay_token as string, notifToken: answer.json.notif_token as string }
}

/** Polls transactionstatus until it leaves INITIATED and PENDING. */
async function finalStatus(orderId: string, amount: number, payToken: string) {
  return pollUntilDefined(async () => {
    const answer = await client.status(orderId, amount, payToken)
    return ['INITIATED', 'PENDING'].includes(answer.json?.status) ? undefined : answer
  }, `final status of ${orderId}`)
}

before(async () => {
  listener = await startReceiver()
  simulator = await startOrangeMoneySimulator({ settleDelayMs, hangMs })
  client = new WebPayClient(simulator)
})

after(async () => {
  await simulator.close()
  await listener.close()
})

test('token: client credentials give a Bearer token valid for about 90 days', async () => {
  const answer = await client.createToken()
  assert.equal(answer.status, 200)
  assert.deepEqual(Object.keys(answer.json), ['token_type', 'access_token', 'expires_in'])
  assert.equal(answer.json.token_type, 'Bearer')
  assert.equal(answer.json.expires_in, 7_776_000)
  assert.equal(answer.json.access_token.split('.').length, 3)
})

test('token: wrong or missing credentials are a 401 invalid_client', async () => {
  const wrong = await client.createToken(simulator.clientId, 'not-the-secret')
  assert.equal(wrong.status, 401)
  assert.deepEqual(wrong.json, {
    error: 'invalid_client',
    error_description: 'The requested service needs credentials, but the ones provided were invalid.',
  })
  const form = { 'Content-Type': 'application/x-www-form-urlencoded' }
  const garbled = await client.request(
    'POST',
    '/oauth/v3/token',
    { ...form, Authorization: 'Basic false' },
    '',
  )
  assert.equal(garbled.status, 401)
  assert.equal(garbled.json.error, 'invalid_client')
  const none = await client.request('POST', '/oauth/v3/token', form, 'grant_type=client_credentials')
  assert.equal(none.status, 401)
  assert.equal(none.json.error, 'invalid_client')
})

test('token: credentials as form parameters work; the grant type is checked; only POST', async () => {
  const form = { 'Content-Type': 'application/x-www-form-urlencoded' }
  const params = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: simulator.clientId,
    client_secret: simulator.clientSecret,
  })
  assert.equal((await client.request('POST', '/oauth/v3/token', form, params.toString())).status, 200)
  params.set('grant_type', 'password')
  const unsupported = await client.request('POST', '/oauth/v3/token', form, params.toString())
  assert.equal(unsupported.status, 400)
  assert.equal(unsupported.json.error, 'unsupported_grant_type')
  params.delete('grant_type')
  assert.equal((await client.request('POST', '/oauth/v3/token', form, params.toString())).status, 400)
  const get = await client.request('GET', '/oauth/v3/token', {})
  assert.equal(get.status, 405)
  assert.equal(get.json.code, 61)
})

test('auth: calls without a token, with an unknown one, or an expired one are 401 codes 40, 41, 42', async () => {
  const path = '/orange-money-webpay/dev/v1/transactionstatus'
  const body = { order_id: 'X', amount: 1, pay_token: 'none' }
  const missing = await client.post(path, body, '')
  assert.equal(missing.status, 401)
  assert.deepEqual(missing.json, {
    code: 40,
    message: 'Missing credentials',
    description: 'The requested service needs credentials, but none were provided.',
  })
  const unknown = await client.post(path, body, 'Bearer R5EVAffaxgpTojhuTorBSU1qMHgy')
  assert.equal(unknown.status, 401)
  assert.equal(unknown.json.code, 41)
  assert.equal((await client.post(path, body)).status, 404)
  simulator.expireAccessTokens()
  const expired = await client.post(path, body)
  assert.equal(expired.status, 401)
  assert.deepEqual(expired.json, {
    code: 42,
    message: 'Expired credentials',
    description: 'The requested service needs credentials, and the ones provided were out-of-date.',
  })
  client.forget()
  assert.equal((await client.post(path, body)).status, 404)
})

test('auth: a token lives tokenLifetimeSeconds', async () => {
  const shortLived = await startOrangeMoneySimulator({ tokenLifetimeSeconds: 1 })
  try {
    const shortClient = new WebPayClient(shortLived)
    const token = await shortClient.createToken()
    assert.equal(token.json.expires_in, 1)
    const path = '/orange-money-webpay/dev/v1/transactionstatus'
    const body = { order_id: 'X', amount: 1, pay_token: 'none' }
    const bearer = `Bearer ${token.json.access_token}`
    assert.equal((await shortClient.post(path, body, bearer)).status, 404)
    await sleep(1100)
    assert.equal((await shortClient.post(path, body, bearer)).json.code, 42)
  } finally {
    await shortLived.close()
  }
})

test('webpayment: 201 with pay_token, payment_url and notif_token; the payment is INITIATED', async () => {
  const { answer, body } = await client.webPayment()
  assert.equal(answer.status, 201)
  assert.deepEqual(Object.keys(answer.json), ['status', 'message', 'pay_token', 'payment_url', 'notif_token'])
  assert.equal(answer.json.status, 201)
  assert.equal(answer.json.message, 'OK')
  assert.match(answer.json.pay_token, /^[0-9a-f]{64}$/)
  assert.match(answer.json.notif_token, /^[0-9a-f]{32}$/)
  assert.equal(answer.json.payment_url, `${simulator.url}/payment/pay_token/${answer.json.pay_token}`)
  const status = await client.status(body.order_id, body.amount, answer.json.pay_token)
  assert.equal(status.status, 201)
  assert.deepEqual(status.json, { status: 'INITIATED', order_id: body.order_id })
})

test('webpayment: bad bodies are 400 with Orange codes 22, 23 and 24', async () => {
  const cases: [Record<string, unknown>, number][] = [
    [{ merchant_key: undefined }, 23],
    [{ order_id: '' }, 23],
    [{ amount: undefined }, 23],
    [{ notif_url: undefined }, 23],
    [{ amount: 12.5 }, 24],
    [{ amount: 0 }, 24],
    [{ amount: -5 }, 24],
    [{ amount: '12.5' }, 24],
    [{ order_id: 'x'.repeat(31) }, 24],
    [{ reference: 'r'.repeat(31) }, 24],
    [{ return_url: `http://shop.example/${'a'.repeat(120)}` }, 24],
    [{ cancel_url: 'not a url' }, 24],
    [{ order_id: 42 }, 24],
    [{ currency: 'XOF' }, 24],
  ]
  for (const [overrides, code] of cases) {
    const { answer } = await client.webPayment(overrides)
    assert.equal(answer.status, 400, JSON.stringify(overrides))
    assert.equal(answer.json.code, code, JSON.stringify(overrides))
    assert.equal(typeof answer.json.message, 'string')
    assert.equal(typeof answer.json.description, 'string')
  }
  const missing = await client.webPayment({ order_id: undefined })
  assert.equal(
    missing.answer.json.description,
    "Key: 'WebPaymentInfo.OrderId' Error:Field validation for 'OrderId' failed on the 'required' tag",
  )
  const notJson = await client.post('/orange-money-webpay/dev/v1/webpayment', '{"amount":')
  assert.equal(notJson.status, 400)
  assert.equal(notJson.json.code, 22)
})

test('webpayment: a wrong merchant_key or a reused order_id is 403; a string amount is taken', async () => {
  const wrongKey = await client.webPayment({ merchant_key: 'a86b2087' })
  assert.equal(wrongKey.answer.status, 403)
  assert.equal(wrongKey.answer.json.code, 50)
  const first = await initiated({ amount: '1500' })
  const again = await client.webPayment({ order_id: first.body.order_id })
  assert.equal(again.answer.status, 403)
  assert.equal(again.answer.json.code, 50)
  const status = await client.status(first.body.order_id, 1500, first.payToken)
  assert.equal(status.json.status, 'INITIATED')
})

test('webpayment: each country takes its own currency; unknown countries and GET are refused', async () => {
  const ivorian = await client.webPayment({ currency: 'XOF' }, 'ci')
  assert.equal(ivorian.answer.status, 201)
  const sandboxCurrency = await client.webPayment({ currency: 'OUV' }, 'ci')
  assert.equal(sandboxCurrency.answer.status, 400)
  assert.equal((await client.webPayment({ currency: 'XAF' }, 'cm')).answer.status, 201)
  const unknown = await client.webPayment({}, 'xx')
  assert.equal(unknown.answer.status, 404)
  assert.equal(unknown.answer.json.code, 60)
  const get = await client.request('GET', '/orange-money-webpay/dev/v1/webpayment', {})
  assert.equal(get.status, 405)
  const other = await client.status(ivorian.body.order_id, 1200, ivorian.answer.json.pay_token, 'dev')
  assert.equal(other.status, 404)
})

test('page: Confirmer sends the customer to return_url; SUCCESS is notified with status, notif_token, txnid', async () => {
  const { body, payToken, notifToken } = await initiated()
  const page = await client.page(payToken)
  assert.equal(page.status, 200)
  assert.match(page.text, /<form method="post" action="\/payment\/pay_token\/[0-9a-f]{64}\/pay">/)
  assert.match(page.text, /name="msisdn"/)
  const paid = await client.submit(payToken, 'pay', { msisdn: '07 01 10 01 00', otp: '1234' })
  assert.equal(paid.status, 302)
  assert.equal(paid.location, body.return_url)
  const final = await finalStatus(body.order_id, body.amount, payToken)
  assert.equal(final.json.status, 'SUCCESS')
  assert.match(final.json.txnid, /^MP\d{6}\.\d{4}\.[A-Z]\d{5}$/)
  const [notification] = await pollUntilDefined(() => {
    const got = listener.requestsTo(hookOf(body))
    return got.length > 0 ? got : undefined
  }, 'notification')
  assert.equal(notification?.method, 'POST')
  assert.equal(notification?.headers['content-type'], 'application/json')
  const sent = JSON.parse(notification?.body ?? '')
  assert.deepEqual(Object.keys(sent), ['status', 'notif_token', 'txnid'])
  assert.deepEqual(sent, { status: 'SUCCESS', notif_token: notifToken, txnid: final.json.txnid })
  const again = await client.submit(payToken, 'pay', { msisdn: '0701100100' })
  assert.equal(again.status, 409)
  assert.match((await client.page(payToken)).text, /déjà été traité/)
  await sleep(settleDelayMs * 2)
  assert.equal(listener.requestsTo(hookOf(body)).length, 1)
})

test('page: Annuler sends the customer to cancel_url; the payment stays INITIATED, not notified', async () => {
  const { body, payToken } = await initiated({ lang: 'en' })
  assert.match((await client.page(payToken)).text, /Orange Money number/)
  const cancelled = await client.submit(payToken, 'cancel')
  assert.equal(cancelled.status, 302)
  assert.equal(cancelled.location, body.cancel_url)
  await sleep(settleDelayMs * 2)
  assert.equal((await client.status(body.order_id, body.amount, payToken)).json.status, 'INITIATED')
  assert.equal(listener.requestsTo(hookOf(body)).length, 0)
})

test('page: a number that is not one shows the form again with an error; merchant text is escaped', async () => {
  const { body, payToken } = await initiated({ reference: '<script>x</script>' })
  const page = await client.page(payToken)
  assert.ok(!page.text.includes('<script>x</script>'))
  assert.match(page.text, /&lt;script&gt;/)
  const bad = await client.submit(payToken, 'pay', { msisdn: 'abc' })
  assert.equal(bad.status, 400)
  assert.match(bad.text, /numéro Orange Money valide/)
  assert.equal((await client.status(body.order_id, body.amount, payToken)).json.status, 'INITIATED')
  assert.equal((await client.page('f'.repeat(64))).status, 404)
})

test('transactionstatus: order_id, amount and pay_token must all match; missing fields are 400 code 23', async () => {
  const { body, payToken } = await initiated()
  const wrongAmount = await client.status(body.order_id, 999, payToken)
  assert.equal(wrongAmount.status, 404)
  assert.equal(wrongAmount.json.code, 60)
  assert.equal((await client.status('OTHER', body.amount, payToken)).status, 404)
  assert.equal((await client.status(body.order_id, String(body.amount), payToken)).status, 201)
  const missing = await client.post('/orange-money-webpay/dev/v1/transactionstatus', {
    amount: body.amount,
    pay_token: payToken,
  })
  assert.equal(missing.status, 400)
  assert.deepEqual(missing.json, {
    code: 23,
    message: 'Missing body field',
    description:
      "Key: 'GetTransactionStatusInfo.OrderId' Error:Field validation for 'OrderId' failed on the 'required' tag",
  })
})

const notifiedEndings: [string, string][] = [
  ['101', 'FAILED'],
  ['102', 'FAILED'],
  ['108', 'FAILED'],
]
for (const [ending, status] of notifiedEndings) {
  test(`test number ${ending}: ${status}, notified`, async () => {
    const { body, payToken } = await initiated()
    const paid = await client.submit(payToken, 'pay', { msisdn: `0701100${ending}` })
    assert.equal(paid.status, 302)
    const final = await finalStatus(body.order_id, body.amount, payToken)
    assert.equal(final.json.status, status)
    const [notification] = await pollUntilDefined(() => {
      const got = listener.requestsTo(hookOf(body))
      return got.length > 0 ? got : undefined
    }, 'notification')
    assert.equal(JSON.parse(notification?.body ?? '').status, status)
  })
}

test('test number 103: EXPIRED, and EXPIRED is not notified', async () => {
  const { body, payToken } = await initiated()
  await client.submit(payToken, 'pay', { msisdn: '0701100103' })
  const final = await finalStatus(body.order_id, body.amount, payToken)
  assert.equal(final.json.status, 'EXPIRED')
  await sleep(settleDelayMs * 2)
  assert.equal(listener.requestsTo(hookOf(body)).length, 0)
})

test('test number 104: PENDING for ever, no notification', async () => {
  const { body, payToken } = await initiated()
  await client.submit(payToken, 'pay', { msisdn: '0701100104' })
  await sleep(settleDelayMs * 4)
  const status = await client.status(body.order_id, body.amount, payToken)
  assert.equal(status.json.status, 'PENDING')
  assert.match(status.json.txnid, /^MP/)
  assert.equal(listener.requestsTo(hookOf(body)).length, 0)
})

test('test number 105: SUCCESS, but no notification', async () => {
  const { body, payToken } = await initiated()
  await client.submit(payToken, 'pay', { msisdn: '0701100105' })
  assert.equal((await finalStatus(body.order_id, body.amount, payToken)).json.status, 'SUCCESS')
  await sleep(settleDelayMs * 2)
  assert.equal(listener.requestsTo(hookOf(body)).length, 0)
})

test('test number 106: the page answers 500, yet the payment succeeds and is notified', async () => {
  const { body, payToken } = await initiated()
  const paid = await client.submit(payToken, 'pay', { msisdn: '0701100106' })
  assert.equal(paid.status, 500)
  assert.equal(paid.location, null)
  assert.equal((await finalStatus(body.order_id, body.amount, payToken)).json.status, 'SUCCESS')
  await pollUntilDefined(
    () => (listener.requestsTo(hookOf(body)).length > 0 ? true : undefined),
    'notification',
  )
})

test('test number 107: the page holds the customer for hangMs; the payment is PENDING then SUCCESS', async () => {
  const { body, payToken } = await initiated()
  const startedAt = Date.now()
  const held = client.submit(payToken, 'pay', { msisdn: '0701100107' })
  await sleep(20)
  const meanwhile = await client.status(body.order_id, body.amount, payToken)
  assert.notEqual(meanwhile.json.status, 'INITIATED')
  const paid = await held
  assert.equal(paid.status, 302)
  assert.ok(Date.now() - startedAt >= hangMs - 25, 'answered before hangMs')
  assert.equal((await finalStatus(body.order_id, body.amount, payToken)).json.status, 'SUCCESS')
})

test('expiry: an untried payment stays INITIATED; Confirmer after the validity ends it EXPIRED', async () => {
  const quick = await startOrangeMoneySimulator({ settleDelayMs, paymentValidityMs: 100 })
  try {
    const quickClient = new WebPayClient(quick)
    const path = hook()
    const body = {
      merchant_key: quick.merchantKey,
      currency: 'OUV',
      order_id: 'LATE_1',
      amount: 500,
      return_url: 'http://shop.example/return',
      cancel_url: 'http://shop.example/cancel',
      notif_url: listener.url(path),
    }
    const created = await quickClient.post('/orange-money-webpay/dev/v1/webpayment', body)
    const payToken = created.json.pay_token
    await sleep(150)
    assert.equal((await quickClient.status('LATE_1', 500, payToken)).json.status, 'INITIATED')
    assert.match((await quickClient.page(payToken)).text, /a expiré/)
    const late = await quickClient.submit(payToken, 'pay', { msisdn: '0701100100' })
    assert.equal(late.status, 302)
    assert.equal(late.location, body.return_url)
    assert.equal((await quickClient.status('LATE_1', 500, payToken)).json.status, 'EXPIRED')
    await sleep(settleDelayMs * 2)
    assert.equal(listener.requestsTo(path).length, 0)
  } finally {
    await quick.close()
  }
})

test('expiry: with expireUntriedPayments an untried payment becomes EXPIRED after its validity', async () => {
  const strict = await startOrangeMoneySimulator({ paymentValidityMs: 50, expireUntriedPayments: true })
  try {
    const strictClient = new WebPayClient(strict)
    const created = await strictClient.post('/orange-money-webpay/dev/v1/webpayment', {
      merchant_key: strict.merchantKey,
      currency: 'OUV',
      order_id: 'UNTRIED_1',
      amount: 500,
      return_url: 'http://shop.example/return',
      cancel_url: 'http://shop.example/cancel',
      notif_url: 'http://shop.example/notif',
    })
    const payToken = created.json.pay_token
    assert.equal((await strictClient.status('UNTRIED_1', 500, payToken)).json.status, 'INITIATED')
    await sleep(80)
    assert.equal((await strictClient.status('UNTRIED_1', 500, payToken)).json.status, 'EXPIRED')
    assert.equal((await strictClient.submit(payToken, 'pay', { msisdn: '0701100100' })).status, 409)
  } finally {
    await strict.close()
  }
})

test('control: pay as a number, force a status with its notification, list everything', async () => {
  const paidByControl = await initiated()
  const paid = await client.request(
    'POST',
    `/_simulator/payments/${paidByControl.body.order_id}/pay`,
    { 'Content-Type': 'application/json' },
    JSON.stringify({ msisdn: '0701100101' }),
  )
  assert.equal(paid.status, 200)
  assert.equal(paid.json.outcome, '101')
  const declined = await finalStatus(paidByControl.body.order_id, 1200, paidByControl.payToken)
  assert.equal(declined.json.status, 'FAILED')

  const forcedPayment = await initiated()
  const forced = await client.request(
    'POST',
    `/_simulator/payments/${forcedPayment.payToken}/status`,
    { 'Content-Type': 'application/json' },
    JSON.stringify({ status: 'SUCCESS' }),
  )
  assert.equal(forced.status, 200)
  assert.equal(forced.json.view.status, 'SUCCESS')
  const [notification] = await pollUntilDefined(() => {
    const got = listener.requestsTo(hookOf(forcedPayment.body))
    return got.length > 0 ? got : undefined
  }, 'forced notification')
  assert.equal(JSON.parse(notification?.body ?? '').notif_token, forcedPayment.notifToken)
  const badForce = await client.request(
    'POST',
    `/_simulator/payments/${forcedPayment.payToken}/status`,
    {},
    '{}',
  )
  assert.equal(badForce.status, 400)

  const listed = await client.request('GET', '/_simulator/payments', {})
  assert.ok(listed.json.some((payment: any) => payment.payToken === forcedPayment.payToken))
  const one = await client.request('GET', `/_simulator/payments/${forcedPayment.body.order_id}`, {})
  assert.equal(one.json.status, 'SUCCESS')
  const notifications = await client.request('GET', '/_simulator/notifications', {})
  assert.ok(
    notifications.json.some((sent: any) => sent.url === forcedPayment.body.notif_url && sent.status === 200),
  )
  const requests = await client.request('GET', '/_simulator/requests', {})
  assert.ok(requests.json.some((request: any) => request.url === '/oauth/v3/token'))
  assert.equal((await client.request('GET', '/_simulator/payments/nope', {})).status, 404)
})

test('control: cancel and expire-tokens paths; the API methods pay and cancel', async () => {
  const viaPath = await initiated()
  const cancelled = await client.request('POST', `/_simulator/payments/${viaPath.payToken}/cancel`, {})
  assert.equal(cancelled.status, 200)
  assert.equal(cancelled.json.status, 'INITIATED')
  assert.ok(cancelled.json.cancelledAtMs > 0)
  const viaMethod = await initiated()
  assert.equal(simulator.pay(viaMethod.body.order_id, '0701100100'), true)
  assert.equal(simulator.pay(viaMethod.body.order_id, '0701100100'), false)
  assert.equal(simulator.cancel(viaMethod.payToken), false)
  assert.equal((await finalStatus(viaMethod.body.order_id, 1200, viaMethod.payToken)).json.status, 'SUCCESS')
  assert.equal(
    simulator.payments().find((payment) => payment.payToken === viaMethod.payToken)?.msisdn,
    '0701100100',
  )
  assert.equal((await client.request('POST', '/_simulator/expire-tokens', {})).status, 204)
  assert.equal((await client.status(viaPath.body.order_id, 1200, viaPath.payToken)).json.code, 42)
  client.forget()
})

test('connection: an OPERATORS_FILE entry whose credentials work', async () => {
  const entry = simulator.connection('orange-money', ['CI', 'SN']) as any
  assert.deepEqual(entry, {
    id: 'orange-money-ci-sn',
    channel: 'orange-money',
    countries: ['CI', 'SN'],
    adapter: 'orange-money',
    baseUrl: simulator.url,
    clientId: simulator.clientId,
    clientSecret: simulator.clientSecret,
    merchantKey: simulator.merchantKey,
  })
  assert.equal((await client.createToken(entry.clientId, entry.clientSecret)).status, 200)
  const viaPath = await client.request('GET', '/_simulator/connection?channel=om&countries=ML', {})
  assert.equal(viaPath.json.channel, 'om')
  assert.deepEqual(viaPath.json.countries, ['ML'])
  const given = await startOrangeMoneySimulator({
    clientId: 'id',
    clientSecret: 'secret',
    merchantKey: 'a86b2087',
  })
  try {
    assert.equal(given.merchantKey, 'a86b2087')
    assert.equal((await new WebPayClient(given).createToken('id', 'secret')).status, 200)
  } finally {
    await given.close()
  }
})

test('close() ends a page request still being held', async () => {
  const other = await startOrangeMoneySimulator({ hangMs: 60_000 })
  const otherClient = new WebPayClient(other)
  const created = await otherClient.post('/orange-money-webpay/dev/v1/webpayment', {
    merchant_key: other.merchantKey,
    currency: 'OUV',
    order_id: 'HELD_1',
    amount: 100,
    return_url: 'http://shop.example/return',
    cancel_url: 'http://shop.example/cancel',
    notif_url: 'http://shop.example/notif',
  })
  const held = otherClient.submit(created.json.pay_token, 'pay', { msisdn: '0701100107' }).then(
    () => 'answered',
    () => 'cut',
  )
  await pollUntilDefined(
    () => (other.payments()[0]?.status === 'PENDING' ? true : undefined),
    'the held request',
  )
  const startedAt = Date.now()
  await other.close()
  assert.ok(Date.now() - startedAt < 1000)
  assert.equal(await held, 'cut')
})
