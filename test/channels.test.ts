import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startApp, type TestApp } from './support/app.ts'
import { assertErrorEnvelope } from './support/envelope.ts'
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

  const listChannels = async (query: Record<string, string>) => {
    const merchant = await app.createMerchant()
    const response = await app.client(merchant.sandbox).get('/api/v1/channels', query)
    assert.equal(response.status, 200, response.text)
    return response.body.data.channels as any[]
  }

  test('country keeps the channels serving that country', async () => {
    const channels = await listChannels({ country: 'SN' })
    assert.ok(channels.length > 0)
    for (const channel of channels) assert.equal(channel.country, 'SN', channel.channel)
    const names = channels.map((channel) => channel.channel)
    for (const name of ['orange-money', 'wave', 'free-money']) assert.ok(names.includes(name), name)
  })

  test('channel keeps that channel in every country it serves', async () => {
    const channels = await listChannels({ channel: 'wave' })
    assert.deepEqual(channels.map((channel) => channel.country).sort(), ['BF', 'CI', 'ML', 'SN'])
    for (const channel of channels) assert.equal(channel.channel, 'wave')
  })

  test('kind keeps the channels serving it, with only its operations', async () => {
    const collects = await listChannels({ kind: 'collect' })
    assert.ok(collects.length > 0)
    for (const channel of collects)
      assert.deepEqual(
        channel.operations.map((operation: any) => operation.operation),
        ['collect'],
        `${channel.channel} ${channel.country}`,
      )
    // A transfer's sides are a collect (from) and a disbursement (to).
    const transfers = await listChannels({ kind: 'transfer' })
    for (const channel of transfers) {
      const operations = channel.operations.map((operation: any) => operation.operation)
      assert.ok(operations.length > 0)
      for (const operation of operations)
        assert.ok(['collect', 'disbursement'].includes(operation), operation)
    }
    assert.ok(
      transfers.some((channel) => channel.operations.length === 2),
      'a channel serves both sides',
    )
  })

  test('filters combine; a filter nothing matches is an empty list', async () => {
    const channels = await listChannels({ country: 'CI', channel: 'orange-money', kind: 'disbursement' })
    assert.equal(channels.length, 1)
    assert.equal(channels[0].channel, 'orange-money')
    assert.equal(channels[0].country, 'CI')
    assert.deepEqual(
      channels[0].operations.map((operation: any) => operation.operation),
      ['disbursement'],
    )
    assert.deepEqual(await listChannels({ channel: 'mpesa', country: 'CI' }), [])
  })

  for (const [query, field, code, names] of [
    [{ sort: 'asc' }, 'sort', 'unknown_field', []],
    [{ currency: 'XOF' }, 'currency', 'unknown_field', []],
    [
      { kind: 'payment' },
      'kind',
      'invalid_value',
      ['collect', 'disbursement', 'withdraw', 'recharge', 'transfer'],
    ],
    [{ country: 'ci' }, 'country', 'invalid_format', []],
    [{ channel: 'Orange Money' }, 'channel', 'invalid_format', ['GET /api/v1/channels']],
  ] as const) {
    test(`?${new URLSearchParams(query)} is a 422 validation_failed naming ${field} (${code})`, async () => {
      const merchant = await app.createMerchant()
      const response = await app.client(merchant.sandbox).get('/api/v1/channels', query)
      assertErrorEnvelope(response, 422, 'validation_failed')
      assert.deepEqual(
        response.body.errors.map((entry: any) => [entry.field, entry.code]),
        [[field, code]],
      )
      for (const name of names) assert.ok(response.body.errors[0].message.includes(name), name)
    })
  }
})
