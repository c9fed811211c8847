import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startApp, type TestApp } from '../support/app.ts'
import { signedInPlatformMember } from '../support/console.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * CONTRACT.md, Platform console, operations: one search across every merchant finds a phone
 * number however it is written, a token or a merchantReference; an operation's page is the
 * dashboard's, read-only but for support's resend of a callback.
 */
describeEachStore('console: operations across merchants', (target) => {
  let app: TestApp
  before(async () => {
    app = await startApp(target())
  })
  after(() => app?.close())

  const collect = (phoneNumber: string, merchantReference: string) => ({
    amount: 1500,
    channel: 'orange-money',
    country: 'CI',
    customer: { phoneNumber },
    merchantReference,
    callbackUrl: 'http://127.0.0.1:9/callbacks',
  })

  test('one search across merchants finds a phone in another form, a token and a reference', {
    timeout: 90_000,
  }, async () => {
    const first = await app.createMerchant('Phone Shop One')
    const second = await app.createMerchant('Phone Shop Two')
    const made = await app.client(first.sandbox).post('/api/v1/collect', collect('+2250701234567', 'ref-one'))
    assert.equal(made.status, 200, made.text)
    const other = await app
      .client(second.sandbox)
      .post('/api/v1/collect', collect('+2250701234567', 'ref-two'))
    assert.equal(other.status, 200, other.text)
    const token = made.body.data.collect.token as string
    const analyst = await signedInPlatformMember(app, { role: 'analyst' })

    const byPhone = await analyst.browser.get(
      `/console/operations?mode=sandbox&q=${encodeURIComponent('07 01 23 45 67')}`,
    )
    assert.equal(byPhone.status, 200)
    assert.match(byPhone.text, /ref-one/)
    assert.match(byPhone.text, /ref-two/, 'both merchants’ operations are found')
    const international = await analyst.browser.get(
      `/console/operations?mode=sandbox&q=${encodeURIComponent('00225 0701234567')}`,
    )
    assert.match(international.text, /ref-one/)
    const byMerchant = await analyst.browser.get(
      `/console/operations?mode=sandbox&merchant=${second.id}&q=${encodeURIComponent('+225 07 01 23 45 67')}`,
    )
    assert.match(byMerchant.text, /ref-two/)
    assert.doesNotMatch(byMerchant.text, /ref-one/)
    const byToken = await analyst.browser.get(`/console/operations?mode=sandbox&q=${token}`)
    assert.match(byToken.text, new RegExp(`href="/console/operations/${token}"`))
    const list = await analyst.browser.get('/console/operations?mode=sandbox&status=succeeded')
    assert.match(list.text, /ref-one/)

    const page = await analyst.browser.get(`/console/operations/${token}`)
    assert.equal(page.status, 200, page.text)
    assert.match(page.text, /Phone Shop One/)
    assert.match(page.text, /ref-one/)
    assert.doesNotMatch(
      page.text,
      /method="post" action="\/console\/operations\//,
      'read-only for an analyst',
    )
    assert.equal((await analyst.browser.get('/console/operations/op_nothing_here')).status, 404)
  })

  test('support resends a callback from the console; an analyst’s forged resend is a 403', {
    timeout: 90_000,
  }, async () => {
    const merchant = await app.createMerchant('Callbacks Shop')
    const made = await app
      .client(merchant.sandbox)
      .post('/api/v1/collect', collect('+2250709876543', 'cb-one'))
    const token = made.body.data.collect.token as string
    const support = await signedInPlatformMember(app, { role: 'support' })
    const page = await support.browser.get(`/console/operations/${token}`)
    const action = /action="(\/console\/operations\/[^"]+\/resend)"/.exec(page.text)?.[1]
    assert.ok(action, 'support is offered a resend')
    const analyst = await signedInPlatformMember(app, { role: 'analyst' })
    const events = async () =>
      (
        await app.db
          .selectFrom('platform_audit_log')
          .select('id')
          .where('action', '=', 'callback.resent')
          .execute()
      ).length
    const before = await events()
    assert.equal((await analyst.browser.post(action, { csrf: analyst.csrf })).status, 403)
    assert.equal(await events(), before)
    const resent = await support.browser.post(action, { csrf: support.csrf })
    assert.equal(resent.status, 200, resent.text)
    assert.match(resent.text, /queued again/)
    assert.equal(await events(), before + 1)
  })
})
