import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type SideKind, sideKinds } from '../../src/domain/kinds.ts'
import { startMtnMomoSimulator } from '../../src/simulators/mtn-momo/mtn-momo-simulator.ts'
import { startOrangeMoneySimulator } from '../../src/simulators/orange-money/orange-money-simulator.ts'
import { type ApiClient, startApp, type TestApp } from '../support/app.ts'
import { assertErrorEnvelope } from '../support/envelope.ts'
import { type LiveApp, startLiveApp } from '../support/live.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * CONTRACT.md, Operators: live GET /api/v1/channels lists only the connected channel and country
 * pairs, with only the operations their operator can carry, and a live initiation anywhere else
 * is a 422 channel_unavailable that writes nothing. The sandbox keeps the whole catalogue.
 */

const collectBody = (channel: string, country: string, phoneNumber: string, reference: string) => ({
  amount: 5000,
  channel,
  country,
  customer: { phoneNumber },
  merchantReference: reference,
  callbackUrl: 'https://merchant.example/callback',
})

async function operationCount(app: TestApp): Promise<number> {
  const row = await app.db
    .selectFrom('operations')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

describeEachStore('live channels', (store) => {
  describe('with no OPERATORS_FILE', () => {
    let app: TestApp
    let live: ApiClient
    let sandbox: ApiClient
    before(async () => {
      app = await startApp(store())
      const merchant = await app.createMerchant()
      live = app.client(merchant.live)
      sandbox = app.client(merchant.sandbox)
    })
    after(() => app.close())

    test('live lists no channel; the sandbox lists the whole catalogue', async () => {
      assert.deepEqual((await live.get('/api/v1/channels')).body.data.channels, [])
      assert.ok((await sandbox.get('/api/v1/channels')).body.data.channels.length > 30)
    })

    test('a live collect is a 422 channel_unavailable naming the channel, and writes nothing', async () => {
      const before = await operationCount(app)
      const response = await live.post('/api/v1/collect', collectBody('mtn-momo', 'CI', '0700000123', 'nc-1'))
      assertErrorEnvelope(response, 422, 'channel_unavailable')
      assert.equal(response.body.errors[0].field, 'channel')
      assert.match(response.body.errors[0].message, /not connected for live collect in CI/)
      assert.equal(await operationCount(app), before)
    })
  })

  describe('with MTN MoMo in CI and Orange Money in CI connected', () => {
    let running: LiveApp
    let sandbox: ApiClient
    before(async () => {
      running = await startLiveApp(store(), async (publicBaseUrl) => [
        { simulator: await startMtnMomoSimulator({}), channel: 'mtn-momo', countries: ['CI'] },
        {
          simulator: await startOrangeMoneySimulator({
            webhookUrl: `${publicBaseUrl}/providers/orange-money/notifications`,
          }),
          channel: 'orange-money',
          countries: ['CI'],
        },
      ])
      sandbox = running.app.client((await running.app.createMerchant('Sandbox view')).sandbox)
    })
    after(() => running?.close())

    test('live lists exactly the connected pairs; Orange Money only with what it can collect', async () => {
      const liveChannels = (await running.live.get('/api/v1/channels')).body.data.channels as any[]
      const catalogue = (await sandbox.get('/api/v1/channels', { country: 'CI' })).body.data.channels as any[]
      const entry = (channel: string) => catalogue.find((candidate) => candidate.channel === channel)
      const cashIn = (operation: { operation: string }) =>
        sideKinds[operation.operation as SideKind].direction === 'cash-in'
      const byChannel = (channels: any[]) =>
        Object.fromEntries(channels.map((channel) => [`${channel.channel}/${channel.country}`, channel]))
      assert.deepEqual(byChannel(liveChannels), {
        'mtn-momo/CI': entry('mtn-momo'),
        'orange-money/CI': {
          ...entry('orange-money'),
          operations: entry('orange-money').operations.filter(cashIn),
        },
      })
      assert.ok(entry('orange-money').operations.some((operation: any) => !cashIn(operation)))
    })

    test('an unconnected country, or a payout through Orange Money, is a 422 channel_unavailable that writes nothing', async () => {
      const before = await operationCount(running.app)
      const elsewhere = await running.live.post(
        '/api/v1/collect',
        collectBody('mtn-momo', 'CM', '670000123', 'unconnected-country'),
      )
      assertErrorEnvelope(elsewhere, 422, 'channel_unavailable')
      const payout = await running.live.post(
        '/api/v1/disbursement',
        collectBody('orange-money', 'CI', '0700000123', 'orange-payout'),
      )
      assertErrorEnvelope(payout, 422, 'channel_unavailable')
      assert.match(payout.body.errors[0].message, /not connected for live disbursement in CI/)
      const transfer = await running.live.post('/api/v1/transfer', {
        from: { amount: 5000, channel: 'mtn-momo', country: 'CI', customer: { phoneNumber: '0700000123' } },
        to: { amount: 5000, channel: 'orange-money', country: 'CI', customer: { phoneNumber: '0700000456' } },
        merchantReference: 'transfer-to-orange',
        callbackUrl: 'https://merchant.example/callback',
      })
      assertErrorEnvelope(transfer, 422, 'channel_unavailable')
      assert.equal(transfer.body.errors[0].field, 'to.channel')
      assert.equal(await operationCount(running.app), before)
    })

    test('a live record names its payment at the operator: operatorReference', async () => {
      const response = await running.live.post(
        '/api/v1/collect',
        collectBody('mtn-momo', 'CI', '0700000123', 'with-operator-reference'),
      )
      assert.equal(response.status, 200, response.text)
      const record = response.body.data.collect
      assert.match(record.operatorReference, /^[0-9a-f-]{36}$/)
      const sandboxRecord = (
        await sandbox.post('/api/v1/collect', collectBody('mtn-momo', 'CI', '0700000123', 'sandbox-record'))
      ).body.data.collect
      assert.equal(sandboxRecord.operatorReference, undefined, 'no operator in the sandbox')
    })
  })
})
