import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { startApp, type TestApp } from '../support/app.ts'
import { chromiumMissing, launchChromium, seriousAxeViolations } from '../support/browser.ts'
import { openConsolePage, type SignedInPlatformMember, signedInPlatformMember } from '../support/console.ts'
import { freePort } from '../support/process.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * The console's merchants and operations pages in Chromium: risk pauses and resumes a merchant's
 * payouts with the pages' own forms and the API follows; an analyst is offered no action; every
 * page is axe-core clean in English and French.
 */
describeEachStore('the console’s merchants and operations in a real browser', (store) => {
  let app: TestApp
  let browser: Browser
  const contexts: BrowserContext[] = []

  before(async () => {
    if (chromiumMissing) return
    const port = await freePort()
    app = await startApp(store(), {
      environment: { PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` },
    })
    browser = await launchChromium()
  })
  after(async () => {
    for (const context of contexts) await context.close().catch(() => {})
    await browser?.close()
    await app?.close()
  })

  /** A browser profile signed in as the member (its session cookie), in the language asked. */
  const openAs = (member: SignedInPlatformMember, lang: 'en' | 'fr') =>
    openConsolePage(browser, app.url, member, lang, contexts)

  const axeFailures: string[] = []
  async function axeCheck(page: Page, name: string, lang: string) {
    axeFailures.push(...(await seriousAxeViolations(page, `console ${store().name} ${lang} ${name}`)))
  }

  let references = 0
  const payout = (amount = 1000) => ({
    amount,
    channel: 'orange-money',
    country: 'CI',
    customer: { phoneNumber: '+2250700000123' },
    merchantReference: `browser-${++references}`,
    callbackUrl: 'http://127.0.0.1:9/callbacks',
  })

  test('risk pauses and resumes payouts with the page’s forms; every page is axe-core clean in both languages', {
    skip: chromiumMissing,
    timeout: 240_000,
  }, async () => {
    const merchant = await app.createMerchant('Browser Traders')
    const api = app.client(merchant.sandbox)
    const collected = await api.post('/api/v1/collect', payout())
    const token = collected.body.data.collect.token as string
    const risk = await signedInPlatformMember(app, { role: 'risk' })
    const analyst = await signedInPlatformMember(app, { role: 'analyst' })
    for (const lang of ['en', 'fr'] as const) {
      const page = await openAs(risk, lang)
      assert.equal((await page.goto(`${app.url}/console/merchants`))?.status(), 200)
      assert.equal(await page.getAttribute('html', 'lang'), lang)
      await axeCheck(page, 'merchants', lang)
      await page.fill('input[name=q]', 'browser traders')
      await Promise.all([page.waitForURL('**/console/merchants?**'), page.click('main form button')])
      await axeCheck(page, 'merchants found', lang)
      await Promise.all([
        page.waitForEvent('load'),
        page.click(`a[href="/console/merchants/${merchant.id}"]`),
      ])
      await axeCheck(page, 'merchant', lang)

      await page.fill('input[name=reason]', 'checking a pattern')
      await Promise.all([page.waitForEvent('load'), page.click(`form[action$="/pause"] button`)])
      assert.ok(await page.isVisible('main p.notice'), 'the page says the payouts are paused')
      await axeCheck(page, 'merchant paused', lang)
      const refused = await api.post('/api/v1/disbursement', payout())
      assert.equal(refused.status, 403, refused.text)
      assert.equal(refused.body.code, 'payouts_paused')
      assert.equal((await api.post('/api/v1/collect', payout())).status, 200, 'a collect still succeeds')
      await Promise.all([page.waitForEvent('load'), page.click(`form[action$="/resume"] button`)])
      assert.equal((await api.post('/api/v1/disbursement', payout())).status, 200)

      await page.fill('input[name=maxAmount]', 'not a number')
      await Promise.all([page.waitForEvent('load'), page.click(`form[action$="/limits"] button`)])
      assert.ok(await page.isVisible('main p.error'), 'the page says why the limits are refused')
      await axeCheck(page, 'limits refused', lang)

      await page.goto(`${app.url}/console/operations?mode=sandbox`)
      await axeCheck(page, 'operations', lang)
      await page.fill('input[name=q]', '07 00 00 01 23')
      await Promise.all([page.waitForURL('**/console/operations?**'), page.click('main form button')])
      assert.ok((await page.locator(`a[href="/console/operations/${token}"]`).count()) > 0)
      await axeCheck(page, 'operations found', lang)
      assert.equal((await page.goto(`${app.url}/console/operations/${token}`))?.status(), 200)
      assert.ok(((await page.textContent('main')) ?? '').includes('Browser Traders'))
      await axeCheck(page, 'operation', lang)

      const analystPage = await openAs(analyst, lang)
      await analystPage.goto(`${app.url}/console/merchants/${merchant.id}`)
      assert.equal(await analystPage.locator('main form[method=post]').count(), 0, 'no action for an analyst')
      await axeCheck(analystPage, 'merchant, read by an analyst', lang)
    }
    assert.deepEqual(axeFailures, [])
  })

  test('admin creates a merchant and sets its fee with the pages’ forms; each page is axe-core clean in both languages', {
    skip: chromiumMissing,
    timeout: 240_000,
  }, async () => {
    const admin = await signedInPlatformMember(app, { role: 'admin' })
    axeFailures.length = 0
    for (const lang of ['en', 'fr'] as const) {
      const page = await openAs(admin, lang)
      assert.equal((await page.goto(`${app.url}/console/merchants`))?.status(), 200)
      await axeCheck(page, 'merchants, with the creation form', lang)
      await page.fill('input[name=name]', `Browser Created ${lang}`)
      await page.fill('input[name=ownerEmail]', `owner-${lang}.${process.pid}@browser.example`)
      await Promise.all([
        page.waitForEvent('load'),
        page.click('form[action="/console/merchants"][method=post] button'),
      ])
      assert.match((await page.textContent('code[data-invitation-url]')) ?? '', /\/dashboard\/invitations\//)
      await axeCheck(page, 'merchant created', lang)
      await Promise.all([page.waitForEvent('load'), page.click('main a[href^="/console/merchants/"]')])
      await axeCheck(page, 'merchant, with the fee form', lang)
      await page.fill('input[name=percentage]', '250')
      await Promise.all([page.waitForEvent('load'), page.click('form[action$="/fees"] button')])
      assert.ok(await page.isVisible('main p.error'), 'the page says why the fee is refused')
      await axeCheck(page, 'fee refused', lang)
      await page.fill('input[name=percentage]', '1.5')
      await Promise.all([page.waitForEvent('load'), page.click('form[action$="/fees"] button')])
      assert.ok(await page.isVisible('main p.notice'), 'the page says the fee is set')
      assert.ok((await page.locator('table td', { hasText: '1.5 %' }).count()) > 0, 'the new row is listed')
    }
    assert.deepEqual(axeFailures, [])
  })
})
