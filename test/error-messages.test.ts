import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startApp, type TestApp } from './support/app.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * Errors say how to fix them: a 409 duplicate names the operation that holds the reference,
 * insufficient_balance says what is available and what was needed, and an unknown channel says
 * there is none (and where the list is), apart from a known one that does not serve the request.
 */

const environment = { RATE_LIMIT_PER_SECOND: '0' }
const disbursement = (amount: number, merchantReference: string) => ({
  amount,
  channel: 'orange-money',
  country: 'CI',
  customer: { phoneNumber: '2250700000123' },
  merchantReference,
  callbackUrl: 'http://127.0.0.1:9/callback',
})

describeEachStore('errors that say how to fix them', (store) => {
  let app: TestApp
  before(async () => {
    app = await startApp(store(), { environment })
  })
  after(() => app.close())

  test('409 duplicate_merchant_reference carries the token of the operation holding the reference', async () => {
    const client = app.client((await app.createMerchant()).sandbox)
    const first = await client.post('/api/v1/disbursement', disbursement(1000, 'payout-1'))
    assert.equal(first.status, 200, first.text)
    const reused = await client.post('/api/v1/disbursement', disbursement(2000, 'payout-1'))
    assert.equal(reused.status, 409, reused.text)
    assert.equal(reused.body.code, 'duplicate_merchant_reference')
    assert.equal(reused.body.token, first.body.data.disbursement.token)
    const existing = await client.get(`/api/v1/disbursement/${reused.body.token}`)
    assert.equal(existing.status, 200, 'the token reads the operation back')
  })

  test('422 insufficient_balance names the available amount and the amount needed', async () => {
    const client = app.client((await app.createMerchant()).sandbox)
    // The sandbox opens at 1,000,000 XOF; 1,000,000 paid out costs 1,010,000 with its 1 % fee.
    const response = await client.post('/api/v1/disbursement', disbursement(1_000_000, 'payout-big'))
    assert.equal(response.status, 422, response.text)
    assert.equal(response.body.code, 'insufficient_balance')
    assert.match(response.body.message, /available XOF balance \(1000000\)/)
    assert.match(response.body.message, /1010000/)
    assert.deepEqual(
      response.body.errors.map((error: { field: string; code: string }) => [error.field, error.code]),
      [['amount', 'insufficient_balance']],
    )
  })

  test('an unknown channel says there is no such channel, the code meant, and where the list is', async () => {
    const client = app.client((await app.createMerchant()).sandbox)
    const collect = { ...disbursement(1000, 'collect-typo'), channel: 'orangemoney' }
    const response = await client.post('/api/v1/collect', collect)
    assert.equal(response.status, 422, response.text)
    assert.equal(response.body.code, 'channel_unavailable')
    assert.match(response.body.message, /^There is no channel orangemoney \(did you mean orange-money\?\)/)
    assert.match(response.body.message, /GET \/api\/v1\/channels/)
    assert.deepEqual(
      response.body.errors.map((error: { field: string; code: string }) => [error.field, error.code]),
      [['channel', 'unknown_channel']],
    )
    const listed = await client.get('/api/v1/channels', { channel: 'orange-money' })
    assert.ok(listed.body.data.channels.length > 0, 'the list the message points to has the code it suggests')
  })

  test('a known channel that does not serve the kind or country says that, not that it is unknown', async () => {
    const client = app.client((await app.createMerchant()).sandbox)
    const collect = { ...disbursement(1000, 'collect-elsewhere'), channel: 'mpesa' }
    const response = await client.post('/api/v1/collect', collect)
    assert.equal(response.status, 422, response.text)
    assert.equal(response.body.code, 'channel_unavailable')
    assert.match(
      response.body.message,
      /^Channel mpesa does not serve collect in CI; GET \/api\/v1\/channels/,
    )
    assert.deepEqual(
      response.body.errors.map((error: { field: string; code: string }) => [error.field, error.code]),
      [['channel', 'channel_unavailable']],
    )
  })

  test('an unknown channel on a transfer side is named with its side', async () => {
    const client = app.client((await app.createMerchant()).sandbox)
    const side = (channel: string) => ({
      amount: 1000,
      channel,
      country: 'CI',
      customer: { phoneNumber: '2250700000123' },
    })
    const response = await client.post('/api/v1/transfer', {
      from: side('orange-money'),
      to: side('mtn'),
      merchantReference: 'transfer-typo',
      callbackUrl: 'http://127.0.0.1:9/callback',
    })
    assert.equal(response.status, 422, response.text)
    assert.match(response.body.message, /^There is no channel mtn;/)
    assert.deepEqual(
      response.body.errors.map((error: { field: string; code: string }) => [error.field, error.code]),
      [['to.channel', 'unknown_channel']],
    )
  })
})
