import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { inviteMember } from '../../src/app/dashboard/invitations.ts'
import { isRefusal } from '../../src/app/dashboard/refusals.ts'
import { startApp, type TestApp } from '../support/app.ts'
import { chromiumMissing, launchChromium, seriousAxeViolations } from '../support/browser.ts'
import { openConsolePage, type SignedInPlatformMember, signedInPlatformMember } from '../support/console.ts'
import { csrfIn, DashboardBrowser, signedInMember } from '../support/dashboard.ts'
import { freePort } from '../support/process.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * CONTRACT.md, Platform console (a merchant's page, its members: reset TOTP, invite again), in
 * Chromium: an admin resets a member's authenticator through the confirmation page, and the
 * member's next sign-in to the dashboard asks for a new one; an admin invites again an invitation
 * nobody accepted, and the new URL works once while the old one no longer does. Both are in the
 * merchant's audit and the platform's; an analyst's or support's forged form is a 403 that changes
 * nothing; the merchant's only owner is never invited again. Every page is axe-core clean in
 * English and French.
 */
describeEachStore('console: helping a merchant’s members in a real browser', (store) => {
  let app: TestApp
  let browser: Browser
  let admin: SignedInPlatformMember
  let support: SignedInPlatformMember
  let analyst: SignedInPlatformMember
  const contexts: BrowserContext[] = []

  before(async () => {
    const port = await freePort()
    app = await startApp(store(), {
      environment: { PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` },
    })
    admin = await signedInPlatformMember(app, { role: 'admin' })
    support = await signedInPlatformMember(app, { role: 'support' })
    analyst = await signedInPlatformMember(app, { role: 'analyst' })
    if (!chromiumMissing) browser = await launchChromium()
  })
  after(async () => {
    for (const context of contexts) await context.close().catch(() => {})
    await browser?.close()
    await app?.close()
  })

  const openAs = (member: SignedInPlatformMember, lang: 'en' | 'fr') =>
    openConsolePage(browser, app.url, member, lang, contexts)

  async function passwordStep(email: string, password: string) {
    const browser = new DashboardBrowser(app)
    const form = await browser.get('/dashboard/login')
    return browser.post('/dashboard/login', { csrf: csrfIn(form.text), email, password })
  }

  const helpHref = (merchantId: string, step: string, email: string) =>
    `/console/merchants/${merchantId}/members/${step}?email=${encodeURIComponent(email)}`
  const platformRows = (action: string, target: string) =>
    app.db
      .selectFrom('platform_audit_log')
      .selectAll()
      .where('action', '=', action)
      .where('target', '=', target)
      .execute()

  test('an admin resets a member’s TOTP and invites again an invitation not accepted, in both languages', {
    skip: chromiumMissing,
    timeout: 240_000,
  }, async () => {
    const failures: string[] = []
    const axe = async (page: Page, name: string, lang: string) =>
      failures.push(...(await seriousAxeViolations(page, `console members ${store().name} ${lang} ${name}`)))
    for (const lang of ['en', 'fr'] as const) {
      const merchant = await app.createMerchant(`Members Shop ${lang}`)
      const member = await signedInMember(app, { role: 'developer', merchantId: merchant.id })
      const late = `late-${lang}.${process.pid}@merchant.example`
      const first = await inviteMember(app.context, { kind: 'cli' }, merchant.id, {
        email: late,
        role: 'viewer',
      })
      if (isRefusal(first)) throw new Error(first.refused)

      const page = await openAs(admin, lang)
      await page.goto(`${app.url}/console/merchants/${merchant.id}`)
      await axe(page, 'merchant, members and invitations', lang)
      await Promise.all([
        page.waitForEvent('load'),
        page.click(`a[href="${helpHref(merchant.id, 'reset-totp', member.email)}"]`),
      ])
      await axe(page, 'reset TOTP, confirmation', lang)
      await Promise.all([page.waitForEvent('load'), page.click('main form button.danger')])
      assert.ok(await page.isVisible('main p.notice'), 'the page says the authenticator is reset')
      await axe(page, 'reset TOTP, done', lang)
      assert.equal((await member.browser.get('/dashboard/sandbox')).status, 303, 'their sessions ended')
      const signIn = await passwordStep(member.email, member.password)
      assert.equal(signIn.status, 303, signIn.text)
      assert.match(signIn.location ?? '', /^\/dashboard\/enrol/, 'asked to enrol a new authenticator')
      const [reset] = await platformRows('merchant.authenticator.reset', `${merchant.id} ${member.email}`)
      assert.equal(reset?.actor_label, admin.email)
      assert.deepEqual(JSON.parse(reset?.before_json ?? ''), { enrolled: true })
      assert.deepEqual(JSON.parse(reset?.after_json ?? ''), { enrolled: false })

      await page.goto(`${app.url}/console/merchants/${merchant.id}`)
      await Promise.all([
        page.waitForEvent('load'),
        page.click(`a[href="${helpHref(merchant.id, 'invite-again', late)}"]`),
      ])
      await axe(page, 'invite again, confirmation', lang)
      await Promise.all([page.waitForEvent('load'), page.click('main form button.danger')])
      const url = (await page.textContent('code[data-invitation-url]')) ?? ''
      assert.match(url, /\/dashboard\/invitations\//)
      await axe(page, 'invited again', lang)
      const oldPath = new URL(first.invitationUrl).pathname
      assert.equal((await new DashboardBrowser(app).get(oldPath)).status, 404, 'the old URL no longer works')
      const accept = async () => {
        const visitor = new DashboardBrowser(app)
        const path = new URL(url).pathname
        const form = await visitor.get(path)
        if (form.status !== 200) return form.status
        const answer = await visitor.post(path, {
          csrf: csrfIn(form.text),
          name: 'Late Joiner',
          password: 'correct horse battery staple',
        })
        return answer.status
      }
      assert.equal(await accept(), 303, 'the new URL works')
      assert.equal(await accept(), 404, 'once')
      const [again] = await platformRows('merchant.member.invited_again', `${merchant.id} ${late}`)
      assert.equal(again?.actor_label, admin.email)
      assert.equal(JSON.parse(again?.after_json ?? '').role, 'viewer')
    }
    assert.deepEqual(failures, [])
  })

  test('an analyst or support is offered no help; a forged reset or invitation (theirs, or without a CSRF token) is a 403 that changes nothing', async () => {
    const merchant = await app.createMerchant('Forged Help Shop')
    const member = await signedInMember(app, { role: 'viewer', merchantId: merchant.id })
    const page = await analyst.browser.get(`/console/merchants/${merchant.id}`)
    assert.equal(page.status, 200)
    assert.doesNotMatch(page.text, /\/members\/(reset-totp|invite-again)/)
    const confirm = await analyst.browser.get(helpHref(merchant.id, 'reset-totp', member.email))
    assert.equal(confirm.status, 403)
    assert.doesNotMatch(
      (await support.browser.get(`/console/merchants/${merchant.id}`)).text,
      /\/members\/(reset-totp|invite-again)/,
    )
    for (const someone of [analyst, support])
      for (const step of ['reset-totp', 'invite-again']) {
        const forged = await someone.browser.post(`/console/merchants/${merchant.id}/members/${step}`, {
          csrf: someone.csrf,
          email: member.email,
        })
        assert.equal(forged.status, 403, step)
      }
    const noToken = await admin.browser.post(`/console/merchants/${merchant.id}/members/reset-totp`, {
      email: member.email,
    })
    assert.equal(noToken.status, 403, 'an admin’s form without its CSRF token')
    assert.equal((await member.browser.get('/dashboard/sandbox')).status, 200, 'still signed in')
    const row = await app.db
      .selectFrom('members')
      .select(['totp_sealed', 'removed_at_us'])
      .where('email', '=', member.email)
      .executeTakeFirstOrThrow()
    assert.notEqual(row.totp_sealed, null)
    assert.equal(row.removed_at_us, null)
    const audit = await app.db
      .selectFrom('platform_audit_log')
      .select('id')
      .where('target', '=', `${merchant.id} ${member.email}`)
      .execute()
    assert.deepEqual(audit, [])
  })

  test('invite again for an owner who lost their password: never the only owner; with another owner, their account closes and the new invitation makes it again', async () => {
    const merchant = await app.createMerchant('Locked Out Shop')
    const member = await signedInMember(app, { role: 'owner', merchantId: merchant.id })
    const inviteAgain = async () => {
      const confirm = await admin.browser.get(helpHref(merchant.id, 'invite-again', member.email))
      assert.equal(confirm.status, 200)
      return admin.browser.post(`/console/merchants/${merchant.id}/members/invite-again`, {
        csrf: csrfIn(confirm.text, `/console/merchants/${merchant.id}/members/invite-again`),
        email: member.email,
      })
    }
    const refused = await inviteAgain()
    assert.equal(refused.status, 422)
    assert.match(refused.text, /the merchant’s only owner/)
    assert.equal(
      (await member.browser.get('/dashboard/sandbox')).status,
      200,
      'the only owner is still signed in',
    )
    await signedInMember(app, { role: 'owner', merchantId: merchant.id })
    const issued = await inviteAgain()
    assert.equal(issued.status, 200, issued.text)
    const url = /data-invitation-url[^>]*>([^<]+)</.exec(issued.text)?.[1] ?? ''
    assert.equal((await member.browser.get('/dashboard/sandbox')).status, 303, 'their sessions ended')
    assert.equal((await passwordStep(member.email, member.password)).status, 401, 'the old account is closed')
    const visitor = new DashboardBrowser(app)
    const path = new URL(url).pathname
    const form = await visitor.get(path)
    const accepted = await visitor.post(path, {
      csrf: csrfIn(form.text),
      name: 'Owner Again',
      password: 'another horse battery staple',
    })
    assert.equal(accepted.status, 303, accepted.text)
    const again = await app.context.store.members.findActiveMemberByEmail(member.email)
    assert.equal(again?.role, 'owner', 'the same role')
  })
})
