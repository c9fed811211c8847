import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startApp, type TestApp } from './support/app.ts'
import { describeEachStore } from './support/stores.ts'

describeEachStore('GET /api/v1/channels', (store) => {
  let app: TestApp
  before(async () => {
    app = await startApp(store())
  })
  after(() => app.close())

  test('lists the catalogue in the spec envelope, with limits and the merchant\u2019s fees', async () => {
    const merchant = await app.createMerchant()
    const response = await app.client(merchant.sandbox).get('/api/v1/channels')
    assert.equal(response.status, 200)
    assert.equal(response.body.success, true)
    assert.equal(response.body.statusCode, 200)
    assert.equal(response.body.message, 'Channels !')
    const channels = response.body.data.channels as any[]
    const countries = new Set(channels.map((channel) => channel.country))
    for (const country of [
      'BJ',
      'BF',
      'CI',
      'GW',
      'ML',
      'NE',
      'SN',
      'TG',
      'CM',
      'CF',
      'TD',
      'CG',
      'GA',
      'GH',
      'KE',
    ]) {
      assert.ok(countries.has(country), `${country} has a channel`)
    }
    const orangeCi = channels.find(
      (channel) => channel.channel === 'orange-money' && channel.country === 'CI',
    )
    assert.equal(orangeCi.currency, 'XOF')
    const collect = orangeCi.operations.find((operation: any) => operation.operation === 'collect')
    assert.deepEqual(collect.pricing, { percentageFee: 1.5, additionalFee: 0, supportedByAccount: true })
    assert.equal(typeof collect.minAmount, 'number')
    assert.ok(channels.some((channel) => channel.channel === 'mpesa' && channel.currency === 'KES'))
  })
})
