import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startApp, type TestApp } from '../support/app.ts'
import { signedInPlatformMember } from '../support/console.ts'
import { csrfIn, DashboardBrowser, signedInMember } from '../support/dashboard.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * CONTRACT.md, Platform console, merchants: admin creates a merchant and invites its first owner
 * from /console/merchants; the invitation URL, shown once, opens the dashboard's invitation page
 * and makes its owner; the creation is in the platform audit. Other roles see no form and their
 * POST is a 403; a wrong form is an error that creates nothing.
 */
describeEachStore('console: admin creates a merchant and invites its owner', (target) => {
  let app: TestApp
  before(async () => {
    app = await startApp(target())
  })
  after(() => app?.close())

  const merchantsNamed = (name: string) =>
    app.db.selectFrom('merchants').select('id').where('name', '=', name).execute()

  test('the invitation URL shown once opens the dashboard invitation and makes the owner', {
    timeout: 90_000,
  }, async () => {
    const admin = await signedInPlatformMember(app, { role: 'admin' })
    const page = await admin.browser.get('/console/merchants')
    assert.match(page.text, /method="post" action="\/console\/merchants"/)
    const ownerEmail = `owner.${process.pid}@new-merchant.example`
    const created = await admin.browser.post('/console/merchants', {
      csrf: csrfIn(page.text, '/console/merchants'),
      name: 'Nouvelle Boutique <Abidjan>',
      ownerEmail,
    })
    assert.equal(created.status, 200, created.text)
    assert.match(created.text, /Nouvelle Boutique &lt;Abidjan/, 'escaped')
    assert.ok(!created.text.includes('<Abidjan'), 'escaped')
    const url = /data-invitation-url[^>]*>([^<]+)</.exec(created.text)?.[1]
    assert.ok(url, 'the page shows the invitation URL')
    const [merchant] = await merchantsNamed('Nouvelle Boutique <Abidjan>')
    assert.ok(merchant)

    const owner = new DashboardBrowser(app)
    const path = new URL(url).pathname
    const invitation = await owner.get(path)
    assert.equal(invitation.status, 200, invitation.text)
    assert.match(invitation.text, /Nouvelle Boutique &lt;Abidjan/)
    const accepted = await owner.post(path, {
      csrf: csrfIn(invitation.text),
      name: 'Adjoua Kouassi',
      password: 'correct horse battery staple',
    })
    assert.equal(accepted.status, 303, accepted.text)
    const member = await app.db
      .selectFrom('members')
      .select(['merchant_id', 'role'])
      .where('email', '=', ownerEmail)
      .executeTakeFirst()
    assert.deepEqual(member, { merchant_id: merchant.id, role: 'owner' })

    const shownAgain = await admin.browser.get(`/console/merchants/${merchant.id}`)
    assert.ok(!shownAgain.text.includes(path), 'the URL is shown only once')
    const platform = await app.db
      .selectFrom('platform_audit_log')
      .select(['action', 'target'])
      .where('actor_label', '=', admin.email)
      .where('action', 'like', 'merchant.%')
      .execute()
    assert.deepEqual(platform, [{ action: 'merchant.created', target: merchant.id }])
  })

  test('a wrong form creates nothing; other roles see no form and their POST is a 403', {
    timeout: 90_000,
  }, async () => {
    const admin = await signedInPlatformMember(app, { role: 'admin' })
    const blankEmail = await admin.browser.post('/console/merchants', {
      csrf: admin.csrf,
      name: 'No Owner Shop',
      ownerEmail: 'not an email',
    })
    assert.equal(blankEmail.status, 422)
    assert.match(blankEmail.text, /Write the owner’s email address/)
    const existing = await signedInMember(app, { role: 'owner' })
    const taken = await admin.browser.post('/console/merchants', {
      csrf: admin.csrf,
      name: 'No Owner Shop',
      ownerEmail: existing.email,
    })
    assert.equal(taken.status, 422)
    const forged = await admin.browser.post('/console/merchants', {
      csrf: 'forged',
      name: 'No Owner Shop',
      ownerEmail: 'someone@example.com',
    })
    assert.equal(forged.status, 403, 'a form without the session’s CSRF token')
    for (const role of ['analyst', 'risk', 'finance', 'support'] as const) {
      const member = await signedInPlatformMember(app, { role })
      const page = await member.browser.get('/console/merchants')
      assert.doesNotMatch(page.text, /method="post" action="\/console\/merchants"/, role)
      const answer = await member.browser.post('/console/merchants', {
        csrf: member.csrf,
        name: 'No Owner Shop',
        ownerEmail: `${role}@example.com`,
      })
      assert.equal(answer.status, 403, role)
    }
    assert.deepEqual(await merchantsNamed('No Owner Shop'), [])
  })
})
