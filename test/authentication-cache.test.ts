import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { revokeApiKey, setMerchantStatus } from '../src/app/merchants.ts'
import { startApp, type TestApp } from './support/app.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * Authentication keeps what it read of a key for at most 500 ms, so requests do not read the
 * store for their key each time. The promise kept: a key revoked or a merchant suspended on one
 * instance stops working on every instance sharing the store within 1 s, and at once on the
 * instance that made the change; a key issued on one instance works at once on the others.
 */
describeEachStore('credentials kept for at most 500 ms across instances', (target) => {
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

  /** Polls every 50 ms until the status changes from 200; the ms it took. */
  async function msUntilRefused(app: TestApp, keys: { apiKey: string; secretKey: string }, status: number) {
    const started = performance.now()
    for (;;) {
      const answer = await app.client(keys).get('/api/v1/collect')
      if (answer.status !== 200) {
        assert.equal(answer.status, status, answer.text)
        return performance.now() - started
      }
      if (performance.now() - started > 3000) assert.fail('still accepted after 3 s')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  test('a key issued on one instance works on the other at once', async () => {
    const merchant = await first.createMerchant('Issued on the first')
    assert.equal((await second.client(merchant.sandbox).get('/api/v1/collect')).status, 200)
  })

  test('a key revoked on one instance: refused there at once, on the other within 1 s', async () => {
    const merchant = await first.createMerchant('Revoked')
    for (const app of [first, second])
      assert.equal((await app.client(merchant.sandbox).get('/api/v1/collect')).status, 200)
    assert.equal(await revokeApiKey(first.context, merchant.sandbox.apiKey), true)
    const atOnce = await first.client(merchant.sandbox).get('/api/v1/collect')
    assert.equal(atOnce.status, 401)
    assert.equal(atOnce.body.code, 'invalid_credentials')
    const ms = await msUntilRefused(second, merchant.sandbox, 401)
    assert.ok(ms < 1000, `the other instance accepted the revoked key for ${Math.round(ms)} ms`)
  })

  test('a merchant suspended on one instance: 403 there at once, on the other within 1 s', async () => {
    const merchant = await first.createMerchant('Suspended')
    for (const app of [first, second])
      assert.equal((await app.client(merchant.sandbox).get('/api/v1/collect')).status, 200)
    assert.equal(await setMerchantStatus(first.context, merchant.id, 'suspended'), true)
    assert.equal((await first.client(merchant.sandbox).get('/api/v1/collect')).status, 403)
    const ms = await msUntilRefused(second, merchant.sandbox, 403)
    assert.ok(ms < 1000, `the other instance served the suspended merchant for ${Math.round(ms)} ms`)
  })

  test('a wrong secret is refused even while the key is kept', async () => {
    const merchant = await first.createMerchant('Wrong secret')
    assert.equal((await first.client(merchant.sandbox).get('/api/v1/collect')).status, 200)
    const wrong = await first
      .client({ apiKey: merchant.sandbox.apiKey, secretKey: `${merchant.sandbox.secretKey}x` })
      .get('/api/v1/collect')
    assert.equal(wrong.status, 401)
  })
})
