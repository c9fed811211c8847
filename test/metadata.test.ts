import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startApp, type TestApp } from './support/app.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * CONTRACT.md, Errors: `metadata` (optional, every initiation and refund) is an object of at most
 * 20 keys of 1 to 40 characters with string values of at most 500, stored and returned on the
 * record and its callbacks.
 */

const environment = { RATE_LIMIT_PER_SECOND: '0' }
let sequence = 0
const collect = (metadata?: unknown) => ({
  amount: 5000,
  channel: 'orange-money',
  country: 'CI',
  customer: { phoneNumber: '2250700000123' },
  merchantReference: `meta-${sequence++}`,
  callbackUrl: 'http://127.0.0.1:9/callback',
  ...(metadata === undefined ? {} : { metadata }),
})

describeEachStore('metadata', (store) => {
  let app: TestApp
  before(async () => {
    app = await startApp(store(), { environment })
  })
  after(() => app.close())

  test('stored and returned on the record, its details, its list and its callbacks', async () => {
    const merchant = await app.createMerchant()
    const client = app.client(merchant.sandbox)
    const metadata = { orderId: 'A-1001', note: 'gift, "wrapped"', ['x'.repeat(40)]: 'v'.repeat(500) }
    const created = await client.post('/api/v1/collect', collect(metadata))
    assert.equal(created.status, 200, created.text)
    const record = created.body.data.collect
    assert.deepEqual(record.metadata, metadata)
    const details = await client.get(`/api/v1/collect/${record.token}`)
    assert.deepEqual(details.body.data.collect.metadata, metadata)
    const listed = await client.get('/api/v1/collect', { merchantReference: record.merchantReference })
    assert.deepEqual(listed.body.data.collects[0].metadata, metadata)
    const events = await app.db
      .selectFrom('events')
      .innerJoin('operations', 'operations.id', 'events.operation_id')
      .select('events.payload')
      .where('operations.token', '=', record.token)
      .execute()
    assert.ok(events.length >= 1)
    for (const event of events) assert.deepEqual(JSON.parse(event.payload).data.collect.metadata, metadata)

    const plain = await client.post('/api/v1/collect', collect())
    assert.equal(plain.body.data.collect.metadata, undefined, 'no metadata, no field')
  })

  test('a refund takes its own metadata; a transfer takes it too', async () => {
    const merchant = await app.createMerchant()
    const client = app.client(merchant.sandbox)
    const created = await client.post('/api/v1/collect', collect({ orderId: 'A-2' }))
    const refund = await client.post(`/api/v1/collect/${created.body.data.collect.token}/refund`, {
      merchantReference: `refund-${sequence++}`,
      metadata: { reason: 'returned' },
    })
    assert.equal(refund.status, 200, refund.text)
    assert.deepEqual(refund.body.data.refund.metadata, { reason: 'returned' })
    const transfer = await client.post('/api/v1/transfer', {
      from: {
        amount: 1000,
        channel: 'orange-money',
        country: 'CI',
        customer: { phoneNumber: '2250700000123' },
      },
      to: { amount: 500, channel: 'wave', country: 'CI', customer: { phoneNumber: '2250700000124' } },
      merchantReference: `transfer-${sequence++}`,
      callbackUrl: 'http://127.0.0.1:9/callback',
      metadata: { batch: '7' },
    })
    assert.equal(transfer.status, 200, transfer.text)
    assert.deepEqual(transfer.body.data.transfer.metadata, { batch: '7' })
  })

  const refused: { name: string; metadata: unknown; message: RegExp }[] = [
    {
      name: 'more than 20 keys',
      metadata: Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`k${index}`, 'v'])),
      message: /at most 20/,
    },
    { name: 'a key of 41 characters', metadata: { ['k'.repeat(41)]: 'v' }, message: /40 characters/ },
    { name: 'an empty key', metadata: { '': 'v' }, message: /1 to 40 characters|must not be empty/ },
    { name: 'a value of 501 characters', metadata: { note: 'v'.repeat(501) }, message: /500 characters/ },
    { name: 'a number value', metadata: { count: 3 }, message: /string/ },
    { name: 'a nested object', metadata: { nested: { a: 'b' } }, message: /string/ },
    { name: 'an array', metadata: ['a'], message: /object/ },
  ]
  for (const { name, metadata, message } of refused) {
    test(`${name} is a 422 on metadata that says how to fix it, and creates nothing`, async () => {
      const merchant = await app.createMerchant()
      const client = app.client(merchant.sandbox)
      const response = await client.post('/api/v1/collect', collect(metadata))
      assert.equal(response.status, 422, response.text)
      assert.equal(response.body.code, 'validation_failed')
      const [error] = response.body.errors
      assert.match(error.field, /^metadata/)
      assert.match(error.message, message)
      const listed = await client.get('/api/v1/collect')
      assert.equal(listed.body.meta.pagination.total, 0)
    })
  }
})
