import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startApp, type TestApp } from '../support/app.ts'
import { csrfIn, signedInMember } from '../support/dashboard.ts'
import { describeEachStore } from '../support/stores.ts'

describeEachStore('dashboard: the merchant settings page', (store) => {
  let app: TestApp
  before(async () => {
    app = await startApp(store())
  })
  after(() => app?.close())

  test('an owner turns batch approval on and off; each change is audited with before and after', async () => {
    const owner = await signedInMember(app, { role: 'owner' })
    const home = await owner.browser.get('/dashboard/sandbox')
    assert.match(home.text, /href="\/dashboard\/settings"/)
    const page = await owner.browser.get('/dashboard/settings')
    assert.equal(page.status, 200)
    assert.ok(!/name="requireBatchApproval" checked/.test(page.text), 'off by default')
    const on = await owner.browser.post('/dashboard/settings', {
      csrf: csrfIn(page.text, '/dashboard/settings'),
      requireBatchApproval: 'on',
    })
    assert.equal(on.status, 200)
    assert.match(on.text, /The settings are saved/)
    assert.match(on.text, /name="requireBatchApproval" checked/)
    assert.equal(await app.context.store.payoutBatches.requiresApproval(owner.merchantId), true)
    const off = await owner.browser.post('/dashboard/settings', {
      csrf: csrfIn(on.text, '/dashboard/settings'),
    })
    assert.equal(off.status, 200)
    assert.equal(await app.context.store.payoutBatches.requiresApproval(owner.merchantId), false)
    const rows = await app.db
      .selectFrom('audit_log')
      .selectAll()
      .where('merchant_id', '=', owner.merchantId)
      .where('action', '=', 'merchant.require_batch_approval')
      .orderBy('at_us')
      .execute()
    assert.deepEqual(
      rows.map((row) => [row.actor_label, row.before_json, row.after_json]),
      [
        [owner.email, '{"requireBatchApproval":false}', '{"requireBatchApproval":true}'],
        [owner.email, '{"requireBatchApproval":true}', '{"requireBatchApproval":false}'],
      ],
    )
  })

  test('an admin is refused the page and the change, and is not offered the link', async () => {
    const admin = await signedInMember(app, { role: 'admin' })
    const home = await admin.browser.get('/dashboard/sandbox')
    assert.ok(!home.text.includes('href="/dashboard/settings"'))
    assert.equal((await admin.browser.get('/dashboard/settings')).status, 403)
    const posted = await admin.browser.post('/dashboard/settings', {
      csrf: admin.csrf,
      requireBatchApproval: 'on',
    })
    assert.equal(posted.status, 403)
    assert.equal(await app.context.store.payoutBatches.requiresApproval(admin.merchantId), false)
  })
})
