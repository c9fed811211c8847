import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, test } from 'node:test'
import {
  type RunningMtnMomoSimulator,
  startMtnMomoSimulator,
} from '../../src/simulators/mtn-momo/mtn-momo-simulator.ts'
import { type Receiver, startReceiver } from '../support/receiver.ts'
import { pollUntilDefined, sleep } from '../support/wait.ts'

// The MTN MoMo simulator, driven as a client of MoMo's published Open API would drive it
// (momodeveloper.mtn.com): a token per product, then RequestToPay, Transfer and Refund with their
// status reads, and callbacks received on a local listener.

const settleDelayMs = 50
const hangMs = 300

type Product = 'collection' | 'disbursement'

interface Answer {
  status: number
  text: string
  json: any
}

/** A tiny client written from MoMo's documentation, not shared with anything else. */
class MomoClient {
  private readonly tokens = new Map<Product, string>()

  constructor(private readonly simulator: RunningMtnMomoSimulator) {}

  async request(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<Answer> {
    const response = await fetch(`${this.simulator.url}${path}`, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    })
    const text = await response.text()
    return { status: response.status, text, json: text === '' ? undefined : JSON.parse(text) }
  }

  /** POST /{product}/token/ with Basic base64(apiUser:apiKey) and the product's subscription key. */
  createToken(product: Product, credentials = this.simulator.credentials[product]): Promise<Answer> {
    const basic = Buffer.from(`${credentials.apiUser}:${credentials.apiKey}`).toString('base64')
    return this.request('POST', `/${product}/token/`, {
      Authorization: `Basic ${basic}`,
      'Ocp-Apim-Subscription-Key': credentials.subscriptionKey,
    })
  }

  async token(product: Product): Promise<string> {
    const cached = this.tokens.get(product)
    if (cached) return cached
    const answer = await this.createToken(product)
    assert.equal(answer.status, 200)
    this.tokens.set(product, answer.json.access_token)
    return answer.json.access_token
  }

  forget(): void {
    this.tokens.clear()
  }

  async headers(product: Product, extra: Record<string, string> = {}): Promise<Record<string, string>> {
    return {
      Authorization: `Bearer ${await this.token(product)}`,
      'X-Target-Environment': this.simulator.targetEnvironment,
      'Ocp-Apim-Subscription-Key': this.simulator.credentials[product].subscriptionKey,
      ...extra,
    }
  }

  async create(path: string, product: Product, body: unknown, extra: Record<string, string> = {}) {
    const referenceId = extra['X-Reference-Id'] ?? randomUUID()
    const answer = await this.request(
      'POST',
      path,
      await this.headers(product, { 'X-Reference-Id': referenceId, ...extra }),
      body,
    )
    return { referenceId, answer }
  }

  requestToPay(msisdn: string, extra: Record<string, string> = {}, overrides: Record<string, unknown> = {}) {
    const body = {
      amount: '5.0',
      currency: 'XOF',
      externalId: 'order-1',
      payer: { partyIdType: 'MSISDN', partyId: msisdn },
      payerMessage: 'Paiement commande',
      payeeNote: 'Commande 1',
      ...overrides,
    }
    return this.create('/collection/v1_0/requesttopay', 'collection', body, extra)
  }

  transfer(msisdn: string, extra: Record<string, string> = {}) {
    const body = {
      amount: '2500',
      currency: 'XOF',
      externalId: 'payout-1',
      payee: { partyIdType: 'MSISDN', partyId: msisdn },
      payerMessage: 'Retrait',
      payeeNote: 'Retrait 1',
    }
    return this.create('/disbursement/v1_0/transfer', 'disbursement', body, extra)
  }

  refund(version: 'v1_0' | 'v2_0', referenceIdToRefund: string, extra: Record<string, string> = {}) {
    const body = {
      amount: '5',
      currency: 'XOF',
      externalId: 'refund-1',
      payerMessage: 'Rembourse',
      payeeNote: 'R',
      referenceIdToRefund,
    }
    return this.create(`/disbursement/${version}/refund`, 'disbursement', body, extra)
  }

  async status(path: string, product: Product): Promise<Answer> {
    return this.request('GET', path, await this.headers(product))
  }
}

let simulator: RunningMtnMomoSimulator
let client: MomoClient
let listener: Receiver
let hookCount = 0
const hook = () => `/momo/${hookCount++}`

/** Polls a status path until it leaves PENDING. */
async function finalStatus(path: string, product: Product) {
  return pollUntilDefined(async () => {
    const answer = await client.status(path, product)
    return answer.json?.status === 'PENDING' ? undefined : answer
  }, `final status of ${path}`)
}

before(async () => {
  simulator = await startMtnMomoSimulator({ settleDelayMs, hangMs })
  client = new MomoClient(simulator)
  listener = await startReceiver()
})

after(async () => {
  await simulator.close()
  await listener.close()
})

test('auth: a product token is a JWT valid for 3600 s', async () => {
  const answer = await client.createToken('collection')
  assert.equal(answer.status, 200)
  assert.equal(answer.json.token_type, 'access_token')
  assert.equal(answer.json.expires_in, 3600)
  assert.equal(answer.json.access_token.split('.').length, 3)
})

test('auth: wrong credentials are a 401 login_failed', async () => {
  const credentials = { ...simulator.credentials.collection, apiKey: 'f'.repeat(32) }
  const answer = await client.createToken('collection', credentials)
  assert.equal(answer.status, 401)
  assert.deepEqual(answer.json, { error: 'login_failed' })
  const otherUser = {
    ...simulator.credentials.disbursement,
    subscriptionKey: simulator.credentials.collection.subscriptionKey,
  }
  assert.equal((await client.createToken('collection', otherUser)).status, 401)
})

test('auth: the subscription key is checked first, per product', async () => {
  const missing = await client.request('POST', '/collection/token/', {})
  assert.equal(missing.status, 401)
  assert.equal(missing.json.statusCode, 401)
  assert.match(missing.json.message, /missing subscription key/)
  const other = await client.createToken('collection', {
    ...simulator.credentials.collection,
    subscriptionKey: simulator.credentials.disbursement.subscriptionKey,
  })
  assert.equal(other.status, 401)
  assert.match(other.json.message, /invalid subscription key/)
})

test('auth: the token path needs its trailing slash', async () => {
  const answer = await client.request('POST', '/collection/token', {
    'Ocp-Apim-Subscription-Key': simulator.credentials.collection.subscriptionKey,
  })
  assert.equal(answer.status, 404)
})

test('auth: calls need a bearer token of their product and the target environment', async () => {
  const path = `/collection/v1_0/requesttopay/${randomUUID()}`
  const headers = await client.headers('collection')
  const noBearer = await client.request('GET', path, { ...headers, Authorization: '' })
  assert.equal(noBearer.status, 401)
  const disbursementToken = await client.token('disbursement')
  const wrongProduct = await client.request('GET', path, {
    ...headers,
    Authorization: `Bearer ${disbursementToken}`,
  })
  assert.equal(wrongProduct.status, 401)
  const wrongEnvironment = await client.request('GET', path, {
    ...headers,
    'X-Target-Environment': 'mtnbenin',
  })
  assert.equal(wrongEnvironment.status, 500)
  assert.equal(wrongEnvironment.json.code, 'NOT_ALLOWED_TARGET_ENVIRONMENT')
  const { 'X-Target-Environment': _, ...withoutEnvironment } = headers
  assert.equal((await client.request('GET', path, withoutEnvironment)).status, 400)
})

test('auth: expired tokens are a 401 until a new one is taken', async () => {
  const path = `/collection/v1_0/requesttopay/${randomUUID()}`
  assert.equal((await client.status(path, 'collection')).status, 404)
  simulator.expireAccessTokens()
  assert.equal((await client.status(path, 'collection')).status, 401)
  client.forget()
  assert.equal((await client.status(path, 'collection')).status, 404)
})

test('auth: a token lives tokenLifetimeSeconds', async () => {
  const shortLived = await startMtnMomoSimulator({ tokenLifetimeSeconds: 1 })
  try {
    const shortClient = new MomoClient(shortLived)
    const token = await shortClient.createToken('disbursement')
    assert.equal(token.json.expires_in, 1)
    const path = `/disbursement/v1_0/transfer/${randomUUID()}`
    assert.equal((await shortClient.status(path, 'disbursement')).status, 404)
    await sleep(1100)
    assert.equal((await shortClient.status(path, 'disbursement')).status, 401)
  } finally {
    await shortLived.close()
  }
})

test('request to pay: 202 with no body, PENDING, then SUCCESSFUL with one PUT callback shaped as the status', async () => {
  const path = hook()
  const { referenceId, answer } = await client.requestToPay('22997000000', {
    'X-Callback-Url': listener.url(path),
  })
  assert.equal(answer.status, 202)
  assert.equal(answer.text, '')
  const statusPath = `/collection/v1_0/requesttopay/${referenceId}`
  const pending = await client.status(statusPath, 'collection')
  assert.equal(pending.json.status, 'PENDING')
  const final = await finalStatus(statusPath, 'collection')
  assert.equal(final.json.status, 'SUCCESSFUL')
  assert.equal(final.json.amount, '5')
  assert.equal(final.json.currency, 'XOF')
  assert.equal(final.json.externalId, 'order-1')
  assert.deepEqual(final.json.payer, { partyIdType: 'MSISDN', partyId: '22997000000' })
  assert.match(final.json.financialTransactionId, /^\d+$/)
  assert.equal(final.json.reason, undefined)
  const [callback] = await pollUntilDefined(
    () => (listener.requestsTo(path).length > 0 ? listener.requestsTo(path) : undefined),
    'callback',
  )
  assert.equal(callback?.method, 'PUT')
  assert.deepEqual(JSON.parse(callback?.body ?? ''), final.json)
  await sleep(settleDelayMs * 2)
  assert.equal(listener.requestsTo(path).length, 1)
})

test('request to pay: a reused X-Reference-Id is a 409 RESOURCE_ALREADY_EXIST', async () => {
  const { referenceId } = await client.requestToPay('22997000001')
  const again = await client.requestToPay('22997000001', { 'X-Reference-Id': referenceId })
  assert.equal(again.answer.status, 409)
  assert.deepEqual(again.answer.json, {
    code: 'RESOURCE_ALREADY_EXIST',
    message: 'Duplicated reference id. Creation of resource failed.',
  })
})

test('request to pay: an unknown reference is a 404 RESOURCE_NOT_FOUND', async () => {
  const answer = await client.status(`/collection/v1_0/requesttopay/${randomUUID()}`, 'collection')
  assert.equal(answer.status, 404)
  assert.equal(answer.json.code, 'RESOURCE_NOT_FOUND')
})

test('request to pay: bad input is a 400 with a code and a message', async () => {
  const cases: [Record<string, string>, Record<string, unknown>][] = [
    [{ 'X-Reference-Id': 'not-a-uuid' }, {}],
    [{ 'X-Reference-Id': '6a8f1f40-2b4e-11ee-be56-0242ac120002' }, {}],
    [{ 'X-Callback-Url': '' }, {}],
    [{}, { amount: 5 }],
    [{}, { amount: '-5' }],
    [{}, { amount: undefined }],
    [{}, { currency: 'xof' }],
    [{}, { payer: { partyIdType: 'PHONE', partyId: '22997000000' } }],
    [{}, { payer: { partyIdType: 'MSISDN', partyId: '+22997000000' } }],
    [{}, { payer: undefined }],
    [{}, { payerMessage: 'x'.repeat(161) }],
    [{}, { payeeNote: "l'ordre" }],
  ]
  for (const [headers, overrides] of cases) {
    const { answer } = await client.requestToPay('22997000000', headers, overrides)
    assert.equal(answer.status, 400, JSON.stringify({ headers, overrides }))
    assert.equal(typeof answer.json.code, 'string')
    assert.equal(typeof answer.json.message, 'string')
  }
  const notJson = await client.request(
    'POST',
    '/collection/v1_0/requesttopay',
    await client.headers('collection', { 'X-Reference-Id': randomUUID() }),
    '{"amount":',
  )
  assert.equal(notJson.status, 400)
  assert.equal(
    simulator.transactions().filter((transaction) => transaction.view.payeeNote === "l'ordre").length,
    0,
  )
})

const declines: [string, string][] = [
  ['101', 'NOT_ENOUGH_FUNDS'],
  ['102', 'APPROVAL_REJECTED'],
  ['103', 'EXPIRED'],
  ['108', 'PAYER_NOT_FOUND'],
]
for (const [ending, reason] of declines) {
  test(`request to pay: ${ending}: FAILED ${reason}, with its callback`, async () => {
    const path = hook()
    const { referenceId, answer } = await client.requestToPay(`22997000${ending}`, {
      'X-Callback-Url': listener.url(path),
    })
    assert.equal(answer.status, 202)
    const final = await finalStatus(`/collection/v1_0/requesttopay/${referenceId}`, 'collection')
    assert.equal(final.json.status, 'FAILED')
    assert.equal(final.json.reason, reason)
    assert.equal(final.json.financialTransactionId, undefined)
    const [callback] = await pollUntilDefined(
      () => (listener.requestsTo(path).length > 0 ? listener.requestsTo(path) : undefined),
      'callback',
    )
    assert.deepEqual(JSON.parse(callback?.body ?? ''), final.json)
  })
}

test('request to pay: 104: PENDING for ever, no callback', async () => {
  const path = hook()
  const { referenceId } = await client.requestToPay('22997000104', { 'X-Callback-Url': listener.url(path) })
  await sleep(settleDelayMs * 4)
  const answer = await client.status(`/collection/v1_0/requesttopay/${referenceId}`, 'collection')
  assert.equal(answer.json.status, 'PENDING')
  assert.equal(listener.requestsTo(path).length, 0)
})

test('request to pay: 105: SUCCESSFUL, but no callback', async () => {
  const path = hook()
  const { referenceId } = await client.requestToPay('22997000105', { 'X-Callback-Url': listener.url(path) })
  const final = await finalStatus(`/collection/v1_0/requesttopay/${referenceId}`, 'collection')
  assert.equal(final.json.status, 'SUCCESSFUL')
  await sleep(settleDelayMs * 3)
  assert.equal(listener.requestsTo(path).length, 0)
})

test('request to pay: 106: answered 500, yet stored; it succeeds with its callback', async () => {
  const path = hook()
  const { referenceId, answer } = await client.requestToPay('22997000106', {
    'X-Callback-Url': listener.url(path),
  })
  assert.equal(answer.status, 500)
  assert.equal(answer.json.code, 'INTERNAL_PROCESSING_ERROR')
  const retry = await client.requestToPay('22997000106', { 'X-Reference-Id': referenceId })
  assert.equal(retry.answer.status, 409)
  const final = await finalStatus(`/collection/v1_0/requesttopay/${referenceId}`, 'collection')
  assert.equal(final.json.status, 'SUCCESSFUL')
  await pollUntilDefined(() => (listener.requestsTo(path).length > 0 ? true : undefined), 'callback')
})

test('request to pay: 107: stored at once, answered only after hangMs; it succeeds', async () => {
  const referenceId = randomUUID()
  const late = client.requestToPay('22997000107', { 'X-Reference-Id': referenceId })
  const startedAt = Date.now()
  await sleep(20)
  const meanwhile = await client.status(`/collection/v1_0/requesttopay/${referenceId}`, 'collection')
  assert.equal(meanwhile.status, 200)
  const { answer } = await late
  assert.equal(answer.status, 202)
  assert.ok(Date.now() - startedAt >= hangMs - 25, 'answered before hangMs')
  const final = await finalStatus(`/collection/v1_0/requesttopay/${referenceId}`, 'collection')
  assert.equal(final.json.status, 'SUCCESSFUL')
})

test('request to pay: a client that gives up on 107 still finds the request by its status', async () => {
  const referenceId = randomUUID()
  const headers = await client.headers('collection', { 'X-Reference-Id': referenceId })
  const body = { amount: '100', currency: 'XOF', payer: { partyIdType: 'MSISDN', partyId: '22997000107' } }
  await assert.rejects(
    fetch(`${simulator.url}/collection/v1_0/requesttopay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(50),
    }),
  )
  const final = await finalStatus(`/collection/v1_0/requesttopay/${referenceId}`, 'collection')
  assert.equal(final.json.status, 'SUCCESSFUL')
  assert.equal(final.json.externalId, undefined)
})

test('transfer: 202, then SUCCESSFUL with one POST callback; the status names the payee', async () => {
  const path = hook()
  const { referenceId, answer } = await client.transfer('22507000000', {
    'X-Callback-Url': listener.url(path),
  })
  assert.equal(answer.status, 202)
  const final = await finalStatus(`/disbursement/v1_0/transfer/${referenceId}`, 'disbursement')
  assert.deepEqual(Object.keys(final.json), [
    'amount',
    'currency',
    'financialTransactionId',
    'externalId',
    'payee',
    'payerMessage',
    'payeeNote',
    'status',
  ])
  assert.deepEqual(final.json.payee, { partyIdType: 'MSISDN', partyId: '22507000000' })
  const [callback] = await pollUntilDefined(
    () => (listener.requestsTo(path).length > 0 ? listener.requestsTo(path) : undefined),
    'callback',
  )
  assert.equal(callback?.method, 'POST')
  assert.deepEqual(JSON.parse(callback?.body ?? ''), final.json)
})

test('transfer: 108: FAILED PAYEE_NOT_FOUND; 101: FAILED NOT_ENOUGH_FUNDS', async () => {
  const unknown = await client.transfer('22507000108')
  const poor = await client.transfer('22507000101')
  const unknownFinal = await finalStatus(`/disbursement/v1_0/transfer/${unknown.referenceId}`, 'disbursement')
  const poorFinal = await finalStatus(`/disbursement/v1_0/transfer/${poor.referenceId}`, 'disbursement')
  assert.equal(unknownFinal.json.reason, 'PAYEE_NOT_FOUND')
  assert.equal(poorFinal.json.reason, 'NOT_ENOUGH_FUNDS')
})

test('transfer: a transfer needs a disbursement token', async () => {
  const headers = await client.headers('collection', { 'X-Reference-Id': randomUUID() })
  const answer = await client.request('POST', '/disbursement/v1_0/transfer', headers, {
    amount: '1',
    currency: 'XOF',
    payee: { partyIdType: 'MSISDN', partyId: '22507000000' },
  })
  assert.equal(answer.status, 401)
})

async function paidRequest() {
  const { referenceId } = await client.requestToPay('22997000200')
  await finalStatus(`/collection/v1_0/requesttopay/${referenceId}`, 'collection')
  return referenceId
}

for (const [version, method] of [
  ['v1_0', 'POST'],
  ['v2_0', 'PUT'],
] as const) {
  test(`refund: ${version}: a paid request is refunded to its payer, read at /disbursement/v1_0/refund`, async () => {
    const paid = await paidRequest()
    const path = hook()
    const { referenceId, answer } = await client.refund(version, paid, {
      'X-Callback-Url': listener.url(path),
    })
    assert.equal(answer.status, 202)
    const final = await finalStatus(`/disbursement/v1_0/refund/${referenceId}`, 'disbursement')
    assert.equal(final.json.status, 'SUCCESSFUL')
    assert.deepEqual(final.json.payee, { partyIdType: 'MSISDN', partyId: '22997000200' })
    const [callback] = await pollUntilDefined(
      () => (listener.requestsTo(path).length > 0 ? listener.requestsTo(path) : undefined),
      'callback',
    )
    assert.equal(callback?.method, method)
  })
}

test('refund: refunding an unknown request is a 404; refunding a failed one fails NOT_ALLOWED', async () => {
  const unknown = await client.refund('v1_0', randomUUID())
  assert.equal(unknown.answer.status, 404)
  const { referenceId: declined } = await client.requestToPay('22997000102')
  await finalStatus(`/collection/v1_0/requesttopay/${declined}`, 'collection')
  const refund = await client.refund('v1_0', declined)
  assert.equal(refund.answer.status, 202)
  const final = await finalStatus(`/disbursement/v1_0/refund/${refund.referenceId}`, 'disbursement')
  assert.equal(final.json.status, 'FAILED')
  assert.equal(final.json.reason, 'NOT_ALLOWED')
  const badReference = await client.refund('v1_0', 'nope')
  assert.equal(badReference.answer.status, 400)
})

test('extras: balance and account holder checks', async () => {
  const balance = await client.status('/collection/v1_0/account/balance', 'collection')
  assert.deepEqual(balance.json, { availableBalance: '1000', currency: 'EUR' })
  const active = await client.status(
    '/disbursement/v1_0/accountholder/msisdn/22997000000/active',
    'disbursement',
  )
  assert.deepEqual(active.json, { result: true })
  const unknown = await client.status(
    '/disbursement/v1_0/accountholder/msisdn/22997000108/active',
    'disbursement',
  )
  assert.deepEqual(unknown.json, { result: false })
})

test("account balance: each product's account starts at its float and moves when a transaction in its currency succeeds", async () => {
  const books = await startMtnMomoSimulator({
    settleDelayMs,
    currencies: ['XOF'],
    availableBalance: '100000',
  })
  try {
    const booksClient = new MomoClient(books)
    const balanceOf = async (product: Product) =>
      (await booksClient.status(`/${product}/v1_0/account/balance`, product)).json
    assert.deepEqual(await balanceOf('collection'), { availableBalance: '100000', currency: 'XOF' })
    const collected = await booksClient.requestToPay('22997000000', {}, { amount: '5000' })
    const paid = await booksClient.transfer('22997000000')
    const declined = await booksClient.transfer('22997000101')
    for (const [path, product] of [
      [`/collection/v1_0/requesttopay/${collected.referenceId}`, 'collection'],
      [`/disbursement/v1_0/transfer/${paid.referenceId}`, 'disbursement'],
      [`/disbursement/v1_0/transfer/${declined.referenceId}`, 'disbursement'],
    ] as const) {
      await pollUntilDefined(async () => {
        const answer = await booksClient.status(path, product)
        return answer.json?.status === 'PENDING' ? undefined : answer
      }, path)
    }
    assert.deepEqual(await balanceOf('collection'), { availableBalance: '105000', currency: 'XOF' })
    assert.deepEqual(await balanceOf('disbursement'), { availableBalance: '97500', currency: 'XOF' })
  } finally {
    await books.close()
  }
})

test('account balance: the control paths set a float, move the balance with no transaction, and succeed a payment silently', async () => {
  const books = await startMtnMomoSimulator({ settleDelayMs: 60_000, currencies: ['XOF'] })
  try {
    const booksClient = new MomoClient(books)
    const control = async (path: string, body: unknown) =>
      booksClient.request('POST', `/_simulator/books/${path}`, {}, body)
    assert.equal((await control('opening', { account: 'disbursement', amount: '750000' })).status, 200)
    assert.equal(
      (
        await control('breaks', {
          kind: 'balance-drift',
          account: 'disbursement',
          amount: '1200',
          direction: 'out',
        })
      ).status,
      200,
    )
    const balance = await booksClient.status('/disbursement/v1_0/account/balance', 'disbursement')
    assert.deepEqual(balance.json, { availableBalance: '748800', currency: 'XOF' })

    const path = hook()
    const { referenceId } = await booksClient.requestToPay(
      '22997000000',
      { 'X-Callback-Url': listener.url(path) },
      { amount: '300' },
    )
    assert.equal((await control('breaks', { kind: 'silent-success', payment: referenceId })).status, 200)
    const status = await booksClient.status(`/collection/v1_0/requesttopay/${referenceId}`, 'collection')
    assert.equal(status.json.status, 'SUCCESSFUL')
    const collection = await booksClient.status('/collection/v1_0/account/balance', 'collection')
    assert.equal(collection.json.availableBalance, '1300')
    await sleep(100)
    assert.deepEqual(listener.requestsTo(path), [], 'no callback for a silent success')
    const listed = await booksClient.request('GET', '/_simulator/books', {})
    assert.deepEqual(listed.json, [
      { account: 'collection', balance: '1300', lines: 1 },
      { account: 'disbursement', balance: '748800', lines: 0 },
    ])
    assert.equal((await control('breaks', { kind: 'silent-success', payment: randomUUID() })).status, 404)
    assert.equal((await control('breaks', { kind: 'duplicate' })).status, 400)
  } finally {
    await books.close()
  }
})

test('extras: connection() is an OPERATORS_FILE entry whose credentials work', async () => {
  const entry = simulator.connection('mtn-momo', ['BJ', 'CI']) as any
  assert.equal(entry.adapter, 'mtn-momo')
  assert.equal(entry.baseUrl, simulator.url)
  assert.deepEqual(entry.countries, ['BJ', 'CI'])
  assert.equal(entry.targetEnvironment, 'sandbox')
  for (const product of ['collection', 'disbursement'] as const) {
    assert.deepEqual(Object.keys(entry[product]).sort(), ['apiKey', 'apiUser', 'subscriptionKey'])
    assert.equal((await client.createToken(product, entry[product])).status, 200)
  }
})

test('extras: a forced status sends the callback; the control paths list transactions', async () => {
  const path = hook()
  const { referenceId } = await client.requestToPay('22997000104', { 'X-Callback-Url': listener.url(path) })
  const forced = await client.request(
    'POST',
    `/_simulator/transactions/${referenceId}/status`,
    {},
    {
      status: 'FAILED',
      reason: 'TRANSACTION_CANCELED',
    },
  )
  assert.equal(forced.status, 200)
  assert.equal(forced.json.status, 'FAILED')
  const [callback] = await pollUntilDefined(
    () => (listener.requestsTo(path).length > 0 ? listener.requestsTo(path) : undefined),
    'callback',
  )
  assert.equal(JSON.parse(callback?.body ?? '').reason, 'TRANSACTION_CANCELED')
  const listed = await client.request('GET', `/_simulator/transactions/${referenceId}`, {})
  assert.equal(listed.json[0].view.status, 'FAILED')
  assert.ok((await client.request('GET', '/_simulator/transactions', {})).json.length > 0)
  assert.ok(simulator.callbacks.some((sent) => sent.url === listener.url(path) && sent.status === 200))
})

test('extras: reasonFormat object gives the swagger ErrorReason; currencies restrict the account', async () => {
  const strict = await startMtnMomoSimulator({ settleDelayMs, reasonFormat: 'object', currencies: ['XOF'] })
  try {
    const strictClient = new MomoClient(strict)
    const { referenceId } = await strictClient.requestToPay('22997000102')
    const final = await pollUntilDefined(async () => {
      const answer = await strictClient.status(`/collection/v1_0/requesttopay/${referenceId}`, 'collection')
      return answer.json.status === 'PENDING' ? undefined : answer
    }, 'final status')
    assert.equal(final.json.reason.code, 'APPROVAL_REJECTED')
    assert.equal(typeof final.json.reason.message, 'string')
    const euro = await strictClient.requestToPay('22997000000', {}, { currency: 'EUR' })
    assert.equal(euro.answer.status, 500)
    assert.equal(euro.answer.json.code, 'INVALID_CURRENCY')
  } finally {
    await strict.close()
  }
})

test('extras: close() ends a request still being held', async () => {
  const other = await startMtnMomoSimulator({ hangMs: 60_000 })
  const otherClient = new MomoClient(other)
  const held = otherClient.requestToPay('22997000107').then(
    () => 'answered',
    () => 'cut',
  )
  await pollUntilDefined(() => (other.transactions().length > 0 ? true : undefined), 'the held request')
  const startedAt = Date.now()
  await other.close()
  assert.ok(Date.now() - startedAt < 1000)
  assert.equal(await held, 'cut')
})
