import assert from 'node:assert/strict'
import { createHash, randomUUID, verify } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'
import { gunzipSync } from 'node:zlib'
import { parse } from 'csv-parse/sync'
import {
  type RunningPawapaySimulator,
  startPawapaySimulator,
} from '../../src/simulators/pawapay/pawapay-simulator.ts'
import { type Receiver, startReceiver } from '../support/receiver.ts'
import { pollUntilDefined, sleep } from '../support/wait.ts'

// The pawaPay simulator, driven as a client of pawaPay's published Merchant API v2 would drive it
// (docs.pawapay.io/v2): a bearer API token, deposits, payouts and refunds with their status checks,
// callbacks received on a local listener, and the toolkit endpoints.

const settleDelayMs = 60
const hangMs = 300

interface Answer {
  status: number
  json: any
}

let simulator: RunningPawapaySimulator
let listener: Receiver

/** The callbacks whose body names this id. */
const callbacksAbout = (id: string) => listener.requests.filter((callback) => callback.body.includes(id))

/** A tiny client written from pawaPay's v2 API reference, not shared with anything else. */
async function call(method: string, path: string, body?: unknown, token: string | null = simulator.apiToken) {
  const headers: Record<string, string> = token === null ? {} : { Authorization: `Bearer ${token}` }
  if (body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(`${simulator.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, json: text === '' ? undefined : JSON.parse(text) } as Answer
}

function depositBody(phoneNumber: string, overrides: Record<string, unknown> = {}) {
  return {
    depositId: randomUUID(),
    amount: '100',
    currency: 'XOF',
    payer: { type: 'MMO', accountDetails: { phoneNumber, provider: 'MOOV_BEN' } },
    clientReferenceId: 'INV-1',
    customerMessage: 'Commande 1',
    metadata: [{ orderId: 'ORD-1' }, { customerId: 'a@b.c', isPII: true }],
    ...overrides,
  }
}

function payoutBody(phoneNumber: string, overrides: Record<string, unknown> = {}) {
  return {
    payoutId: randomUUID(),
    amount: '2500',
    currency: 'XAF',
    recipient: { type: 'MMO', accountDetails: { phoneNumber, provider: 'MTN_MOMO_CMR' } },
    ...overrides,
  }
}

async function deposit(phoneNumber: string, overrides: Record<string, unknown> = {}) {
  const body = depositBody(phoneNumber, overrides)
  return { id: body.depositId, body, answer: await call('POST', '/v2/deposits', body) }
}

async function finalStatus(kind: 'deposits' | 'payouts' | 'refunds', id: string) {
  return pollUntilDefined(async () => {
    const answer = await call('GET', `/v2/${kind}/${id}`)
    return ['COMPLETED', 'FAILED'].includes(answer.json?.data?.status) ? answer : undefined
  }, `final status of ${kind} ${id}`)
}

const callbackOf = (id: string) => pollUntilDefined(() => callbacksAbout(id)[0], `callback of ${id}`)

before(async () => {
  listener = await startReceiver()
  simulator = await startPawapaySimulator({
    settleDelayMs,
    hangMs,
    depositCallbackUrl: listener.url('/deposits'),
    payoutCallbackUrl: listener.url('/payouts'),
    refundCallbackUrl: listener.url('/refunds'),
    closedProviders: ['ORANGE_CIV'],
  })
})

after(async () => {
  await simulator.close()
  await listener.close()
})

test('auth: no token is 401 NO_AUTHENTICATION, a wrong one 401 AUTHENTICATION_ERROR', async () => {
  const body = depositBody('22951345789')
  const missing = await call('POST', '/v2/deposits', body, null)
  assert.equal(missing.status, 401)
  assert.deepEqual(missing.json, {
    depositId: body.depositId,
    status: 'REJECTED',
    failureReason: {
      failureCode: 'NO_AUTHENTICATION',
      failureMessage: missing.json.failureReason.failureMessage,
    },
  })
  const wrong = await call('GET', `/v2/deposits/${randomUUID()}`, undefined, 'not-the-token')
  assert.equal(wrong.status, 401)
  assert.equal(wrong.json.failureReason.failureCode, 'AUTHENTICATION_ERROR')
  assert.equal((await call('GET', `/v2/deposits/${body.depositId}`)).json.status, 'NOT_FOUND')
})

test('auth: expiring tokens revokes the current API token; connection() carries the next', async () => {
  const other = await startPawapaySimulator({ apiToken: 'first-token' })
  try {
    const read = (token: string) =>
      fetch(`${other.url}/v2/active-conf`, { headers: { Authorization: `Bearer ${token}` } })
    assert.equal((await read('first-token')).status, 200)
    other.expireAccessTokens()
    assert.equal((await read('first-token')).status, 401)
    const next = other.connection('mtn-momo', ['CM']).apiToken as string
    assert.notEqual(next, 'first-token')
    assert.equal(next, other.apiToken)
    assert.equal((await read(next)).status, 200)
  } finally {
    await other.close()
  }
})

test('deposit: ACCEPTED, then COMPLETED with one callback whose body is the status data', async () => {
  const { id, answer } = await deposit('22951345789')
  assert.equal(answer.status, 200)
  assert.deepEqual(Object.keys(answer.json), ['depositId', 'status', 'created'])
  assert.equal(answer.json.status, 'ACCEPTED')
  assert.match(answer.json.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
  const final = await finalStatus('deposits', id)
  assert.equal(final.json.status, 'FOUND')
  const data = final.json.data
  assert.equal(data.status, 'COMPLETED')
  assert.equal(data.amount, '100.00')
  assert.equal(data.country, 'BEN')
  assert.deepEqual(data.payer, {
    type: 'MMO',
    accountDetails: { phoneNumber: '22951345789', provider: 'MOOV_BEN' },
  })
  assert.equal(data.clientReferenceId, 'INV-1')
  assert.deepEqual(data.metadata, { orderId: 'ORD-1', customerId: 'a@b.c' })
  assert.equal(typeof data.providerTransactionId, 'string')
  assert.equal(data.failureReason, undefined)
  const callback = await callbackOf(id)
  assert.equal(callback.path, '/deposits')
  assert.match(String(callback.headers['content-type']), /^application\/json/)
  const { clientReferenceId: _omitted, ...withoutReference } = data
  assert.deepEqual(JSON.parse(callback.body), withoutReference)
  await sleep(settleDelayMs)
  assert.equal(callbacksAbout(id).length, 1)
})

test('deposit: a repeated depositId is DUPLICATE_IGNORED and changes nothing', async () => {
  const { id, body, answer } = await deposit('22951345789')
  const again = await call('POST', '/v2/deposits', { ...body, amount: '500' })
  assert.equal(again.status, 200)
  assert.deepEqual(again.json, { depositId: id, status: 'DUPLICATE_IGNORED', created: answer.json.created })
  assert.equal((await call('GET', `/v2/deposits/${id}`)).json.data.amount, '100.00')
})

const rejectedCases: [string, Record<string, unknown>, string][] = [
  [
    'an unknown provider',
    { payer: { type: 'MMO', accountDetails: { phoneNumber: '22951345789', provider: 'NOPE_BEN' } } },
    'INVALID_PROVIDER',
  ],
  ['another currency', { currency: 'XAF' }, 'INVALID_CURRENCY'],
  [
    'a Cameroonian number for MOOV_BEN',
    { payer: { type: 'MMO', accountDetails: { phoneNumber: '237653456789', provider: 'MOOV_BEN' } } },
    'INVALID_PHONE_NUMBER',
  ],
  [
    'a number with a +',
    { payer: { type: 'MMO', accountDetails: { phoneNumber: '+22951345789', provider: 'MOOV_BEN' } } },
    'INVALID_PHONE_NUMBER',
  ],
  ['decimals XOF does not take', { amount: '100.5' }, 'INVALID_AMOUNT'],
  ['an amount under the limit', { amount: '0' }, 'AMOUNT_OUT_OF_BOUNDS'],
  [
    'a CLOSED provider',
    {
      currency: 'XOF',
      payer: { type: 'MMO', accountDetails: { phoneNumber: '2250503456789', provider: 'ORANGE_CIV' } },
    },
    'PROVIDER_TEMPORARILY_UNAVAILABLE',
  ],
]
for (const [what, overrides, failureCode] of rejectedCases) {
  test(`deposit: ${what} is 200 REJECTED ${failureCode}, and not stored`, async () => {
    const { id, answer } = await deposit('22951345789', overrides)
    assert.equal(answer.status, 200)
    assert.equal(answer.json.depositId, id)
    assert.equal(answer.json.status, 'REJECTED')
    assert.equal(answer.json.failureReason.failureCode, failureCode)
    assert.equal(typeof answer.json.failureReason.failureMessage, 'string')
    assert.equal((await call('GET', `/v2/deposits/${id}`)).json.status, 'NOT_FOUND')
  })
}

test('deposit: malformed bodies are 400 with the documented technical codes', async () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ amount: undefined }, 'MISSING_PARAMETER'],
    [{ payer: undefined }, 'MISSING_PARAMETER'],
    [{ extra: 1 }, 'UNSUPPORTED_PARAMETER'],
    [{ depositId: 'order-1' }, 'INVALID_PARAMETER'],
    [{ amount: 100 }, 'INVALID_PARAMETER'],
    [{ amount: '-5' }, 'INVALID_PARAMETER'],
    [{ customerMessage: 'abc' }, 'INVALID_PARAMETER'],
    [
      { payer: { type: 'MSISDN', accountDetails: { phoneNumber: '22951345789', provider: 'MOOV_BEN' } } },
      'INVALID_PARAMETER',
    ],
    [{ metadata: [{ orderId: '1' }, { orderId: '2' }] }, 'DUPLICATE_METADATA_FIELD'],
  ]
  for (const [overrides, failureCode] of cases) {
    const { answer } = await deposit('22951345789', overrides)
    assert.equal(answer.status, 400, JSON.stringify(overrides))
    assert.equal(answer.json.status, 'REJECTED')
    assert.equal(answer.json.failureReason.failureCode, failureCode, JSON.stringify(overrides))
  }
  const notJson = await call('POST', '/v2/deposits', '{"depositId":')
  assert.equal(notJson.status, 400)
  assert.equal(notJson.json.failureReason.failureCode, 'INVALID_INPUT')
})

test('status: unknown ids are 200 NOT_FOUND for deposits, payouts and refunds', async () => {
  for (const kind of ['deposits', 'payouts', 'refunds']) {
    const answer = await call('GET', `/v2/${kind}/${randomUUID()}`)
    assert.equal(answer.status, 200)
    assert.deepEqual(answer.json, { status: 'NOT_FOUND' })
  }
})

const depositFailures: [string, string][] = [
  ['101', 'INSUFFICIENT_BALANCE'],
  ['102', 'PAYMENT_NOT_APPROVED'],
  ['103', 'PAYMENT_NOT_APPROVED'],
  ['108', 'PAYER_NOT_FOUND'],
]
for (const [ending, failureCode] of depositFailures) {
  test(`deposit: ${ending}: FAILED ${failureCode}, with its callback`, async () => {
    const { id } = await deposit(`22951345${ending}`)
    const final = await finalStatus('deposits', id)
    assert.equal(final.json.data.status, 'FAILED')
    assert.equal(final.json.data.failureReason.failureCode, failureCode)
    assert.equal(final.json.data.providerTransactionId, undefined)
    const callback = await callbackOf(id)
    assert.deepEqual(JSON.parse(callback.body).failureReason, final.json.data.failureReason)
  })
}

test('deposit: 104: PROCESSING for ever, no callback; its callback cannot be resent', async () => {
  const { id } = await deposit('22951345104')
  await sleep(settleDelayMs * 3)
  assert.equal((await call('GET', `/v2/deposits/${id}`)).json.data.status, 'PROCESSING')
  assert.equal(callbacksAbout(id).length, 0)
  const resend = await call('POST', `/v2/deposits/resend-callback/${id}`)
  assert.equal(resend.status, 200)
  assert.equal(resend.json.status, 'REJECTED')
  assert.equal(resend.json.failureReason.failureCode, 'INVALID_STATE')
})

test('deposit: 105: COMPLETED without a callback, until resend-callback asks for it', async () => {
  const { id } = await deposit('22951345105')
  const final = await finalStatus('deposits', id)
  assert.equal(final.json.data.status, 'COMPLETED')
  await sleep(settleDelayMs * 2)
  assert.equal(callbacksAbout(id).length, 0)
  const resend = await call('POST', `/v2/deposits/resend-callback/${id}`)
  assert.deepEqual(resend.json, { depositId: id, status: 'ACCEPTED' })
  assert.equal(JSON.parse((await callbackOf(id)).body).status, 'COMPLETED')
  const unknown = await call('POST', `/v2/deposits/resend-callback/${randomUUID()}`)
  assert.equal(unknown.json.failureReason.failureCode, 'NOT_FOUND')
})

test('deposit: 106: answered 500 UNKNOWN_ERROR, yet stored; it completes with its callback', async () => {
  const { id, body, answer } = await deposit('22951345106')
  assert.equal(answer.status, 500)
  assert.equal(answer.json.depositId, id)
  assert.equal(answer.json.failureReason.failureCode, 'UNKNOWN_ERROR')
  assert.equal((await call('POST', '/v2/deposits', body)).json.status, 'DUPLICATE_IGNORED')
  assert.equal((await finalStatus('deposits', id)).json.data.status, 'COMPLETED')
  await callbackOf(id)
})

test('deposit: 107: stored at once, answered ACCEPTED only after hangMs; it completes', async () => {
  const startedAt = Date.now()
  const late = deposit('22951345107')
  const id = await pollUntilDefined(
    () => simulator.transactions().find((row) => row.outcome === '107')?.id,
    '107',
  )
  assert.equal((await call('GET', `/v2/deposits/${id}`)).json.status, 'FOUND')
  const { answer } = await late
  assert.equal(answer.json.status, 'ACCEPTED')
  assert.ok(Date.now() - startedAt >= hangMs - 25, 'answered before hangMs')
  assert.equal((await finalStatus('deposits', id)).json.data.status, 'COMPLETED')
})

test('payout: ACCEPTED, COMPLETED, callback names the recipient', async () => {
  const body = payoutBody('237653456789', { clientReferenceId: 'PAY-1' })
  const answer = await call('POST', '/v2/payouts', body)
  assert.deepEqual(Object.keys(answer.json), ['payoutId', 'status', 'created'])
  assert.equal(answer.json.status, 'ACCEPTED')
  const final = await finalStatus('payouts', body.payoutId)
  assert.equal(final.json.data.status, 'COMPLETED')
  assert.equal(final.json.data.country, 'CMR')
  assert.equal(final.json.data.amount, '2500.00')
  assert.deepEqual(final.json.data.recipient.accountDetails, {
    phoneNumber: '237653456789',
    provider: 'MTN_MOMO_CMR',
  })
  const callback = await callbackOf(body.payoutId)
  assert.equal(callback.path, '/payouts')
  assert.equal(JSON.parse(callback.body).payoutId, body.payoutId)
  assert.equal((await call('POST', '/v2/payouts', body)).json.status, 'DUPLICATE_IGNORED')
})

test('payout: 108: RECIPIENT_NOT_FOUND; 101: WALLET_LIMIT_REACHED; a payer field is unsupported', async () => {
  const unknown = payoutBody('237653456108')
  const limited = payoutBody('237653456101')
  await call('POST', '/v2/payouts', unknown)
  await call('POST', '/v2/payouts', limited)
  assert.equal(
    (await finalStatus('payouts', unknown.payoutId)).json.data.failureReason.failureCode,
    'RECIPIENT_NOT_FOUND',
  )
  assert.equal(
    (await finalStatus('payouts', limited.payoutId)).json.data.failureReason.failureCode,
    'WALLET_LIMIT_REACHED',
  )
  const wrong = await call('POST', '/v2/payouts', { ...payoutBody('237653456789'), payer: {} })
  assert.equal(wrong.status, 400)
  assert.equal(wrong.json.failureReason.failureCode, 'UNSUPPORTED_PARAMETER')
})

async function completedDeposit(amount = '1000') {
  const { id } = await deposit('22951345789', { amount })
  await finalStatus('deposits', id)
  return id
}

test('refund: a partial then the rest of a deposit, to its payer; then nothing is left', async () => {
  const depositId = await completedDeposit('1000')
  const partial = { refundId: randomUUID(), depositId, amount: '300', currency: 'XOF' }
  assert.deepEqual(Object.keys((await call('POST', '/v2/refunds', partial)).json), [
    'refundId',
    'status',
    'created',
  ])
  const partialFinal = await finalStatus('refunds', partial.refundId)
  assert.equal(partialFinal.json.data.status, 'COMPLETED')
  assert.equal(partialFinal.json.data.amount, '300.00')
  assert.deepEqual(partialFinal.json.data.recipient.accountDetails, {
    phoneNumber: '22951345789',
    provider: 'MOOV_BEN',
  })
  assert.equal(JSON.parse((await callbackOf(partial.refundId)).body).refundId, partial.refundId)
  const tooLarge = await call('POST', '/v2/refunds', {
    refundId: randomUUID(),
    depositId,
    amount: '800',
    currency: 'XOF',
  })
  assert.equal(tooLarge.json.failureReason.failureCode, 'AMOUNT_TOO_LARGE')
  const rest = { refundId: randomUUID(), depositId }
  await call('POST', '/v2/refunds', rest)
  assert.equal((await finalStatus('refunds', rest.refundId)).json.data.amount, '700.00')
  const again = await call('POST', '/v2/refunds', { refundId: randomUUID(), depositId })
  assert.equal(again.json.failureReason.failureCode, 'DEPOSIT_ALREADY_REFUNDED')
})

test('refund: unknown, failed and busy deposits are rejected with their codes', async () => {
  const unknown = await call('POST', '/v2/refunds', { refundId: randomUUID(), depositId: randomUUID() })
  assert.equal(unknown.status, 200)
  assert.equal(unknown.json.status, 'REJECTED')
  assert.equal(unknown.json.failureReason.failureCode, 'NOT_FOUND')
  const { id: failed } = await deposit('22951345102')
  await finalStatus('deposits', failed)
  const invalid = await call('POST', '/v2/refunds', { refundId: randomUUID(), depositId: failed })
  assert.equal(invalid.json.failureReason.failureCode, 'INVALID_STATE')
  const depositId = await completedDeposit()
  await call('POST', '/v2/refunds', { refundId: randomUUID(), depositId, amount: '10', currency: 'XOF' })
  const busy = await call('POST', '/v2/refunds', {
    refundId: randomUUID(),
    depositId,
    amount: '10',
    currency: 'XOF',
  })
  assert.equal(busy.json.failureReason.failureCode, 'REFUND_IN_PROGRESS')
  const noCurrency = await call('POST', '/v2/refunds', { refundId: randomUUID(), depositId, amount: '10' })
  assert.equal(noCurrency.status, 400)
  assert.equal(noCurrency.json.failureReason.failureCode, 'MISSING_PARAMETER')
})

test('toolkit: active configuration, predict provider and the public key', async () => {
  const conf = await call('GET', '/v2/active-conf?country=BEN&operationType=DEPOSIT')
  assert.equal(conf.status, 200)
  assert.equal(conf.json.signatureConfiguration.signedCallbacks, false)
  const [benin] = conf.json.countries
  assert.equal(benin.country, 'BEN')
  assert.equal(benin.prefix, '229')
  const moov = benin.providers.find((provider: any) => provider.provider === 'MOOV_BEN')
  const operation = moov.currencies[0].operationTypes.DEPOSIT
  assert.equal(moov.currencies[0].currency, 'XOF')
  assert.equal(operation.decimalsInAmount, 'NONE')
  assert.equal(operation.status, 'OPERATIONAL')
  assert.equal(operation.callbackUrl, listener.url('/deposits'))
  assert.equal(moov.currencies[0].operationTypes.PAYOUT, undefined)
  const predicted = await call('POST', '/v2/predict-provider', { phoneNumber: '+237 6534-56789' })
  assert.deepEqual(predicted.json, { country: 'CMR', provider: 'MTN_MOMO_CMR', phoneNumber: '237653456789' })
  const invalid = await call('POST', '/v2/predict-provider', { phoneNumber: '12' })
  assert.equal(invalid.status, 400)
  const [key] = (await call('GET', '/v2/public-key/http')).json
  assert.equal(key.id, simulator.signingKey.id)
  assert.match(key.key, /BEGIN PUBLIC KEY/)
})

test('connection(): the OPERATORS_FILE entry names the provider of the channel in each country', async () => {
  const entry = simulator.connection('moov-money', ['BJ']) as any
  assert.deepEqual(entry, {
    id: 'moov-money-bj',
    channel: 'moov-money',
    countries: ['BJ'],
    adapter: 'pawapay',
    baseUrl: simulator.url,
    apiToken: simulator.apiToken,
    providers: { BJ: 'MOOV_BEN' },
  })
  const providers = (channel: string, countries: string[]) =>
    (simulator.connection(channel, countries) as any).providers
  assert.deepEqual(providers('mtn-momo', ['CM', 'CI', 'BJ']), {
    CM: 'MTN_MOMO_CMR',
    CI: 'MTN_MOMO_CIV',
    BJ: 'MTN_MOMO_BEN',
  })
  assert.deepEqual(providers('orange-money', ['SN', 'CM']), { SN: 'ORANGE_SEN', CM: 'ORANGE_CMR' })
  assert.deepEqual(providers('airtel-money', ['UG', 'CD']), { UG: 'AIRTEL_OAPI_UGA', CD: 'AIRTEL_COD' })
  assert.deepEqual(providers('mpesa', ['KE', 'BJ']), { KE: 'MPESA_KEN' })
  const control = await call('GET', '/_simulator/connection?channel=wave&countries=SN,CI', undefined, null)
  assert.deepEqual(control.json.providers, { SN: 'WAVE_SEN', CI: 'WAVE_CIV' })
})

test('control: a forced status sends its callback; transactions, callbacks and requests are listed', async () => {
  const { id } = await deposit('22951345104')
  const forced = await call(
    'POST',
    `/_simulator/transactions/${id}/status`,
    { status: 'FAILED', failureCode: 'PAYER_LIMIT_REACHED' },
    null,
  )
  assert.equal(forced.status, 200)
  assert.equal(forced.json.view.failureReason.failureCode, 'PAYER_LIMIT_REACHED')
  assert.equal(JSON.parse((await callbackOf(id)).body).failureReason.failureCode, 'PAYER_LIMIT_REACHED')
  const listed = await call('GET', `/_simulator/transactions/${id}`, undefined, null)
  assert.equal(listed.json[0].view.status, 'FAILED')
  assert.ok(
    (await call('GET', '/_simulator/callbacks', undefined, null)).json.some((sent: any) =>
      sent.body.includes(id),
    ),
  )
  assert.ok((await call('GET', '/_simulator/requests', undefined, null)).json.length > 0)
  assert.equal(simulator.forceStatus(randomUUID(), { status: 'COMPLETED' }), false)
})

const signingAvailable = await import('http-message-signatures' as string).then(
  () => true,
  () => false,
)

test('signed callbacks: Content-Digest and an RFC 9421 sig-pp signature the public key verifies', {
  skip: signingAvailable ? false : 'the http-message-signatures package is not installed',
}, async () => {
  const signed = await startPawapaySimulator({
    settleDelayMs,
    signCallbacks: true,
    webhookUrl: listener.url('/signed'),
  })
  try {
    const body = depositBody('22951345789')
    await fetch(`${signed.url}/v2/deposits`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${signed.apiToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    const callback = await callbackOf(body.depositId)
    const header = (name: string) => String(callback.headers[name])
    const digest = `sha-512=:${createHash('sha512').update(callback.body).digest('base64')}:`
    assert.equal(header('content-digest'), digest)
    const input = header('signature-input')
    assert.match(
      input,
      /^sig-pp=\("@method" "@authority" "@path" "signature-date" "content-digest" "content-type"\);/,
    )
    assert.match(input, /alg="ecdsa-p256-sha256"/)
    const base = [
      '"@method": POST',
      `"@authority": ${header('host')}`,
      '"@path": /signed',
      `"signature-date": ${header('signature-date')}`,
      `"content-digest": ${digest}`,
      `"content-type": ${header('content-type')}`,
      `"@signature-params": ${input.slice('sig-pp='.length)}`,
    ].join('\n')
    const signature = Buffer.from(/^sig-pp=:([^:]+):$/.exec(header('signature'))?.[1] ?? '', 'base64')
    const key = { key: signed.signingKey.publicKeyPem, dsaEncoding: 'ieee-p1363' as const }
    assert.ok(verify('sha256', Buffer.from(base), key, signature), 'the signature does not verify')
    const conf = await fetch(`${signed.url}/v2/active-conf`, {
      headers: { Authorization: `Bearer ${signed.apiToken}` },
    })
    assert.equal(((await conf.json()) as any).signatureConfiguration.signedCallbacks, true)
  } finally {
    await signed.close()
  }
})

test('callbacks: a receiver that does not answer 2xx gets the callback again', async () => {
  let answered = 0
  const flaky = createServer((request, response) => {
    request.resume()
    request.on('end', () => response.writeHead(answered++ === 0 ? 503 : 200).end())
  })
  await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}/callback`
  const retrying = await startPawapaySimulator({
    settleDelayMs,
    webhookUrl: url,
    callbackRetryDelaysMs: [20],
  })
  try {
    const body = payoutBody('237653456789')
    await fetch(`${retrying.url}/v2/payouts`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${retrying.apiToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    await pollUntilDefined(() => (retrying.callbacks.length >= 2 ? true : undefined), 'the retried callback')
    assert.deepEqual(
      retrying.callbacks.map((sent) => sent.status),
      [503, 200],
    )
    assert.equal(retrying.callbacks[0]?.body, retrying.callbacks[1]?.body)
  } finally {
    await retrying.close()
    await new Promise<void>((resolve) => flaky.close(() => resolve()))
  }
})

test('close() ends a request still being held', async () => {
  const other = await startPawapaySimulator({ hangMs: 60_000 })
  const held = fetch(`${other.url}/v2/deposits`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${other.apiToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(depositBody('22951345107')),
  }).then(
    () => 'answered',
    () => 'cut',
  )
  await pollUntilDefined(() => (other.transactions().length > 0 ? true : undefined), 'the held request')
  const startedAt = Date.now()
  await other.close()
  assert.ok(Date.now() - startedAt < 1000)
  assert.equal(await held, 'cut')
})

/** The same client, on another simulator. */
async function callOn(other: RunningPawapaySimulator, method: string, path: string, body?: unknown) {
  const response = await fetch(`${other.url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${other.apiToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, json: text === '' ? undefined : JSON.parse(text) } as Answer
}

/** A statement of the BEN/XOF wallet over the given dates, asked with `compressed` as given. */
const statementRequest = (overrides: Record<string, unknown> = {}) => ({
  wallet: { country: 'BEN', currency: 'XOF' },
  callbackUrl: listener.url('/statements'),
  startDate: '2026-01-01T00:00:00',
  endDate: '2026-01-02T00:00:00',
  ...overrides,
})

async function completedStatement(other: RunningPawapaySimulator, statementId: string) {
  return pollUntilDefined(async () => {
    const answer = await callOn(other, 'GET', `/v2/statements/${statementId}`)
    return answer.json.data.status === 'PROCESSING' ? undefined : answer.json.data
  }, `statement ${statementId}`)
}

/** The CSV behind a downloadUrl, fetched as pawaPay says: no token, and gunzipped when it is .csv.gz. */
async function download(url: string) {
  const response = await fetch(url)
  const bytes = Buffer.from(await response.arrayBuffer())
  const text = url.split('?')[0]!.endsWith('.gz')
    ? gunzipSync(bytes).toString('utf8')
    : bytes.toString('utf8')
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    bytes,
    rows: parse(text, { columns: true }) as Record<string, string>[],
  }
}

test('wallet balances: one wallet per country and currency, moved by what completes, less pawaPay’s fee', async () => {
  const other = await startPawapaySimulator({ settleDelayMs, walletOpeningBalance: '500000', feePercent: 1 })
  try {
    const benin = async () => (await callOn(other, 'GET', '/v2/wallet-balances?country=BEN')).json.balances
    assert.deepEqual(await benin(), [{ country: 'BEN', balance: '500000.00', currency: 'XOF', provider: '' }])
    const all = (await callOn(other, 'GET', '/v2/wallet-balances')).json.balances
    assert.ok(all.some((wallet: any) => wallet.country === 'COD' && wallet.currency === 'USD'))
    const paid = depositBody('22951345789', { amount: '1000' })
    await callOn(other, 'POST', '/v2/deposits', paid)
    const declined = depositBody('22951345101', { amount: '1000' })
    await callOn(other, 'POST', '/v2/deposits', declined)
    const payout = payoutBody('237670000000', { amount: '2500' })
    await callOn(other, 'POST', '/v2/payouts', payout)
    await pollUntilDefined(
      () =>
        other.transactions().every((payment) => ['COMPLETED', 'FAILED'].includes(payment.status))
          ? true
          : undefined,
      'payments to end',
    )
    assert.deepEqual(await benin(), [{ country: 'BEN', balance: '500990.00', currency: 'XOF', provider: '' }])
    const cameroon = (await callOn(other, 'GET', '/v2/wallet-balances?country=CMR')).json.balances
    assert.equal(cameroon[0].balance, '497475.00')
    assert.equal((await callOn(other, 'GET', '/v2/wallet-balances?country=benin')).status, 400)
  } finally {
    await other.close()
  }
})

test('statements: ACCEPTED, PROCESSING, then COMPLETED with its callback and a downloadUrl serving the CSV, gzip when asked', async () => {
  const other = await startPawapaySimulator({ settleDelayMs, statementDelayMs: 50 })
  try {
    const seeded = await callOn(other, 'POST', '/_simulator/books/seed', {
      count: 4,
      date: '2026-01-01',
      account: 'BEN/XOF',
      provider: 'MOOV_BEN',
    })
    assert.equal(seeded.status, 200)
    const accepted = await callOn(other, 'POST', '/v2/statements', statementRequest())
    assert.equal(accepted.status, 200)
    assert.deepEqual(Object.keys(accepted.json), ['statementId', 'status', 'created'])
    assert.equal(accepted.json.status, 'ACCEPTED')
    const processing = await callOn(other, 'GET', `/v2/statements/${accepted.json.statementId}`)
    assert.equal(processing.json.status, 'FOUND')
    assert.equal(processing.json.data.status, 'PROCESSING')
    const data = await completedStatement(other, accepted.json.statementId)
    assert.equal(data.status, 'COMPLETED')
    assert.deepEqual(data.wallet, { country: 'BEN', currency: 'XOF' })
    assert.equal(data.startDate, '2026-01-01T00:00:00')
    assert.match(data.downloadUrl, /\/[0-9a-f-]{36}\.csv\?token=/)
    assert.ok(Date.parse(data.downloadUrlExpiresAt) - Date.parse(data.completedAt) === 86_400_000)
    const file = await download(data.downloadUrl)
    assert.equal(file.status, 200)
    assert.equal(file.type, 'text/csv')
    assert.equal(data.fileSize, file.bytes.length)
    assert.deepEqual(Object.keys(file.rows[0]!), [
      'Creation Date',
      'MSISDN',
      'Transaction ID',
      'Amount',
      'Currency',
      'Country',
      'MNO',
      'Type',
      'Status',
      'Fee',
      'Net Amount',
      'Balance',
      'Client Reference',
      'Completed At',
      'Provider Transaction ID',
    ])
    assert.deepEqual(
      file.rows.map((row) => [row.Type, row.MNO, row.Status, row['Client Reference']]),
      [
        ['DEPOSIT', 'MOOV_BEN', 'COMPLETED', 'seed0.main'],
        ['PAYOUT', 'MOOV_BEN', 'COMPLETED', 'seed1.main'],
        ['DEPOSIT', 'MOOV_BEN', 'COMPLETED', 'seed2.main'],
        ['PAYOUT', 'MOOV_BEN', 'COMPLETED', 'seed3.main'],
      ],
    )
    assert.deepEqual(
      file.rows.map((row) => [row.Amount, row['Net Amount'], row.Balance]),
      [
        ['100.00', '100.00', '1000100.00'],
        ['101.00', '-101.00', '999999.00'],
        ['102.00', '102.00', '1000101.00'],
        ['103.00', '-103.00', '999998.00'],
      ],
    )
    const callback = await pollUntilDefined(
      () =>
        listener
          .requestsTo('/statements')
          .find((request) => request.body.includes(accepted.json.statementId)),
      'the statement callback',
    )
    assert.deepEqual(JSON.parse(callback.body), data)

    const gzipped = await callOn(other, 'POST', '/v2/statements', statementRequest({ compressed: true }))
    const gzData = await completedStatement(other, gzipped.json.statementId)
    assert.match(gzData.downloadUrl, /\.csv\.gz\?token=/)
    const gz = await download(gzData.downloadUrl)
    assert.equal(gz.type, 'application/gzip')
    assert.deepEqual(gz.rows, file.rows)
    assert.equal((await fetch(data.downloadUrl.replace(/token=[^&]+/, 'token=forged'))).status, 403)
    assert.deepEqual((await callOn(other, 'GET', `/v2/statements/${randomUUID()}`)).json, {
      status: 'NOT_FOUND',
    })
  } finally {
    await other.close()
  }
})

test('statements: bad requests are 400, impossible ones REJECTED; a held statement stays PROCESSING until it ends, FAILED with its callback', async () => {
  const refused = [
    [statementRequest({ wallet: undefined }), 400, 'MISSING_PARAMETER'],
    [statementRequest({ startDate: '1 Jan 2026' }), 400, 'INVALID_PARAMETER'],
    [statementRequest({ format: 'pdf' }), 400, 'UNSUPPORTED_PARAMETER'],
    [statementRequest({ compressed: 'yes' }), 400, 'INVALID_PARAMETER'],
    [statementRequest({ endDate: '2025-12-31T00:00:00' }), 200, 'INVALID_DATE_RANGE'],
    [statementRequest({ endDate: '2026-02-15T00:00:00' }), 200, 'INVALID_DATE_RANGE'],
    [statementRequest({ wallet: { country: 'BEN', currency: 'GHS' } }), 200, 'WALLET_NOT_FOUND'],
    [statementRequest({ callbackUrl: 'not a url' }), 200, 'INVALID_CALLBACK_URL'],
  ] as const
  for (const [body, status, code] of refused) {
    const answer = await call('POST', '/v2/statements', body)
    assert.equal(answer.status, status, code)
    assert.equal(answer.json.status, 'REJECTED')
    assert.equal(answer.json.failureReason.failureCode, code)
  }
  assert.equal((await call('POST', '/v2/statements', statementRequest(), null)).status, 401)

  assert.equal(simulator.holdStatements(true), 0)
  try {
    const accepted = await call(
      'POST',
      '/v2/statements',
      statementRequest({ startDate: '2026-01-01T00:00:00Z', endDate: '2026-01-01T12:00:00+01:00' }),
    )
    await sleep(settleDelayMs * 3)
    assert.equal(
      (await call('GET', `/v2/statements/${accepted.json.statementId}`)).json.data.status,
      'PROCESSING',
    )
    const failed = await call(
      'POST',
      `/_simulator/statements/${accepted.json.statementId}/status`,
      { status: 'FAILED' },
      null,
    )
    assert.equal(failed.json.status, 'FAILED')
    assert.deepEqual(failed.json.failureReason.failureCode, 'UNKNOWN_ERROR')
    assert.ok(failed.json.failedAt)
    const callback = await pollUntilDefined(
      () =>
        listener
          .requestsTo('/statements')
          .find((request) => request.body.includes(accepted.json.statementId)),
      'the FAILED callback',
    )
    assert.equal(JSON.parse(callback.body).status, 'FAILED')
  } finally {
    simulator.holdStatements(false)
  }
})

test('books: each break of the reconciliation shows in the statement and the wallet balance', async () => {
  const other = await startPawapaySimulator({ settleDelayMs, statementDelayMs: 10 })
  try {
    const breaks = (body: unknown) => callOn(other, 'POST', '/_simulator/books/breaks', body)
    const kept = depositBody('22951345789', { amount: '1000', clientReferenceId: 'tok1.main' })
    const dropped = depositBody('22951345789', { amount: '2000', clientReferenceId: 'tok2.main' })
    const declined = depositBody('22951345101', { amount: '3000', clientReferenceId: 'tok3.main' })
    const silent = depositBody('22951345104', { amount: '4000', clientReferenceId: 'tok4.main' })
    for (const body of [kept, dropped, declined, silent]) await callOn(other, 'POST', '/v2/deposits', body)
    await pollUntilDefined(
      () =>
        other.transactions().filter((payment) => ['COMPLETED', 'FAILED'].includes(payment.status)).length ===
        3
          ? true
          : undefined,
      'three payments to end',
    )
    for (const body of [
      { kind: 'duplicate', payment: kept.depositId },
      { kind: 'other-amount', payment: kept.depositId, amount: '900' },
      { kind: 'missing-line', payment: dropped.depositId },
      { kind: 'unknown-line', account: 'BEN/XOF', amount: '700', provider: 'MOOV_BEN' },
      { kind: 'balance-drift', account: 'BEN/XOF', amount: '50', direction: 'out' },
      { kind: 'silent-success', payment: silent.depositId },
    ])
      assert.equal((await breaks(body)).status, 200, JSON.stringify(body))
    const today = new Date().toISOString().slice(0, 10)
    const accepted = await callOn(
      other,
      'POST',
      '/v2/statements',
      statementRequest({ startDate: `${today}T00:00:00`, endDate: `${today}T23:59:59` }),
    )
    const { rows } = await download((await completedStatement(other, accepted.json.statementId)).downloadUrl)
    const of = (reference: string) =>
      rows
        .filter((row) => row['Client Reference'] === reference)
        .map((row) => [row['Transaction ID'], row.Amount, row.Status, row['Net Amount']])
    assert.deepEqual(of('tok1.main'), [
      [kept.depositId, '900.00', 'COMPLETED', '900.00'],
      [kept.depositId, '1000.00', 'COMPLETED', '1000.00'],
    ])
    assert.deepEqual(of('tok2.main'), [])
    assert.deepEqual(of('tok3.main'), [[declined.depositId, '3000.00', 'FAILED', '0.00']])
    assert.deepEqual(of('tok4.main'), [[silent.depositId, '4000.00', 'COMPLETED', '4000.00']])
    assert.equal(rows.filter((row) => row['Client Reference'] === '').length, 1, 'the unknown line')
    assert.ok(
      !listener.requests.some((request) => request.body.includes(silent.depositId)),
      'no callback for the silent success',
    )
    const balance = Number(
      (await callOn(other, 'GET', '/v2/wallet-balances?country=BEN')).json.balances[0].balance,
    )
    const lines = rows.reduce((sum, row) => sum + Number(row['Net Amount']), 1_000_000)
    assert.equal(lines - balance, 50, 'the wallet moved 50 that no row shows')
  } finally {
    await other.close()
  }
})
