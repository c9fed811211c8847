import assert from 'node:assert/strict'
import { createHash, randomUUID, verify } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'
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
