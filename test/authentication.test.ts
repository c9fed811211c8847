import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, test } from 'node:test'
import { type KeyPair, revokeApiKey, rotateKeyPair, setMerchantStatus } from '../src/app/merchants.ts'
import { type ApiClient, type ApiResponse, startApp, type TestApp } from './support/app.ts'
import { assertErrorEnvelope } from './support/envelope.ts'
import { describeEachStore } from './support/stores.ts'

/** The body a client sees, apart from what differs on every request or names the token asked for. */
function comparable(response: ApiResponse, token?: string): unknown {
  const { requestId: _requestId, ...body } = response.body
  return token ? { ...body, message: String(body.message).replaceAll(token, '<token>') } : body
}

const wellFormedUnknownToken = 'zzzzz-zzzzz-zzzzz-zzzzz-zzzzz'

function collectBody(merchantReference: string) {
  return {
    amount: 1000,
    channel: 'orange-money',
    country: 'CI',
    customer: { phoneNumber: '2250700000001', fullName: 'Awa Koné' },
    merchantReference,
    callbackUrl: 'https://merchant.example/callbacks',
  }
}

/** Every endpoint of the spec, plus the channel catalogue: all of them need both headers. */
const protectedEndpoints: { method: 'GET' | 'POST'; path: string }[] = [
  ...['transfer', 'disbursement', 'collect', 'recharge', 'withdraw'].flatMap((kind) => [
    { method: 'POST' as const, path: `/api/v1/${kind}` },
    { method: 'GET' as const, path: `/api/v1/${kind}` },
    { method: 'GET' as const, path: `/api/v1/${kind}/${wellFormedUnknownToken}` },
  ]),
  { method: 'GET', path: '/api/v1/transaction' },
  { method: 'POST', path: '/api/v1/transaction' },
  { method: 'GET', path: '/api/v1/channels' },
]

function send(client: ApiClient, endpoint: { method: 'GET' | 'POST'; path: string }) {
  return endpoint.method === 'GET'
    ? client.get(endpoint.path)
    : client.post(endpoint.path, collectBody(`auth-${randomBytes(4).toString('hex')}`))
}

describeEachStore('Authentication', (store) => {
  let app: TestApp
  before(async () => {
    app = await startApp(store(), { liveOperators: true })
  })
  after(() => app.close())

  const missingHeaderCases: { title: string; keys: (pair: KeyPair) => Partial<KeyPair> }[] = [
    { title: 'without the api-key header', keys: (pair) => ({ secretKey: pair.secretKey }) },
    { title: 'without the secret-key header', keys: (pair) => ({ apiKey: pair.apiKey }) },
    { title: 'without either header', keys: () => ({}) },
  ]
  for (const { title, keys } of missingHeaderCases) {
    test(`every /api/v1 endpoint answers 401 missing_credentials ${title}`, async () => {
      const merchant = await app.createMerchant()
      const client = app.client(keys(merchant.sandbox))
      for (const endpoint of protectedEndpoints) {
        const response = await send(client, endpoint)
        assertErrorEnvelope(response, 401, 'missing_credentials')
      }
    })
  }

  test('an unknown api-key, a wrong secret and a revoked pair all answer the same 401 invalid_credentials', async () => {
    const merchant = await app.createMerchant()
    const revoked = await app.createMerchant()
    assert.equal(await revokeApiKey(app.context, revoked.sandbox.apiKey), true)
    const cases: { title: string; keys: KeyPair }[] = [
      {
        title: 'unknown api-key',
        keys: { apiKey: `pk_test_${'x'.repeat(24)}`, secretKey: merchant.sandbox.secretKey },
      },
      {
        title: 'wrong secret-key',
        keys: { apiKey: merchant.sandbox.apiKey, secretKey: `sk_test_${'x'.repeat(40)}` },
      },
      {
        title: 'secret-key of the merchant\u2019s other pair',
        keys: { apiKey: merchant.sandbox.apiKey, secretKey: merchant.live.secretKey },
      },
      { title: 'revoked pair', keys: revoked.sandbox },
    ]
    const bodies: unknown[] = []
    for (const { title, keys } of cases) {
      const response = await app.client(keys).get('/api/v1/channels')
      assert.equal(response.status, 401, `${title}: ${response.text}`)
      assertErrorEnvelope(response, 401, 'invalid_credentials')
      bodies.push(comparable(response))
    }
    for (const [index, body] of bodies.entries()) {
      assert.deepEqual(body, bodies[0], `${cases[index]!.title} answers exactly as ${cases[0]!.title}`)
    }
  })

  test('a revoked key pair is refused; the merchant\u2019s other pair keeps working', async () => {
    const merchant = await app.createMerchant()
    assert.equal((await app.client(merchant.sandbox).get('/api/v1/channels')).status, 200)
    assert.equal(await revokeApiKey(app.context, merchant.sandbox.apiKey), true)
    assertErrorEnvelope(
      await app.client(merchant.sandbox).get('/api/v1/channels'),
      401,
      'invalid_credentials',
    )
    assert.equal((await app.client(merchant.live).get('/api/v1/channels')).status, 200)
    assert.equal(
      await revokeApiKey(app.context, merchant.sandbox.apiKey),
      false,
      'revoking twice changes nothing',
    )
  })

  test('rotating a mode\u2019s keys revokes the old pair; the new pair reaches the same data', async () => {
    const merchant = await app.createMerchant()
    const created = await app.client(merchant.sandbox).post('/api/v1/collect', collectBody('before-rotation'))
    assert.equal(created.status, 200, created.text)
    const token = created.body.data.collect.token as string

    const rotated = await rotateKeyPair(app.context, merchant.id, 'sandbox')
    assert.ok(rotated, 'the merchant exists')
    assert.match(rotated.apiKey, /^pk_test_/)
    assert.match(rotated.secretKey, /^sk_test_/)
    assert.notEqual(rotated.apiKey, merchant.sandbox.apiKey)

    assertErrorEnvelope(
      await app.client(merchant.sandbox).get('/api/v1/channels'),
      401,
      'invalid_credentials',
    )
    const details = await app.client(rotated).get(`/api/v1/collect/${token}`)
    assert.equal(details.status, 200, details.text)
    assert.equal(details.body.data.collect.merchantReference, 'before-rotation')
    assert.equal(
      (await app.client(merchant.live).get('/api/v1/channels')).status,
      200,
      'the live pair is untouched',
    )
  })

  test('a suspended merchant is refused with 403 merchant_suspended in both modes, until activated', async () => {
    const merchant = await app.createMerchant()
    assert.equal(await setMerchantStatus(app.context, merchant.id, 'suspended'), true)
    for (const keys of [merchant.sandbox, merchant.live]) {
      assertErrorEnvelope(await app.client(keys).get('/api/v1/channels'), 403, 'merchant_suspended')
      assertErrorEnvelope(
        await app.client(keys).post('/api/v1/collect', collectBody('while-suspended')),
        403,
        'merchant_suspended',
      )
    }
    // Credentials are checked first: without the secret, nobody learns the account is suspended.
    assertErrorEnvelope(
      await app
        .client({ apiKey: merchant.sandbox.apiKey, secretKey: `sk_test_${'x'.repeat(40)}` })
        .get('/api/v1/channels'),
      401,
      'invalid_credentials',
    )

    assert.equal(await setMerchantStatus(app.context, merchant.id, 'active'), true)
    for (const keys of [merchant.sandbox, merchant.live]) {
      assert.equal((await app.client(keys).get('/api/v1/channels')).status, 200)
    }
  })

  test('sandbox keys never see live operations, and live keys never see sandbox ones', async () => {
    const merchant = await app.createMerchant()
    const sandbox = app.client(merchant.sandbox)
    const live = app.client(merchant.live)
    // The same merchantReference in each mode: references are unique per mode, so both are created.
    const liveCreated = await live.post('/api/v1/collect', collectBody('mode-isolation'))
    assert.equal(liveCreated.status, 200, liveCreated.text)
    assert.equal(liveCreated.body.data.collect.status, 'pending', 'live mode waits for its operator')
    const sandboxCreated = await sandbox.post('/api/v1/collect', collectBody('mode-isolation'))
    assert.equal(sandboxCreated.status, 200, sandboxCreated.text)
    assert.equal(sandboxCreated.body.data.collect.status, 'succeeded')
    const liveToken = liveCreated.body.data.collect.token as string
    const sandboxToken = sandboxCreated.body.data.collect.token as string
    assert.notEqual(liveToken, sandboxToken)

    const pairs = [
      { owner: live, other: sandbox, token: liveToken, title: 'a live token asked with sandbox keys' },
      { owner: sandbox, other: live, token: sandboxToken, title: 'a sandbox token asked with live keys' },
    ]
    for (const { owner, other, token, title } of pairs) {
      assert.equal((await owner.get(`/api/v1/collect/${token}`)).status, 200, `the owner mode sees ${token}`)
      const hidden = await other.get(`/api/v1/collect/${token}`)
      assertErrorEnvelope(hidden, 404, 'not_found')
      const unknown = await other.get(`/api/v1/collect/${wellFormedUnknownToken}`)
      assert.deepEqual(comparable(hidden, token), comparable(unknown, wellFormedUnknownToken), title)

      const ownerList = await owner.get('/api/v1/collect', { merchantReference: 'mode-isolation' })
      assert.deepEqual(
        ownerList.body.data.collects.map((record: { token: string }) => record.token),
        [token],
      )
      const otherList = await other.get('/api/v1/collect', { perPage: 100 })
      assert.equal(otherList.status, 200, otherList.text)
      const otherTokens = otherList.body.data.collects.map((record: { token: string }) => record.token)
      assert.ok(!otherTokens.includes(token), `${title}: absent from the list`)
      assert.equal(otherList.body.meta.pagination.total, 1, 'the other mode holds only its own collect')
    }

    // The sandbox opening balances and the sandbox collect moved sandbox money only.
    const sandboxTransactions = await sandbox.get('/api/v1/transaction', { perPage: 100 })
    assert.equal(sandboxTransactions.status, 200, sandboxTransactions.text)
    assert.ok(sandboxTransactions.body.meta.pagination.total > 0)
    const liveTransactions = await live.get('/api/v1/transaction', { perPage: 100 })
    assert.equal(liveTransactions.status, 200, liveTransactions.text)
    assert.deepEqual(liveTransactions.body.data.transactions, [])
    assert.equal(liveTransactions.body.meta.pagination.total, 0)
  })

  test('another merchant\u2019s token is a 404 exactly like an unknown token', async () => {
    const owner = await app.createMerchant('Owner')
    const stranger = await app.createMerchant('Stranger')
    const created = await app.client(owner.sandbox).post('/api/v1/collect', collectBody('cross-merchant'))
    assert.equal(created.status, 200, created.text)
    const token = created.body.data.collect.token as string
    assert.equal((await app.client(owner.sandbox).get(`/api/v1/collect/${token}`)).status, 200)

    const foreign = await app.client(stranger.sandbox).get(`/api/v1/collect/${token}`)
    assertErrorEnvelope(foreign, 404, 'not_found')
    const unknown = await app.client(stranger.sandbox).get(`/api/v1/collect/${wellFormedUnknownToken}`)
    assertErrorEnvelope(unknown, 404, 'not_found')
    assert.deepEqual(comparable(foreign, token), comparable(unknown, wellFormedUnknownToken))

    const list = await app
      .client(stranger.sandbox)
      .get('/api/v1/collect', { merchantReference: 'cross-merchant' })
    assert.equal(list.status, 200, list.text)
    assert.deepEqual(list.body.data.collects, [])
    assert.equal(list.body.meta.pagination.total, 0)
  })
})
