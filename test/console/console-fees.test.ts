import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startApp, type TestApp } from '../support/app.ts'
import { signedInPlatformMember } from '../support/console.ts'
import { csrfIn } from '../support/dashboard.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * CONTRACT.md, Platform console: finance sets a merchant's fees from its page; the fee prices the
 * next collect on every instance within 1 s, the change is in the merchant's audit and the
 * platform's with what it replaced; a wrong form is an error that changes nothing, and a role
 * without the right sees no form and its forged POST is a 403 that changes nothing.
 */
describeEachStore('console: finance sets a merchant’s fees', (target) => {
  let first: TestApp
  let second: TestApp
  before(async () => {
    first = await startApp(target())
    second = await startApp(target())
  })
  after(async () => {
    await first?.close()
    await second?.close()
  })

  let references = 0
  async function feesOfACollect(app: TestApp, keys: { apiKey: string; secretKey: string }) {
    const response = await app.client(keys).post('/api/v1/collect', {
      amount: 1000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: '+2250700000123' },
      merchantReference: `console-fee-${++references}`,
      callbackUrl: 'http://127.0.0.1:9/callbacks',
    })
    assert.equal(response.status, 200, response.text)
    const collect = response.body.data.collect
    const stored = await app.db
      .selectFrom('operations')
      .select('sides')
      .where('token', '=', collect.token)
      .executeTakeFirstOrThrow()
    const sides = JSON.parse(stored.sides) as { feesMinor: number }[]
    return { answered: collect.pricing.feesAmount as number, stored: sides.map((side) => side.feesMinor) }
  }

  const feeRowsOf = (merchantId: string) =>
    first.db.selectFrom('fee_schedule').selectAll().where('merchant_id', '=', merchantId).execute()

  const fee = {
    kind: 'collect',
    channel: 'orange-money',
    country: 'CI',
    percentage: '10',
    fixed: '7',
    bearer: 'customer',
  }

  test('a fee set by finance prices the next collect on the other instance within 1 s', {
    timeout: 120_000,
  }, async () => {
    const merchant = await first.createMerchant('Repriced In The Console')
    const before = await feesOfACollect(second, merchant.sandbox)
    assert.notEqual(before.answered, 107, 'the default fee is another one')
    const finance = await signedInPlatformMember(first, { role: 'finance' })
    const path = `/console/merchants/${merchant.id}/fees`
    const page = await finance.browser.get(`/console/merchants/${merchant.id}`)
    assert.match(page.text, new RegExp(`action="${path}"`))

    const wrong = await finance.browser.post(path, {
      ...fee,
      csrf: csrfIn(page.text, path),
      percentage: '250',
    })
    assert.equal(wrong.status, 422)
    assert.match(wrong.text, /percentage from 0 to 100/)
    const noCountry = await finance.browser.post(path, { ...fee, csrf: finance.csrf, country: '*' })
    assert.equal(noCountry.status, 422, 'a fixed fee needs a country')
    assert.deepEqual(await feeRowsOf(merchant.id), [])

    const set = await finance.browser.post(path, { ...fee, csrf: finance.csrf })
    assert.equal(set.status, 200, set.text)
    assert.match(set.text, /The fee is set/)
    assert.match(set.text, /10 %/, 'the page lists the new row')
    // 10 % of 1000, plus 7.
    const started = performance.now()
    for (;;) {
      const priced = await feesOfACollect(second, merchant.sandbox)
      if (priced.answered === 107) {
        assert.deepEqual(priced.stored, [107], 'the stored collect carries the new fee')
        break
      }
      assert.ok(performance.now() - started < 3000, 'the other instance still used the old fee after 3 s')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const ms = performance.now() - started
    assert.ok(ms < 1000, `the other instance priced with the old fee for ${Math.round(ms)} ms`)
    assert.equal((await feesOfACollect(first, merchant.sandbox)).answered, 107)

    const again = await finance.browser.post(path, { ...fee, csrf: finance.csrf, percentage: '2,5' })
    assert.equal(again.status, 200, again.text)
    const audit = await first.db
      .selectFrom('audit_log')
      .select(['action', 'actor_label'])
      .where('merchant_id', '=', merchant.id)
      .orderBy('at_us')
      .execute()
    assert.deepEqual(
      audit.map((row) => [row.action, row.actor_label]),
      [
        ['fee.set', finance.email],
        ['fee.set', finance.email],
      ],
    )
    const platform = await first.db
      .selectFrom('platform_audit_log')
      .select(['action', 'target', 'before_json', 'after_json'])
      .where('actor_label', '=', finance.email)
      .where('action', 'like', 'merchant.%')
      .orderBy('at_us')
      .execute()
    assert.deepEqual(
      platform.map((row) => [row.action, row.target]),
      [
        ['merchant.fee_set', `${merchant.id} collect orange-money CI`],
        ['merchant.fee_set', `${merchant.id} collect orange-money CI`],
      ],
    )
    assert.equal(platform[0]?.before_json, null)
    assert.match(platform[1]?.before_json ?? '', /"percentage":10\b/)
    assert.match(platform[1]?.after_json ?? '', /"percentage":2\.5/)
  })

  test('an analyst sees no fee form and a forged POST is a 403 that changes nothing; admin may', {
    timeout: 90_000,
  }, async () => {
    const merchant = await first.createMerchant('Fees Analysed')
    const path = `/console/merchants/${merchant.id}/fees`
    for (const role of ['analyst', 'risk', 'support'] as const) {
      const member = await signedInPlatformMember(first, { role })
      const page = await member.browser.get(`/console/merchants/${merchant.id}`)
      assert.equal(page.status, 200)
      assert.doesNotMatch(page.text, new RegExp(`action="${path}"`), role)
      const forged = await member.browser.post(path, { ...fee, csrf: member.csrf })
      assert.equal(forged.status, 403, role)
    }
    const finance = await signedInPlatformMember(first, { role: 'finance' })
    const noToken = await finance.browser.post(path, { ...fee, csrf: 'forged' })
    assert.equal(noToken.status, 403, 'a form without the session’s CSRF token')
    assert.deepEqual(await feeRowsOf(merchant.id), [])

    const admin = await signedInPlatformMember(first, { role: 'admin' })
    const page = await admin.browser.get(`/console/merchants/${merchant.id}`)
    assert.match(page.text, new RegExp(`action="${path}"`))
    const set = await admin.browser.post(path, { ...fee, csrf: admin.csrf })
    assert.equal(set.status, 200, set.text)
    assert.equal((await feeRowsOf(merchant.id)).length, 1)
  })
})
