import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { setFeeRow } from '../src/app/catalogue.ts'
import { startApp, type TestApp } from './support/app.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * Pricing keeps each side's route and the merchant's fee rule for at most 500 ms, so initiations
 * do not read the catalogue each time. The promise kept: a fee row set on one instance prices
 * that instance's next initiation at once, and every other instance's within 1 s.
 */
describeEachStore('fee rules kept for at most 500 ms across instances', (target) => {
  let first: TestApp
  let second: TestApp

  before(async () => {
    first = await startApp(target())
    second = await startApp(target())
  })
  after(async () => {
    await first.close()
    await second.close()
  })

  let references = 0
  async function feesOfACollect(app: TestApp, keys: { apiKey: string; secretKey: string }): Promise<number> {
    const response = await app.client(keys).post('/api/v1/collect', {
      amount: 1000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: '+2250700000123' },
      merchantReference: `priced-${++references}`,
      callbackUrl: 'http://127.0.0.1:9/callbacks',
    })
    assert.equal(response.status, 200, response.text)
    return response.body.data.collect.pricing.feesAmount
  }

  test('a fee row set on one instance prices there at once, on the other within 1 s', async () => {
    const merchant = await first.createMerchant('Repriced')
    const defaultFees = await feesOfACollect(first, merchant.sandbox)
    assert.equal(await feesOfACollect(second, merchant.sandbox), defaultFees, 'both instances priced it')
    const row = {
      merchantId: merchant.id,
      kind: 'collect',
      channel: 'orange-money',
      country: 'CI',
      percentageMilli: 10_000,
      additionalFeeMinor: 7,
      supportedByAccount: false,
    }
    assert.equal(await setFeeRow(first.context, row), true)
    // 10 % of 1000, plus 7.
    assert.equal(await feesOfACollect(first, merchant.sandbox), 107, 'the instance that set it, at once')
    const started = performance.now()
    while ((await feesOfACollect(second, merchant.sandbox)) !== 107) {
      assert.ok(performance.now() - started < 3000, 'the other instance still used the old fees after 3 s')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const ms = performance.now() - started
    assert.ok(ms < 1000, `the other instance priced with the old fee row for ${Math.round(ms)} ms`)
  })
})
