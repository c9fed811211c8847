import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { keyRevoke, keyRotate } from '../../src/cli/merchant-commands.ts'
import { webhookSecretRotate } from '../../src/cli/webhook-commands.ts'
import { startApp, type TestApp } from '../support/app.ts'
import { csrfIn, signedInMember } from '../support/dashboard.ts'
import { type Receiver, startReceiver } from '../support/receiver.ts'
import { describeEachStore } from '../support/stores.ts'
import { isSignedBy, verifyWebhook } from '../support/webhooks.ts'

/** The audit rows of a merchant, oldest first. */
async function auditRows(app: TestApp, merchantId: string) {
  return app.db
    .selectFrom('audit_log')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .orderBy('at_us')
    .orderBy('id')
    .execute()
}

const codeIn = (html: string, id: string) => new RegExp(`id="${id}">([^<]+)<`).exec(html)?.[1]

describeEachStore('dashboard: the developers page', (store) => {
  let app: TestApp
  let receiver: Receiver
  before(async () => {
    app = await startApp(store())
    receiver = await startReceiver()
  })
  after(async () => {
    await receiver?.close()
    await app?.close()
  })

  test('a developer rotates the key pair: the secret-key is shown once, the old pair stops working and the new one works', async () => {
    const merchant = await app.createMerchant('Keys merchant')
    const member = await signedInMember(app, { role: 'developer', merchantId: merchant.id })
    const page = await member.browser.get('/dashboard/sandbox/developers')
    assert.equal(page.status, 200)
    assert.ok(page.text.includes(`pk_test_…${merchant.sandbox.apiKey.slice(-4)}`), 'the masked api-key')
    assert.ok(!page.text.includes(merchant.sandbox.apiKey), 'never the whole api-key')
    assert.ok(!page.text.includes(merchant.sandbox.secretKey))

    const rotated = await member.browser.post('/dashboard/sandbox/developers/keys', {
      csrf: csrfIn(page.text, '/dashboard/sandbox/developers/keys'),
    })
    assert.equal(rotated.status, 200)
    const apiKey = codeIn(rotated.text, 'new-api-key') ?? ''
    const secretKey = codeIn(rotated.text, 'new-secret-key') ?? ''
    assert.match(apiKey, /^pk_test_/)
    assert.match(secretKey, /^sk_test_/)

    const again = await member.browser.get('/dashboard/sandbox/developers')
    assert.ok(!again.text.includes(secretKey), 'reloading does not show the secret again')
    assert.equal(codeIn(again.text, 'new-secret-key'), undefined)

    const old = await app.client(merchant.sandbox).get('/api/v1/balance')
    assert.equal(old.status, 401)
    const fresh = await app.client({ apiKey, secretKey }).get('/api/v1/balance')
    assert.equal(fresh.status, 200, fresh.text)
    // The live pair is another place's: untouched.
    assert.equal((await app.client(merchant.live).get('/api/v1/balance')).status, 200)

    const rows = await auditRows(app, merchant.id)
    const audited = rows.find((row) => row.action === 'api_key.rotated')
    assert.ok(audited, 'api_key.rotated audited')
    assert.equal(audited.actor_kind, 'member')
    assert.equal(audited.actor_label, member.email)
    assert.equal(audited.mode, 'sandbox')
    for (const row of rows) {
      const text = JSON.stringify(row)
      assert.ok(!text.includes(secretKey) && !text.includes(apiKey), 'no secret in the audit log')
    }
  })

  test('revoking the pair, then creating one: both audited, the revoked key refused', async () => {
    const merchant = await app.createMerchant('Revoking merchant')
    const member = await signedInMember(app, { role: 'admin', merchantId: merchant.id })
    const page = await member.browser.get('/dashboard/live/developers')
    const keyId = /name="key" value="([^"]+)"/.exec(page.text)?.[1] ?? ''
    const revoked = await member.browser.post('/dashboard/live/developers/keys/revoke', {
      csrf: csrfIn(page.text, '/dashboard/live/developers/keys/revoke'),
      key: keyId,
    })
    assert.equal(revoked.status, 200)
    assert.match(revoked.text, /is revoked/)
    assert.equal((await app.client(merchant.live).get('/api/v1/balance')).status, 401)
    assert.match(revoked.text, /Create a key pair/)
    const created = await member.browser.post('/dashboard/live/developers/keys', {
      csrf: csrfIn(revoked.text, '/dashboard/live/developers/keys'),
    })
    assert.match(codeIn(created.text, 'new-secret-key') ?? '', /^sk_live_/)
    const actions = (await auditRows(app, merchant.id)).map((row) => row.action)
    assert.ok(actions.includes('api_key.revoked'))
    assert.ok(actions.includes('api_key.created'))
    // A key of another merchant is not revoked by naming it.
    const again = await member.browser.post('/dashboard/live/developers/keys/revoke', {
      csrf: csrfIn(created.text, '/dashboard/live/developers/keys/revoke'),
      key: keyId,
    })
    assert.match(again.text, /not active any more/)
  })

  test('the webhook secret is rotated and shown once; a test callback arrives signed with it', async () => {
    const merchant = await app.createMerchant('Webhook merchant')
    const member = await signedInMember(app, { role: 'developer', merchantId: merchant.id })
    const page = await member.browser.get('/dashboard/sandbox/developers')
    const rotated = await member.browser.post('/dashboard/sandbox/developers/webhook-secret', {
      csrf: csrfIn(page.text, '/dashboard/sandbox/developers/webhook-secret'),
    })
    assert.equal(rotated.status, 200)
    const secret = codeIn(rotated.text, 'new-webhook-secret') ?? ''
    assert.match(secret, /^whsec_/)
    const reloaded = await member.browser.get('/dashboard/sandbox/developers')
    assert.ok(!reloaded.text.includes(secret))

    const tested = await member.browser.post('/dashboard/sandbox/developers/test-callback', {
      csrf: csrfIn(reloaded.text, '/dashboard/sandbox/developers/test-callback'),
      url: receiver.url('/dashboard-test?x=1'),
    })
    assert.equal(tested.status, 200)
    assert.match(tested.text, /answered 200 in \d+ ms/)
    const [arrived] = receiver.requestsTo('/dashboard-test')
    assert.ok(arrived, 'the test callback arrived')
    assert.ok(isSignedBy(secret, arrived), 'signed with the new secret')
    assert.ok(
      isSignedBy(merchant.sandbox.webhookSecret, arrived),
      'and, during the overlap, the previous one',
    )
    assert.ok(!isSignedBy(merchant.live.webhookSecret, arrived), 'never with the live one')
    const payload = verifyWebhook(secret, arrived) as { type: string; mode: string }
    assert.equal(payload.type, 'test.callback')
    assert.equal(payload.mode, 'sandbox')

    const rows = await auditRows(app, merchant.id)
    const rotation = rows.find((row) => row.action === 'webhook_secret.rotated')
    const test = rows.find((row) => row.action === 'callback.tested')
    assert.ok(rotation && test)
    assert.ok(!JSON.stringify(rotation).includes(secret))
    assert.equal(test.target, receiver.url('/dashboard-test'))
  })

  test('a live test callback to a loopback address is refused before anything is sent', async () => {
    const member = await signedInMember(app, { role: 'developer' })
    const page = await member.browser.get('/dashboard/live/developers')
    const before = receiver.requests.length
    const tested = await member.browser.post('/dashboard/live/developers/test-callback', {
      csrf: csrfIn(page.text, '/dashboard/live/developers/test-callback'),
      url: receiver.url('/live-test'),
    })
    assert.equal(tested.status, 200)
    assert.match(tested.text, /public address/)
    assert.equal(receiver.requests.length, before)
  })

  test('a failed callback is listed among the recent failures', async () => {
    const merchant = await app.createMerchant('Failing callbacks')
    receiver.script('/failing', [], 500)
    const client = app.client(merchant.sandbox)
    const collect = await client.post('/api/v1/collect', {
      amount: 5_000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: '+2250700000123' },
      merchantReference: 'failing-callback',
      callbackUrl: receiver.url('/failing'),
    })
    assert.equal(collect.status, 200, collect.text)
    await app.workers.runDue()
    await receiver.waitFor(() => receiver.requestsTo('/failing').length > 0, 5_000, 'a delivery')
    await app.workers.runDue()
    const member = await signedInMember(app, { role: 'developer', merchantId: merchant.id })
    const page = await member.browser.get('/dashboard/sandbox/developers')
    assert.match(page.text, /id="callback-failures"/)
    assert.ok(page.text.includes(collect.body.data.collect.token))
  })

  test('a finance member, or a POST without the CSRF token, is refused', async () => {
    const finance = await signedInMember(app, { role: 'finance' })
    assert.equal((await finance.browser.get('/dashboard/sandbox/developers')).status, 403)
    assert.equal(
      (await finance.browser.post('/dashboard/sandbox/developers/keys', { csrf: finance.csrf })).status,
      403,
    )
    const home = await finance.browser.get('/dashboard/sandbox')
    assert.ok(!home.text.includes('/dashboard/sandbox/developers'), 'the link is not offered')
    const developer = await signedInMember(app, { role: 'developer' })
    const refused = await developer.browser.post('/dashboard/sandbox/developers/keys', { csrf: 'wrong' })
    assert.equal(refused.status, 403)
    const actions = (await auditRows(app, developer.merchantId)).map((row) => row.action)
    assert.ok(!actions.includes('api_key.rotated'))
  })

  test("the CLI's key and webhook-secret commands write audit rows as the CLI", async () => {
    const merchant = await app.createMerchant('CLI merchant')
    const printed: string[] = []
    const print = (text: string) => printed.push(text)
    await keyRotate(app.context, { merchantId: merchant.id, mode: 'sandbox', json: true }, print)
    const pair = JSON.parse(printed[0] ?? '{}') as { apiKey: string; secretKey: string }
    await keyRevoke(app.context, pair.apiKey, print)
    await webhookSecretRotate(app.context, { merchantId: merchant.id, mode: 'live', json: true }, print)
    const rows = await auditRows(app, merchant.id)
    assert.deepEqual(
      rows.map((row) => [row.action, row.actor_kind, row.actor_label, row.mode]),
      [
        ['api_key.rotated', 'cli', 'cli', 'sandbox'],
        ['api_key.revoked', 'cli', 'cli', 'sandbox'],
        ['webhook_secret.rotated', 'cli', 'cli', 'live'],
      ],
    )
    const text = JSON.stringify(rows)
    assert.ok(!text.includes(pair.secretKey) && !text.includes(pair.apiKey))
  })
})
