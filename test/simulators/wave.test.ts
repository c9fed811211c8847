import assert from 'node:assert/strict'
import { createHmac, randomUUID } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'
import {
  type RunningWaveSimulator,
  startWaveSimulator,
  type WaveSimulatorOptions,
} from '../../src/simulators/wave/wave-simulator.ts'
import { pollUntilDefined, sleep } from '../support/wait.ts'

// The Wave simulator, driven as a client of Wave's published Business API would drive it
// (docs.wave.com): checkout sessions paid on the hosted page, payouts with idempotency keys, and
// signed webhooks received on a local listener and verified here with an HMAC of our own.

const settleDelayMs = 40
const hangMs = 300

interface Answer {
  status: number
  text: string
  json: any
  headers: Headers
}

/** A tiny client written from Wave's documentation, not shared with anything else. */
class WaveClient {
  constructor(
    private readonly simulator: RunningWaveSimulator,
    private readonly apiKey = simulator.apiKey,
  ) {}

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const response = await fetch(`${this.simulator.url}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        Authorization: `Bearer ${this.apiKey}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    })
    const text = await response.text()
    const json =
      response.headers.get('content-type')?.includes('json') && text !== '' ? JSON.parse(text) : undefined
    return { status: response.status, text, json, headers: response.headers } satisfies Answer
  }

  createSession(overrides: Record<string, unknown> = {}) {
    return this.request('POST', '/v1/checkout/sessions', {
      amount: '1000',
      currency: 'XOF',
      client_reference: `order-${randomUUID()}`,
      success_url: 'https://shop.example/success',
      error_url: 'https://shop.example/error',
      ...overrides,
    })
  }

  getSession(id: string) {
    return this.request('GET', `/v1/checkout/sessions/${id}`)
  }

  payout(mobile: string, overrides: Record<string, unknown> = {}, key: string = randomUUID()) {
    const body = {
      currency: 'XOF',
      receive_amount: '500',
      name: 'Fatou Ndiaye',
      mobile,
      client_reference: `payout-${randomUUID()}`,
      ...overrides,
    }
    return this.request('POST', '/v1/payout', body, { 'Idempotency-Key': key })
  }

  /** The hosted page's form, posted as a browser would post it. */
  async submitPage(id: string, form: Record<string, string>) {
    const response = await fetch(`${this.simulator.url}/c/${id}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    })
    await response.text()
    return { status: response.status, location: response.headers.get('location') }
  }
}

interface Received {
  path: string
  headers: IncomingHttpHeaders
  body: string
  json: any
}

/** A webhook receiver on 127.0.0.1 that records what arrives; `failures` answers 500 that often first. */
async function startListener() {
  const received: Received[] = []
  let failures = 0
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString()
      received.push({ path: request.url ?? '', headers: request.headers, body, json: JSON.parse(body) })
      if (failures > 0) {
        failures--
        return response.writeHead(500).end()
      }
      response.writeHead(200).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    received,
    url: (path: string) => `${origin}${path}`,
    /** The events received about this object id. */
    about: (id: string) => received.filter((event) => event.json?.data?.id === id),
    failNext: (count: number) => {
      failures = count
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** Checks `Wave-Signature: t=…,v1=…` as the docs tell a receiver to: HMAC-SHA256(secret, t + body). */
function signatureValid(signatureHeader: string | undefined, body: string, secret: string): boolean {
  const parts = (signatureHeader ?? '').split(',')
  const timestamp = parts.find((part) => part.startsWith('t='))?.slice(2)
  const signatures = parts.filter((part) => part.startsWith('v1=')).map((part) => part.slice(3))
  if (timestamp === undefined) return false
  const expected = createHmac('sha256', secret).update(`${timestamp}${body}`).digest('hex')
  return signatures.includes(expected)
}

let simulator: RunningWaveSimulator
let client: WaveClient
let listener: Awaited<ReturnType<typeof startListener>>
const others: RunningWaveSimulator[] = []

async function startOther(options: WaveSimulatorOptions) {
  const other = await startWaveSimulator({ settleDelayMs, hangMs, ...options })
  others.push(other)
  return { other, otherClient: new WaveClient(other) }
}

/** Polls a session until its status leaves `open` or its payment fails. */
async function settledSession(id: string) {
  return pollUntilDefined(async () => {
    const answer = await client.getSession(id)
    const settled = answer.json.checkout_status !== 'open' || answer.json.last_payment_error !== null
    return settled ? answer : undefined
  }, `session ${id} to settle`)
}

async function eventsAbout(id: string, count = 1) {
  return pollUntilDefined(
    () => (listener.about(id).length >= count ? listener.about(id) : undefined),
    `webhook of ${id}`,
  )
}

before(async () => {
  listener = await startListener()
  simulator = await startWaveSimulator({ settleDelayMs, hangMs, webhookUrl: listener.url('/wave') })
  client = new WaveClient(simulator)
})

after(async () => {
  await Promise.all([simulator.close(), ...others.map((other) => other.close())])
  await listener.close()
})

test('auth: each documented 401 code, in order, and a revoked key', async () => {
  const cases: [Record<string, string>, string][] = [
    [{ Authorization: '' }, 'missing-auth-header'],
    [{ Authorization: 'Basic abc' }, 'invalid-auth'],
    [{ Authorization: 'Bearer ' }, 'api-key-not-provided'],
    [{ Authorization: 'Bearer wave_sn_prod_unknown' }, 'no-matching-api-key'],
  ]
  for (const [headers, code] of cases) {
    const answer = await client.request('GET', '/v1/checkout/sessions/cos-unknown', undefined, headers)
    assert.equal(answer.status, 401, code)
    assert.equal(answer.json.code, code)
    assert.equal(typeof answer.json.message, 'string')
  }
  const { other, otherClient } = await startOther({})
  assert.match(other.apiKey, /^wave_sn_prod_/)
  other.expireAccessTokens()
  assert.equal((await otherClient.getSession('cos-none')).status, 404, 'keys do not expire')
  other.revokeApiKey()
  const revoked = await otherClient.getSession('cos-none')
  assert.equal(revoked.status, 401)
  assert.equal(revoked.json.code, 'api-key-revoked')
  other.revokeApiKey(false)
  assert.equal((await otherClient.getSession('cos-none')).status, 404)
})

test('routing: an unpublished path is a 404, a published path with another method a 405', async () => {
  const unknown = await client.request('GET', '/v1/nothing')
  assert.equal(unknown.status, 404)
  assert.equal(unknown.json.code, 'not-found')
  const wrongMethod = await client.request('DELETE', '/v1/checkout/sessions')
  assert.equal(wrongMethod.status, 405)
})

test('checkout: a session is created open, shaped as the docs show it', async () => {
  const before = Date.now()
  const answer = await client.createSession({
    client_reference: 'order-shape',
    aggregated_merchant_id: 'am-1',
  })
  assert.equal(answer.status, 200)
  const session = answer.json
  assert.match(session.id, /^cos-[0-9a-z]{13}$/)
  assert.equal(session.amount, '1000')
  assert.equal(session.currency, 'XOF')
  assert.equal(session.checkout_status, 'open')
  assert.equal(session.payment_status, 'processing')
  assert.equal(session.client_reference, 'order-shape')
  assert.equal(session.last_payment_error, null)
  assert.equal(session.business_name, 'Sika Simulated Shop')
  assert.equal(session.aggregated_merchant_id, 'am-1')
  assert.equal(session.success_url, 'https://shop.example/success')
  assert.equal(session.error_url, 'https://shop.example/error')
  assert.equal(session.transaction_id, undefined)
  assert.equal(session.when_completed, undefined)
  assert.match(session.when_created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
  const lifetime = Date.parse(session.when_expires) - Date.parse(session.when_created)
  assert.equal(lifetime, 30 * 60 * 1000)
  assert.ok(Date.parse(session.when_created) >= Math.floor(before / 1000) * 1000)
  const launch = new URL(session.wave_launch_url)
  assert.equal(`${launch.origin}${launch.pathname}`, `${simulator.url}/c/${session.id}`)
  assert.equal(launch.searchParams.get('a'), '1000')
  assert.deepEqual((await client.getSession(session.id)).json, session)
})

test('checkout: invalid bodies are a request-validation-error naming the field', async () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ amount: 1000 }, 'amount'],
    [{ amount: '1000.50' }, 'amount'],
    [{ amount: '0100' }, 'amount'],
    [{ amount: '-5' }, 'amount'],
    [{ amount: '0' }, 'amount'],
    [{ amount: undefined }, 'amount'],
    [{ currency: 'ABC' }, 'currency'],
    [{ currency: 'EUR' }, 'currency'],
    [{ success_url: undefined }, 'success_url'],
    [{ error_url: 'http://shop.example/error' }, 'error_url'],
    [{ restrict_payer_mobile: '221761110000' }, 'restrict_payer_mobile'],
    [{ client_reference: 'x'.repeat(256) }, 'client_reference'],
  ]
  for (const [overrides, field] of cases) {
    const answer = await client.createSession(overrides)
    assert.equal(answer.status, 400, JSON.stringify(overrides))
    assert.equal(answer.json.code, 'request-validation-error')
    assert.equal(answer.json.message, 'Request invalid')
    assert.ok(
      answer.json.details.some((detail: any) => detail.loc.includes(field) && typeof detail.msg === 'string'),
      `${field} in ${JSON.stringify(answer.json.details)}`,
    )
  }
  const abc = await client.createSession({ currency: 'ABC' })
  assert.match(abc.json.details[0].msg, /Unknown currency identifier: ABC/)
  const loopback = await client.createSession({ success_url: 'http://127.0.0.1:9/done' })
  assert.equal(loopback.status, 200, 'http is accepted on a loopback host')
})

test('checkout: a body that is not JSON is request-not-json or request-parsing-error', async () => {
  const notJson = await client.request('POST', '/v1/checkout/sessions', 'amount=1000', {
    'Content-Type': 'application/x-www-form-urlencoded',
  })
  assert.equal(notJson.status, 400)
  assert.equal(notJson.json.code, 'request-not-json')
  const broken = await client.request('POST', '/v1/checkout/sessions', '{"amount":')
  assert.equal(broken.status, 400)
  assert.equal(broken.json.code, 'request-parsing-error')
})

test('checkout: reads by id, by transaction id and by client reference', async () => {
  const unknown = await client.getSession('cos-000000000000a')
  assert.equal(unknown.status, 404)
  assert.equal(unknown.json.code, 'checkout-session-not-found')
  const reference = `order-${randomUUID()}`
  const first = (await client.createSession({ client_reference: reference })).json
  const second = (await client.createSession({ client_reference: reference })).json
  const search = await client.request('GET', `/v1/checkout/sessions/search?client_reference=${reference}`)
  assert.equal(search.status, 200)
  assert.deepEqual(
    search.json.result.map((session: any) => session.id),
    [first.id, second.id],
  )
  const none = await client.request('GET', '/v1/checkout/sessions/search?client_reference=nobody')
  assert.deepEqual(none.json, { result: [] })
  assert.equal((await client.request('GET', '/v1/checkout/sessions/search')).status, 400)
  await client.submitPage(first.id, { action: 'pay', mobile: '' })
  const paid = (await client.getSession(first.id)).json
  const byTransaction = await client.request(
    'GET',
    `/v1/checkout/sessions?transaction_id=${paid.transaction_id}`,
  )
  assert.equal(byTransaction.status, 200)
  assert.equal(byTransaction.json.id, first.id)
  const noTransaction = await client.request('GET', '/v1/checkout/sessions?transaction_id=TNOPE')
  assert.equal(noTransaction.json.code, 'checkout-session-not-found')
})

test('hosted page: it shows the business, the amount, and Pay and Decline buttons', async () => {
  const session = (await client.createSession({ amount: '2500' })).json
  const page = await fetch(session.wave_launch_url)
  assert.equal(page.status, 200)
  assert.match(page.headers.get('content-type') ?? '', /text\/html/)
  const html = await page.text()
  assert.match(html, /Sika Simulated Shop/)
  assert.match(html, /2500 XOF/)
  assert.match(html, /<form method="post"/)
  assert.match(html, /value="pay">Pay</)
  assert.match(html, /value="decline">Decline</)
  assert.equal((await fetch(`${simulator.url}/c/cos-nope`)).status, 404)
})

test('hosted page: Pay completes the session, redirects to success_url and sends a signed webhook', async () => {
  const session = (await client.createSession()).json
  const submitted = await client.submitPage(session.id, { action: 'pay', mobile: '+221761110000' })
  assert.equal(submitted.status, 303)
  assert.equal(submitted.location, 'https://shop.example/success')
  const paid = (await client.getSession(session.id)).json
  assert.equal(paid.checkout_status, 'complete')
  assert.equal(paid.payment_status, 'succeeded')
  assert.match(paid.transaction_id, /^T[0-9A-Z]{16}$/)
  assert.match(paid.when_completed, /Z$/)
  const [event] = await eventsAbout(session.id)
  assert.equal(event?.path, '/wave')
  assert.equal(event?.headers['content-type'], 'application/json')
  assert.ok(
    signatureValid(event?.headers['wave-signature'] as string, event?.body ?? '', simulator.webhookSecret),
  )
  assert.ok(
    !signatureValid(event?.headers['wave-signature'] as string, `${event?.body} `, simulator.webhookSecret),
  )
  assert.deepEqual(Object.keys(event?.json ?? {}), ['id', 'type', 'data'])
  assert.match(event?.json.id, /^AE_/)
  assert.equal(event?.json.type, 'checkout.session.completed')
  assert.deepEqual(event?.json.data, paid)
  const signature = String(event?.headers['wave-signature'])
  const timestamp = Number(signature.split(',')[0]?.slice(2))
  assert.ok(Math.abs(timestamp - Date.now() / 1000) < 5)
})

test('hosted page: Decline ends the session unpaid, redirects to error_url, no webhook', async () => {
  const session = (await client.createSession()).json
  const submitted = await client.submitPage(session.id, { action: 'decline', mobile: '' })
  assert.equal(submitted.location, 'https://shop.example/error')
  const ended = (await client.getSession(session.id)).json
  assert.equal(ended.checkout_status, 'expired')
  assert.equal(ended.payment_status, 'cancelled')
  assert.ok(ended.when_completed)
  await sleep(settleDelayMs * 3)
  assert.equal(listener.about(session.id).length, 0)
  const again = await client.submitPage(session.id, { action: 'pay', mobile: '' })
  assert.equal(again.location, 'https://shop.example/error', 'an ended session cannot be paid')
})

test('hosted page: a failed attempt (101) keeps the session open for another try', async () => {
  const session = (await client.createSession()).json
  const failed = await client.submitPage(session.id, { action: 'pay', mobile: '+221761110101' })
  assert.equal(failed.location, 'https://shop.example/error')
  const open = (await client.getSession(session.id)).json
  assert.equal(open.checkout_status, 'open')
  assert.equal(open.payment_status, 'processing')
  assert.equal(open.last_payment_error.code, 'insufficient-funds')
  const [event] = await eventsAbout(session.id)
  assert.equal(event?.json.type, 'checkout.session.payment_failed')
  assert.deepEqual(event?.json.data, open)
  const retried = await client.submitPage(session.id, { action: 'pay', mobile: '+221761110000' })
  assert.equal(retried.location, 'https://shop.example/success')
  assert.equal((await client.getSession(session.id)).json.payment_status, 'succeeded')
})

test('hosted page: another payer than restrict_payer_mobile fails with payer-mobile-mismatch', async () => {
  const { other, otherClient } = await startOther({ autoPay: false })
  const session = (await otherClient.createSession({ restrict_payer_mobile: '+221761110000' })).json
  assert.equal(session.restrict_payer_mobile, '+221761110000')
  const html = await (await fetch(session.wave_launch_url)).text()
  assert.match(html, /value="\+221761110000"/)
  const mismatch = await otherClient.submitPage(session.id, { action: 'pay', mobile: '+221761119999' })
  assert.equal(mismatch.location, 'https://shop.example/error')
  const failed = (await otherClient.getSession(session.id)).json
  assert.equal(failed.last_payment_error.code, 'payer-mobile-mismatch')
  const right = await otherClient.submitPage(session.id, { action: 'pay', mobile: '' })
  assert.equal(right.location, 'https://shop.example/success')
  assert.equal(other.sessions()[0]?.payerMobile, '+221761110000')
})

test('checkout test numbers: an ordinary restricted payer pays by itself after the settle delay', async () => {
  const session = (await client.createSession({ restrict_payer_mobile: '+221761110000' })).json
  assert.equal(session.checkout_status, 'open')
  const paid = await settledSession(session.id)
  assert.equal(paid.json.checkout_status, 'complete')
  const [event] = await eventsAbout(session.id)
  assert.equal(event?.json.type, 'checkout.session.completed')
})

const failingNumbers: [string, string][] = [
  ['101', 'insufficient-funds'],
  ['108', 'payment-failure'],
]
for (const [ending, code] of failingNumbers) {
  test(`checkout test numbers: ${ending}: the payment fails with ${code} and payment_failed`, async () => {
    const session = (await client.createSession({ restrict_payer_mobile: `+221761110${ending}` })).json
    const failed = await settledSession(session.id)
    assert.equal(failed.json.checkout_status, 'open')
    assert.equal(failed.json.last_payment_error.code, code)
    const [event] = await eventsAbout(session.id)
    assert.equal(event?.json.type, 'checkout.session.payment_failed')
  })
}

test('checkout test numbers: 102 refuses: expired and cancelled, with no webhook', async () => {
  const session = (await client.createSession({ restrict_payer_mobile: '+221761110102' })).json
  const ended = await settledSession(session.id)
  assert.equal(ended.json.checkout_status, 'expired')
  assert.equal(ended.json.payment_status, 'cancelled')
  await sleep(settleDelayMs * 2)
  assert.equal(listener.about(session.id).length, 0)
})

test('checkout test numbers: 103 never answers: the session expires at its when_expires', async () => {
  const session = (await client.createSession({ restrict_payer_mobile: '+221761110103' })).json
  assert.ok(Date.parse(session.when_expires) - Date.parse(session.when_created) <= 1000)
  const ended = await settledSession(session.id)
  assert.equal(ended.json.checkout_status, 'expired')
  assert.equal(ended.json.payment_status, 'cancelled')
  assert.equal(ended.json.when_completed, ended.json.when_expires)
  assert.equal(listener.about(session.id).length, 0)
})

test('checkout test numbers: 104 stays open, 105 pays without a webhook', async () => {
  const pending = (await client.createSession({ restrict_payer_mobile: '+221761110104' })).json
  const silent = (await client.createSession({ restrict_payer_mobile: '+221761110105' })).json
  const paid = await settledSession(silent.id)
  assert.equal(paid.json.payment_status, 'succeeded')
  await sleep(settleDelayMs * 4)
  const still = (await client.getSession(pending.id)).json
  assert.equal(still.checkout_status, 'open')
  assert.equal(still.payment_status, 'processing')
  assert.equal(listener.about(pending.id).length + listener.about(silent.id).length, 0)
})

test('checkout test numbers: 106 answers 500 yet stores the session; the search finds it paid', async () => {
  const reference = `order-${randomUUID()}`
  const answer = await client.createSession({
    restrict_payer_mobile: '+221761110106',
    client_reference: reference,
  })
  assert.equal(answer.status, 500)
  assert.equal(answer.json.code, 'internal-server-error')
  const found = await pollUntilDefined(async () => {
    const search = await client.request('GET', `/v1/checkout/sessions/search?client_reference=${reference}`)
    return search.json.result[0]?.payment_status === 'succeeded' ? search.json.result[0] : undefined
  }, 'the 106 session to be paid')
  await eventsAbout(found.id)
})

test('checkout test numbers: 107 answers only after hangMs; it is paid meanwhile', async () => {
  const startedAt = Date.now()
  const answer = await client.createSession({ restrict_payer_mobile: '+221761110107' })
  assert.equal(answer.status, 200)
  assert.ok(Date.now() - startedAt >= hangMs - 25, 'answered before hangMs')
  assert.equal(answer.json.checkout_status, 'open', 'the body is the session as it was created')
  assert.equal((await client.getSession(answer.json.id)).json.payment_status, 'succeeded')
})

test('checkout: expire ends an open session; a closed one is a 409, an unknown one a 404', async () => {
  const session = (await client.createSession()).json
  const expired = await client.request('POST', `/v1/checkout/sessions/${session.id}/expire`)
  assert.equal(expired.status, 200)
  assert.equal(expired.text, '')
  const after = (await client.getSession(session.id)).json
  assert.equal(after.checkout_status, 'expired')
  assert.equal(after.payment_status, 'cancelled')
  assert.equal((await client.request('POST', `/v1/checkout/sessions/${session.id}/expire`)).status, 409)
  const unknown = await client.request('POST', '/v1/checkout/sessions/cos-000000000000b/expire')
  assert.equal(unknown.json.code, 'checkout-session-not-found')
})

test('checkout: refund needs a paid session, and is idempotent', async () => {
  const session = (await client.createSession()).json
  const unpaid = await client.request('POST', `/v1/checkout/sessions/${session.id}/refund`)
  assert.equal(unpaid.status, 409)
  assert.equal(unpaid.json.code, 'checkout-refund-failed')
  await client.submitPage(session.id, { action: 'pay', mobile: '' })
  const refund = await client.request('POST', `/v1/checkout/sessions/${session.id}/refund`)
  assert.equal(refund.status, 200)
  assert.equal(refund.text, '')
  const [first] = simulator.sessions().filter((view) => view.id === session.id)
  const again = await client.request('POST', `/v1/checkout/sessions/${session.id}/refund`)
  assert.equal(again.status, 200)
  const [second] = simulator.sessions().filter((view) => view.id === session.id)
  assert.equal(second?.refunded, true)
  assert.equal(second?.refundedAtMs, first?.refundedAtMs)
})

test('checkout: a session whose when_expires passes is expired', async () => {
  const { otherClient } = await startOther({ checkoutLifetimeSeconds: 0.05 })
  const session = (await otherClient.createSession()).json
  await sleep(80)
  const expired = (await otherClient.getSession(session.id)).json
  assert.equal(expired.checkout_status, 'expired')
  assert.equal(expired.payment_status, 'cancelled')
  assert.equal(expired.when_completed, expired.when_expires)
})

test('webhooks: a rotating secret adds a second v1, each verifiable on its own', async () => {
  const rotation = await startListener()
  try {
    const { other, otherClient } = await startOther({
      webhookUrl: rotation.url('/hook'),
      webhookSecret: 'wave_sn_WHS_old',
      additionalWebhookSecrets: ['wave_sn_WHS_new'],
    })
    const session = (await otherClient.createSession()).json
    await otherClient.submitPage(session.id, { action: 'pay', mobile: '' })
    const event = await pollUntilDefined(() => rotation.received[0], 'the webhook')
    const signature = event.headers['wave-signature'] as string
    assert.match(signature, /^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/)
    assert.ok(signatureValid(signature, event.body, 'wave_sn_WHS_old'))
    assert.ok(signatureValid(signature, event.body, 'wave_sn_WHS_new'))
    assert.ok(!signatureValid(signature, event.body, 'wave_sn_WHS_other'))
    assert.equal(other.connection('wave', ['SN']).webhookSecret, 'wave_sn_WHS_old')
  } finally {
    await rotation.close()
  }
})

test('webhooks: a shared secret is sent as Authorization: Bearer, unsigned', async () => {
  const receiver = await startListener()
  try {
    const { otherClient } = await startOther({
      webhookUrl: receiver.url('/hook'),
      webhookSecurity: 'shared-secret',
    })
    const session = (await otherClient.createSession()).json
    await otherClient.submitPage(session.id, { action: 'pay', mobile: '' })
    const event = await pollUntilDefined(() => receiver.received[0], 'the webhook')
    assert.match(event.headers.authorization ?? '', /^Bearer wave_sn_WHS_/)
    assert.equal(event.headers['wave-signature'], undefined)
  } finally {
    await receiver.close()
  }
})

test('webhooks: an event not answered 2xx is sent again, same id, until it is', async () => {
  const receiver = await startListener()
  try {
    const { other, otherClient } = await startOther({
      webhookUrl: receiver.url('/hook'),
      webhookRetryDelaysMs: [20, 20, 20],
    })
    receiver.failNext(2)
    const session = (await otherClient.createSession()).json
    await otherClient.submitPage(session.id, { action: 'pay', mobile: '' })
    await pollUntilDefined(() => (receiver.received.length >= 3 ? true : undefined), 'three deliveries')
    await sleep(80)
    assert.equal(receiver.received.length, 3)
    assert.equal(new Set(receiver.received.map((event) => event.json.id)).size, 1)
    assert.deepEqual(
      other.callbacks.map((sent) => sent.status),
      [500, 500, 200],
    )
  } finally {
    await receiver.close()
  }
})

test('webhooks: an unreachable receiver is recorded without a status', async () => {
  const { other, otherClient } = await startOther({
    webhookUrl: 'http://127.0.0.1:9/hook',
    webhookRetryDelaysMs: [],
  })
  const session = (await otherClient.createSession()).json
  await otherClient.submitPage(session.id, { action: 'pay', mobile: '' })
  const [sent] = await pollUntilDefined(
    () => (other.callbacks.length > 0 ? other.callbacks : undefined),
    'a try',
  )
  assert.equal(sent?.status, undefined)
  assert.equal(sent?.url, 'http://127.0.0.1:9/hook')
})

test('payout: executed at once, shaped as the docs show it, read back and searched', async () => {
  const reference = `payout-${randomUUID()}`
  const answer = await client.payout('+221555110219', {
    client_reference: reference,
    national_id: '1751197904376',
    payment_reason: 'Salary November',
  })
  assert.equal(answer.status, 200)
  const payout = answer.json
  assert.match(payout.id, /^pt-[0-9a-z]{13}$/)
  assert.deepEqual(Object.keys(payout), [
    'id',
    'currency',
    'receive_amount',
    'fee',
    'mobile',
    'name',
    'national_id',
    'client_reference',
    'payment_reason',
    'status',
    'timestamp',
  ])
  assert.equal(payout.status, 'succeeded')
  assert.equal(payout.fee, '5')
  assert.equal(payout.receive_amount, '500')
  assert.match(payout.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
  assert.deepEqual((await client.request('GET', `/v1/payout/${payout.id}`)).json, payout)
  const search = await client.request('GET', `/v1/payouts/search?client_reference=${reference}`)
  assert.deepEqual(search.json, { result: [payout] })
  const unknown = await client.request('GET', '/v1/payout/pt-0000000000000')
  assert.equal(unknown.status, 404)
  assert.equal(unknown.json.code, 'not-found')
  await sleep(settleDelayMs * 2)
  assert.equal(listener.about(payout.id).length, 0, 'Wave documents no payout webhook')
})

test('payout: the same Idempotency-Key and body answer the same payout; another body is a 409', async () => {
  const key = randomUUID()
  const body = { currency: 'XOF', receive_amount: '1000', mobile: '+221555110233', name: 'Moustapha Mbaye' }
  const first = await client.request('POST', '/v1/payout', body, { 'Idempotency-Key': key })
  const reordered = {
    name: 'Moustapha Mbaye',
    mobile: '+221555110233',
    receive_amount: '1000',
    currency: 'XOF',
  }
  const second = await client.request('POST', '/v1/payout', reordered, { 'Idempotency-Key': key })
  assert.equal(second.status, 200)
  assert.deepEqual(second.json, first.json)
  assert.equal(simulator.payouts().filter((payout) => payout.idempotencyKey === key).length, 1)
  const changed = await client.request(
    'POST',
    '/v1/payout',
    { ...body, receive_amount: '2000' },
    { 'Idempotency-Key': key },
  )
  assert.equal(changed.status, 409)
  assert.equal(changed.json.code, 'idempotency-mismatch')
  const missing = await client.request('POST', '/v1/payout', body)
  assert.equal(missing.status, 400)
  assert.deepEqual(missing.json, {
    code: 'request-validation-error',
    message: "An 'Idempotency-Key' header is required for POST requests",
  })
})

test('payout: invalid bodies are refused and create nothing', async () => {
  const count = simulator.payouts().length
  const cases: [Record<string, unknown>, string][] = [
    [{ receive_amount: 500 }, 'receive_amount'],
    [{ receive_amount: '500.5' }, 'receive_amount'],
    [{ receive_amount: '0500' }, 'receive_amount'],
    [{ currency: 'ABC' }, 'currency'],
    [{ payment_reason: 'x'.repeat(41) }, 'payment_reason'],
    [{ name: 'x'.repeat(256) }, 'name'],
  ]
  for (const [overrides, field] of cases) {
    const answer = await client.payout('+221555110219', overrides)
    assert.equal(answer.status, 400, JSON.stringify(overrides))
    assert.equal(answer.json.code, 'request-validation-error')
    assert.ok(
      answer.json.details.some((detail: any) => detail.loc.includes(field)),
      field,
    )
  }
  const badMobile = await client.payout('221555110219')
  assert.equal(badMobile.json.details[0].loc[0], 'mobile')
  const euro = await client.payout('+221555110219', { currency: 'EUR' })
  assert.equal(euro.status, 400)
  assert.equal(euro.json.code, 'currency-mismatch')
  const notJson = await client.request('POST', '/v1/payout', 'x', {
    'Idempotency-Key': randomUUID(),
    'Content-Type': 'text/plain',
  })
  assert.equal(notJson.json.code, 'request-not-json')
  assert.equal(simulator.payouts().length, count)
})

const payoutFailures: [string, string][] = [
  ['101', 'insufficient-funds'],
  ['102', 'recipient-limit-exceeded'],
  ['108', 'recipient-account-inactive'],
]
for (const [ending, code] of payoutFailures) {
  test(`payout test numbers: ${ending}: failed with payout_error ${code}`, async () => {
    const answer = await client.payout(`+221555110${ending}`)
    assert.equal(answer.status, 200)
    assert.equal(answer.json.status, 'failed')
    assert.equal(answer.json.payout_error.error_code, code)
    assert.equal(typeof answer.json.payout_error.error_message, 'string')
  })
}

test('payout test numbers: 103 is processing, then failed; 104 processing for ever; 105 succeeds', async () => {
  const slow = (await client.payout('+221555110103')).json
  const stuck = (await client.payout('+221555110104')).json
  const silent = (await client.payout('+221555110105')).json
  assert.equal(slow.status, 'processing')
  assert.equal(slow.payout_error, undefined)
  assert.equal(stuck.status, 'processing')
  assert.equal(silent.status, 'succeeded')
  const failed = await pollUntilDefined(async () => {
    const answer = await client.request('GET', `/v1/payout/${slow.id}`)
    return answer.json.status === 'processing' ? undefined : answer.json
  }, 'the 103 payout to fail')
  assert.equal(failed.status, 'failed')
  assert.equal(failed.payout_error.error_code, 'internal-server-error')
  await sleep(settleDelayMs * 3)
  assert.equal((await client.request('GET', `/v1/payout/${stuck.id}`)).json.status, 'processing')
})

test('payout test numbers: 106 answers 500; a retry with the same key finds the payout', async () => {
  const key = randomUUID()
  const reference = `payout-${randomUUID()}`
  const first = await client.payout('+221555110106', { client_reference: reference }, key)
  assert.equal(first.status, 500)
  assert.equal(first.json.code, 'internal-server-error')
  const retry = await client.payout('+221555110106', { client_reference: reference }, key)
  assert.equal(retry.status, 200)
  assert.equal(retry.json.status, 'succeeded')
  assert.equal(simulator.payouts().filter((payout) => payout.idempotencyKey === key).length, 1)
})

test('payout test numbers: 107 answers only after hangMs; the search finds it meanwhile', async () => {
  const reference = `payout-${randomUUID()}`
  const startedAt = Date.now()
  const late = client.payout('+221555110107', { client_reference: reference })
  const found = await pollUntilDefined(async () => {
    const search = await client.request('GET', `/v1/payouts/search?client_reference=${reference}`)
    return search.json.result[0]
  }, 'the 107 payout')
  assert.equal(found.status, 'succeeded')
  const answer = await late
  assert.equal(answer.status, 200)
  assert.ok(Date.now() - startedAt >= hangMs - 25, 'answered before hangMs')
})

test('payout: asynchronous settlement answers processing, then succeeded', async () => {
  const { otherClient } = await startOther({ payoutSettlement: 'asynchronous' })
  const payout = (await otherClient.payout('+221555110219')).json
  assert.equal(payout.status, 'processing')
  const done = await pollUntilDefined(async () => {
    const answer = await otherClient.request('GET', `/v1/payout/${payout.id}`)
    return answer.json.status === 'processing' ? undefined : answer.json
  }, 'the payout to settle')
  assert.equal(done.status, 'succeeded')
})

test('payout: reverse a succeeded payout, idempotently; not a failed one, not after the window', async () => {
  const payout = (await client.payout('+221555110219')).json
  const reversed = await client.request('POST', `/v1/payout/${payout.id}/reverse`)
  assert.equal(reversed.status, 200)
  assert.equal(reversed.text, '')
  assert.equal((await client.request('GET', `/v1/payout/${payout.id}`)).json.status, 'reversed')
  assert.equal((await client.request('POST', `/v1/payout/${payout.id}/reverse`)).status, 200)
  const failed = (await client.payout('+221555110101')).json
  assert.equal((await client.request('POST', `/v1/payout/${failed.id}/reverse`)).status, 409)
  const unknown = await client.request('POST', '/v1/payout/pt-0000000000000/reverse')
  assert.equal(unknown.json.code, 'not-found')
  const { otherClient } = await startOther({ payoutReversalWindowSeconds: 0 })
  const old = (await otherClient.payout('+221555110219')).json
  await sleep(5)
  const late = await otherClient.request('POST', `/v1/payout/${old.id}/reverse`)
  assert.equal(late.json.code, 'payout-reversal-time-limit-exceeded')
})

test('control: sessions and payouts are listed and forced; a forced end sends its webhook', async () => {
  const session = (await client.createSession()).json
  const control = (path: string, body?: unknown) =>
    fetch(`${simulator.url}/_simulator/${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (response) => ({
      status: response.status,
      json: (await response.json().catch(() => undefined)) as any,
    }))
  const forced = await control(`sessions/${session.id}/status`, { status: 'failed', code: 'blocked-account' })
  assert.equal(forced.status, 200)
  assert.equal(forced.json.view.last_payment_error.code, 'blocked-account')
  const [event] = await eventsAbout(session.id)
  assert.equal(event?.json.type, 'checkout.session.payment_failed')
  const paid = await control(`sessions/${session.id}/pay`, {})
  assert.equal(paid.json.result, 'succeeded')
  assert.equal((await control(`sessions/${session.id}/status`, { status: 'expired' })).status, 409)
  assert.equal((await control(`sessions/${session.id}`)).json.view.checkout_status, 'complete')
  assert.ok((await control('sessions')).json.length > 0)
  const payout = (await client.payout('+221555110104')).json
  const forcedPayout = await control(`payouts/${payout.id}/status`, {
    status: 'failed',
    error_code: 'recipient-minor',
  })
  assert.equal(forcedPayout.json.view.payout_error.error_code, 'recipient-minor')
  assert.ok(simulator.forcePayout(payout.id, { status: 'succeeded' }))
  assert.equal((await control(`payouts/${payout.id}`)).json.view.status, 'succeeded')
  assert.equal((await control('nothing-here')).status, 404)
})

test('control: requests, callbacks, a test event, the connection entry, expire-tokens', async () => {
  const answer = await fetch(`${simulator.url}/_simulator/webhooks/test`, { method: 'POST' })
  assert.equal(answer.status, 202)
  await pollUntilDefined(
    () => listener.received.find((event) => event.json.type === 'test.test_event'),
    'the test event',
  )
  const callbacks: any = await (await fetch(`${simulator.url}/_simulator/callbacks`)).json()
  assert.ok(callbacks.some((sent: any) => sent.status === 200 && sent.body.includes('test.test_event')))
  const requests: any = await (await fetch(`${simulator.url}/_simulator/requests`)).json()
  assert.ok(requests.some((request: any) => request.url === '/_simulator/webhooks/test'))
  const entry = await (
    await fetch(`${simulator.url}/_simulator/connection?channel=wave-sn&countries=SN,CI`)
  ).json()
  assert.deepEqual(entry, simulator.connection('wave-sn', ['SN', 'CI']))
  assert.equal((await fetch(`${simulator.url}/_simulator/expire-tokens`, { method: 'POST' })).status, 204)
  assert.equal((await client.getSession('cos-none')).status, 404, 'the key still works')
})

test('connection(): an OPERATORS_FILE entry whose key works', async () => {
  const entry = simulator.connection('wave', ['SN', 'CI']) as any
  assert.deepEqual(Object.keys(entry).sort(), [
    'adapter',
    'apiKey',
    'baseUrl',
    'channel',
    'countries',
    'id',
    'webhookSecret',
  ])
  assert.equal(entry.id, 'wave-sn-ci', 'named by its channel and countries, unique in any file')
  assert.equal(entry.adapter, 'wave')
  assert.equal(entry.baseUrl, simulator.url)
  assert.deepEqual(entry.countries, ['SN', 'CI'])
  assert.match(entry.webhookSecret, /^wave_sn_WHS_/)
  const answer = await fetch(`${entry.baseUrl}/v1/checkout/sessions/search?client_reference=x`, {
    headers: { Authorization: `Bearer ${entry.apiKey}` },
  })
  assert.equal(answer.status, 200)
})

test('close(): ends a request still being held', async () => {
  const held = await startWaveSimulator({ hangMs: 60_000 })
  const heldClient = new WaveClient(held)
  const outcome = heldClient.payout('+221555110107').then(
    () => 'answered',
    () => 'cut',
  )
  await pollUntilDefined(() => (held.payouts().length > 0 ? true : undefined), 'the held request')
  const startedAt = Date.now()
  await held.close()
  assert.ok(Date.now() - startedAt < 1000)
  assert.equal(await outcome, 'cut')
})

/** GET /v1/transactions of a day, every page, following end_cursor while has_next_page. */
async function allTransactions(waveClient: WaveClient, date: string) {
  const pages: any[] = []
  let after: string | undefined
  do {
    const page = await waveClient.request(
      'GET',
      `/v1/transactions?date=${date}${after === undefined ? '' : `&after=${encodeURIComponent(after)}`}`,
    )
    assert.equal(page.status, 200, page.text)
    pages.push(page.json)
    after = page.json.page_info.has_next_page ? page.json.page_info.end_cursor : undefined
  } while (after !== undefined)
  return { pages, items: pages.flatMap((page) => page.items) }
}

const today = () => new Date().toISOString().slice(0, 10)

test('balance and transactions: a paid checkout, a payout, a refund and a reversal each leave a transaction; the balance follows', async () => {
  const { otherClient } = await startOther({ openingBalance: '100000', checkoutFeePercent: 1 })
  const opened = await otherClient.request('GET', '/v1/balance')
  assert.deepEqual(opened.json, { amount: '100000', currency: 'XOF' })
  const session = (await otherClient.createSession({ client_reference: 'tok1.main' })).json
  assert.equal(
    (await otherClient.request('POST', `/_simulator/sessions/${session.id}/pay`, { mobile: '+221770000001' }))
      .status,
    200,
  )
  const payout = (await otherClient.payout('+221770000002', { client_reference: 'tok2.main' })).json
  assert.equal((await otherClient.request('POST', `/v1/checkout/sessions/${session.id}/refund`)).status, 200)
  assert.equal((await otherClient.request('POST', `/v1/payout/${payout.id}/reverse`)).status, 200)

  const { items } = await allTransactions(otherClient, today())
  const paid = (await otherClient.getSession(session.id)).json
  assert.deepEqual(
    items.map(({ timestamp, ...item }) => item),
    [
      {
        transaction_id: paid.transaction_id,
        transaction_type: 'merchant_payment',
        amount: '990',
        fee: '10',
        currency: 'XOF',
        balance: '100990',
        counterparty_mobile: '+221770000001',
        client_reference: 'tok1.main',
        checkout_api_session_id: session.id,
      },
      {
        transaction_id: payout.id,
        transaction_type: 'payout',
        amount: '-505',
        fee: '5',
        currency: 'XOF',
        balance: '100485',
        counterparty_name: 'Fatou Ndiaye',
        counterparty_mobile: '+221770000002',
        client_reference: 'tok2.main',
      },
      {
        transaction_id: items[2].transaction_id,
        transaction_type: 'merchant_payment_refund',
        amount: '-1000',
        fee: '0',
        currency: 'XOF',
        balance: '99485',
        counterparty_mobile: '+221770000001',
        client_reference: 'tok1.main',
        checkout_api_session_id: session.id,
        is_reversal: true,
      },
      {
        transaction_id: items[3].transaction_id,
        transaction_type: 'payout_reversal',
        amount: '505',
        fee: '0',
        currency: 'XOF',
        balance: '99990',
        counterparty_name: 'Fatou Ndiaye',
        counterparty_mobile: '+221770000002',
        client_reference: 'tok2.main',
        is_reversal: true,
      },
    ],
  )
  for (const item of items) assert.match(item.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
  assert.deepEqual((await otherClient.request('GET', '/v1/balance')).json, {
    amount: '99990',
    currency: 'XOF',
  })
  const failed = await otherClient.payout('+221770000101')
  assert.equal(failed.json.status, 'failed')
  assert.equal((await allTransactions(otherClient, today())).items.length, 4, 'a failed payout moved nothing')
})

test('transactions: pages follow end_cursor while has_next_page, oldest first, each balance the one before plus the amount', async () => {
  const { otherClient } = await startOther({ transactionsPageSize: 3 })
  const seeded = await otherClient.request('POST', '/_simulator/books/seed', {
    count: 10,
    date: '2026-03-04',
  })
  assert.equal(seeded.status, 200, seeded.text)
  const { pages, items } = await allTransactions(otherClient, '2026-03-04')
  assert.deepEqual(
    pages.map((page) => page.items.length),
    [3, 3, 3, 1],
  )
  assert.deepEqual(
    pages.map((page) => page.page_info.has_next_page),
    [true, true, true, false],
  )
  assert.equal(pages[0].page_info.start_cursor, null)
  assert.equal(pages[1].page_info.start_cursor, pages[0].page_info.end_cursor)
  assert.ok(pages.every((page) => page.date === '2026-03-04'))
  const times = items.map((item) => Date.parse(item.timestamp))
  assert.deepEqual(
    times,
    [...times].sort((a, b) => a - b),
  )
  let balance = 1_000_000
  for (const item of items) {
    balance += Number(item.amount)
    assert.equal(Number(item.balance), balance)
  }
  assert.equal(new Set(items.map((item) => item.transaction_id)).size, 10)
  assert.equal((await allTransactions(otherClient, '2026-03-05')).items.length, 0)
  const badDate = await otherClient.request('GET', '/v1/transactions?date=2026-02-30')
  assert.equal(badDate.status, 400)
  assert.deepEqual(badDate.json.details[0].loc, ['query', 'date'])
  const badCursor = await otherClient.request('GET', '/v1/transactions?date=2026-03-04&after=nope')
  assert.equal(badCursor.status, 400)
  assert.deepEqual(badCursor.json.details[0].loc, ['query', 'after'])
  const unauthorised = await new WaveClient(simulator, 'wave_sn_prod_wrong').request('GET', '/v1/balance')
  assert.equal(unauthorised.status, 401)
})

test('books: each break of the reconciliation shows in the transactions and the balance', async () => {
  const { other, otherClient } = await startOther({
    openingBalance: '50000',
    checkoutFeePercent: 1,
    autoPay: false,
  })
  const breaks = (body: unknown) => otherClient.request('POST', '/_simulator/books/breaks', body)
  const payout = (
    await otherClient.payout('+221770000003', { client_reference: 'tok3.main', receive_amount: '1000' })
  ).json
  const missing = (await otherClient.createSession({ client_reference: 'tok4.main' })).json
  await otherClient.request('POST', `/_simulator/sessions/${missing.id}/pay`, {})
  const silent = (await otherClient.createSession({ client_reference: 'tok5.main', amount: '300' })).json

  assert.equal((await breaks({ kind: 'unknown-line', amount: '700' })).status, 200)
  assert.equal((await breaks({ kind: 'duplicate', payment: payout.id })).status, 200)
  assert.equal((await breaks({ kind: 'missing-line', payment: missing.id })).status, 200)
  assert.equal((await breaks({ kind: 'balance-drift', amount: '100', direction: 'out' })).status, 200)
  assert.equal((await breaks({ kind: 'silent-success', payment: silent.id })).status, 200)
  const edited = await breaks({ kind: 'other-amount', payment: payout.id, amount: '900' })
  assert.equal(edited.status, 200, edited.text)

  const { items } = await allTransactions(otherClient, today())
  const byReference = (reference: string | undefined) =>
    items.filter((item) => item.client_reference === reference)
  assert.deepEqual(
    byReference('tok3.main').map((item) => item.amount),
    ['-910', '-1010'],
    'another amount, then the duplicate as first recorded',
  )
  assert.notEqual(byReference('tok3.main')[0].transaction_id, byReference('tok3.main')[1].transaction_id)
  assert.deepEqual(
    byReference(undefined).map((item) => item.amount),
    ['693'],
    'a payment nobody asked for, less its fee',
  )
  assert.deepEqual(byReference('tok4.main'), [], 'the paid checkout has no line')
  assert.deepEqual(
    byReference('tok5.main').map((item) => item.amount),
    ['297'],
  )
  assert.equal((await otherClient.getSession(silent.id)).json.payment_status, 'succeeded')
  assert.deepEqual(other.callbacks, [], 'no webhook for the silent success (no webhook URL was even set)')

  const balance = Number((await otherClient.request('GET', '/v1/balance')).json.amount)
  const listed = items.reduce((sum, item) => sum + Number(item.amount), 50_000)
  assert.equal(listed - balance, 100, 'the balance moved 100 that no line shows')
  const jumps = items
    .slice(1)
    .map((item, index) => Number(items[index].balance) + Number(item.amount) - Number(item.balance))
    .filter((jump) => jump !== 0)
  assert.deepEqual(jumps, [100], 'one line’s balance is not the one before it plus its amount')
  assert.equal((await breaks({ kind: 'duplicate', payment: 'pt-unknown' })).status, 404)
  assert.equal((await breaks({ kind: 'other-amount', payment: payout.id })).status, 400)
})
