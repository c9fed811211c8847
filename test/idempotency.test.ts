import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { setFeeRow } from '../src/app/catalogue.ts'
import type { IssuedMerchant } from '../src/app/merchants.ts'
import { type ApiClient, type ApiResponse, startApp, type TestApp } from './support/app.ts'
import { countRows, readBalances } from './support/ledger.ts'
import { initiate } from './support/operations.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * CONTRACT.md, Idempotency: merchantReference is unique per merchant, mode and kind. The same
 * reference with the same body returns the existing record (200) and creates nothing; with a
 * different body, 409 duplicate_merchant_reference.
 */

const environment = { RATE_LIMIT_PER_SECOND: '0', SANDBOX_DELAY_MS: '3600000', OPERATION_TTL: '2h' }
const callbackUrl = 'http://127.0.0.1:9/callback'
const phone = (suffix: string) => `2250700${suffix}`

const side = (amount: number, suffix = '123') => ({
  amount,
  channel: 'orange-money',
  country: 'CI',
  customer: { phoneNumber: phone(suffix), fullName: 'Awa Kone', email: 'awa@example.com' },
})

const single = (merchantReference: string) => ({ ...side(10_000), merchantReference, callbackUrl })
type SingleBody = ReturnType<typeof single>

/** One valid request per kind; each is retried as is. */
const requests: Record<string, (merchantReference: string) => Record<string, unknown>> = {
  collect: single,
  recharge: single,
  disbursement: single,
  withdraw: single,
  transfer: (merchantReference) => ({
    from: side(20_000),
    to: side(5_000, '456'),
    merchantReference,
    callbackUrl,
  }),
}
const kinds = Object.keys(requests)

/** The same JSON object with every key order reversed, nested objects included. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys)
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([key, entry]) => [key, reversedKeys(entry)]),
    )
  }
  return value
}

/** Everything an initiation could create or move, for one merchant. */
async function footprint(app: TestApp, merchant: IssuedMerchant) {
  const client = app.client(merchant.sandbox)
  return {
    operations: await countRows(app, 'operations', merchant.id),
    entries: await countRows(app, 'ledger_entries', merchant.id),
    balances: await readBalances(app, merchant.id),
    transactions: (await client.get('/api/v1/transaction', { perPage: 100 })).body.data.transactions,
  }
}

function assertDuplicateEnvelope(response: ApiResponse) {
  assert.equal(response.status, 409)
  assert.equal(response.body.success, false)
  assert.equal(response.body.statusCode, 409)
  assert.equal(response.body.code, 'duplicate_merchant_reference')
  assert.equal(typeof response.body.message, 'string')
  assert.equal(typeof response.body.requestId, 'string')
  assert.equal(response.body.data, undefined)
}

describeEachStore('idempotency of merchantReference', (store) => {
  let app: TestApp
  let merchant: IssuedMerchant
  let client: ApiClient
  before(async () => {
    app = await startApp(store(), { environment, liveOperators: true })
    merchant = await app.createMerchant()
    client = app.client(merchant.sandbox)
  })
  after(() => app.close())

  for (const kind of kinds) {
    test(`${kind}: the same reference and body returns the existing record and creates nothing`, async () => {
      const body = requests[kind]!(`same-${kind}`)
      const created = await initiate(client, kind, body)
      const before = await footprint(app, merchant)
      const retried = await client.post(`/api/v1/${kind}`, body)
      assert.equal(retried.status, 200, retried.text)
      assert.equal(retried.body.success, true)
      assert.deepEqual(retried.body.data[kind], created, 'the existing record, unchanged')
      const reordered = await client.post(`/api/v1/${kind}`, reversedKeys(body))
      assert.equal(reordered.status, 200, `key order does not make another request: ${reordered.text}`)
      assert.equal(reordered.body.data[kind].token, created.token)
      assert.deepEqual(await footprint(app, merchant), before)
    })
  }

  const changes: { title: string; change: (body: SingleBody) => unknown }[] = [
    { title: 'another amount', change: (body) => ({ ...body, amount: body.amount + 1 }) },
    {
      title: 'another customer',
      change: (body) => ({ ...body, customer: { ...body.customer, phoneNumber: phone('789') } }),
    },
    { title: 'another channel', change: (body) => ({ ...body, channel: 'mtn-momo' }) },
    { title: 'an outcome URL added', change: (body) => ({ ...body, succeededUrl: 'http://127.0.0.1:9/ok' }) },
    {
      title: 'a field left out',
      change: ({ customer: { email: _, ...customer }, ...body }) => ({ ...body, customer }),
    },
  ]
  for (const { title, change } of changes) {
    test(`a disbursement reference reused with ${title}: 409 duplicate_merchant_reference, nothing created`, async () => {
      const body = single(`changed-${title}`)
      const created = await initiate(client, 'disbursement', body)
      const before = await footprint(app, merchant)
      assertDuplicateEnvelope(await client.post('/api/v1/disbursement', change(body)))
      assert.deepEqual(await footprint(app, merchant), before)
      const details = await client.get(`/api/v1/disbursement/${created.token}`)
      assert.deepEqual(details.body.data.disbursement, created, 'the first operation is untouched')
    })
  }

  test('a transfer reference reused with another `to` side: 409, nothing created', async () => {
    const body = requests.transfer!('changed-transfer')
    await initiate(client, 'transfer', body)
    const before = await footprint(app, merchant)
    assertDuplicateEnvelope(await client.post('/api/v1/transfer', { ...body, to: side(5_001, '456') }))
    assert.deepEqual(await footprint(app, merchant), before)
  })

  test('uniqueness is per merchant, mode and kind: the same reference is free elsewhere', async () => {
    const reference = 'shared-reference'
    const first = await initiate(client, 'collect', requests.collect!(reference))
    const tokens = new Set([first.token])
    // Another kind, even with a body that would be a conflict under the first kind.
    for (const kind of ['recharge', 'disbursement', 'withdraw', 'transfer']) {
      tokens.add((await initiate(client, kind, requests[kind]!(reference))).token)
    }
    // The other mode (live balances open at zero, so a cash-in).
    // Live mode refuses loopback callbacks (SSRF); a name that resolves nowhere is accepted.
    const live = await initiate(app.client(merchant.live), 'collect', {
      ...requests.collect!(reference),
      callbackUrl: 'https://merchant.example/sika/callback',
    })
    tokens.add(live.token)
    // Another merchant.
    const other = await app.createMerchant('Another merchant')
    tokens.add((await initiate(app.client(other.sandbox), 'collect', requests.collect!(reference))).token)
    assert.equal(tokens.size, 7, 'seven distinct operations')

    const listed = await client.get('/api/v1/collect', { merchantReference: reference })
    assert.equal(listed.body.meta.pagination.total, 1, 'the sandbox collect list holds only its own')
    assert.equal(listed.body.data.collects[0].token, first.token)
  })

  test('a retry of a succeeded disbursement returns it even when the balance no longer covers it', async () => {
    const owner = await app.createMerchant('Drained merchant')
    const ownClient = app.client(owner.sandbox)
    const body = requests.disbursement!('paid-once')
    const paid = await initiate(ownClient, 'disbursement', body)
    assert.equal(paid.status, 'succeeded')
    // Withdraw all that is left: 1,000,000 - 10,100 = 989,900 = 984,975 + 0.5 % (4,925).
    const drain = await initiate(ownClient, 'withdraw', {
      ...side(984_975),
      merchantReference: 'drain',
      callbackUrl,
    })
    assert.equal(drain.cashAmount, 989_900)
    const before = await footprint(app, owner)
    assert.deepEqual(
      before.balances.find((row) => row.mode === 'sandbox' && row.currency === 'XOF'),
      { mode: 'sandbox', currency: 'XOF', posted_minor: 0, held_minor: 0 },
    )
    const retried = await ownClient.post('/api/v1/disbursement', body)
    assert.equal(retried.status, 200, retried.text)
    assert.deepEqual(retried.body.data.disbursement, paid)
    const fresh = await ownClient.post('/api/v1/disbursement', requests.disbursement!('not-paid'))
    assert.equal(fresh.body.code, 'insufficient_balance', 'a new reference is refused')
    assert.deepEqual(await footprint(app, owner), before)
  })

  test('a retry after the merchant’s fees changed returns what its first try made; only a new reference is refused', async () => {
    const owner = await app.createMerchant('Repriced merchant')
    const ownClient = app.client(owner.sandbox)
    const body = { ...side(1_000), merchantReference: 'priced-before', callbackUrl }
    const first = await initiate(ownClient, 'collect', body)
    // A fixed fee above the amount: the same request made now would leave nothing to move.
    const row = {
      merchantId: owner.id,
      kind: 'collect',
      channel: 'orange-money',
      country: 'CI',
      percentageMilli: 0,
      additionalFeeMinor: 5_000,
      supportedByAccount: true,
    }
    assert.equal(await setFeeRow(app.context, row), true)
    const before = await footprint(app, owner)
    const retried = await ownClient.post('/api/v1/collect', body)
    assert.equal(retried.status, 200, retried.text)
    assert.deepEqual(retried.body.data.collect, first)
    const another = await ownClient.post('/api/v1/collect', { ...body, amount: 2_000 })
    assert.equal(another.status, 409, another.text)
    assert.equal(another.body.code, 'duplicate_merchant_reference')
    assert.equal(another.body.token, first.token)
    const fresh = await ownClient.post('/api/v1/collect', { ...body, merchantReference: 'priced-after' })
    assert.equal(fresh.status, 422, fresh.text)
    assert.equal(fresh.body.errors[0].code, 'below_fees')
    assert.deepEqual(await footprint(app, owner), before)
  })

  test('a reference refused for insufficient balance created nothing, so it stays free', async () => {
    const body = { ...side(2_000_000), merchantReference: 'too-much-for-now', callbackUrl }
    const before = await footprint(app, merchant)
    const refused = await client.post('/api/v1/disbursement', body)
    assert.equal(refused.status, 422)
    assert.equal(refused.body.code, 'insufficient_balance')
    assert.deepEqual(await footprint(app, merchant), before)
    const smaller = await client.post('/api/v1/disbursement', { ...body, amount: 1_000 })
    assert.equal(smaller.status, 200, `the reference was never taken: ${smaller.text}`)
  })
})
