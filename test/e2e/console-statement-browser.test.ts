import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, test } from 'node:test'
import type { Browser, BrowserContext } from 'playwright-core'
import type { IssuedMerchant } from '../../src/app/merchants.ts'
import { startApp, type TestApp } from '../support/app.ts'
import { chromiumMissing, launchChromium, seriousAxeViolations } from '../support/browser.ts'
import { openConsolePage, type SignedInPlatformMember, signedInPlatformMember } from '../support/console.ts'
import { freePort } from '../support/process.ts'
import { describeEachStore } from '../support/stores.ts'

const header = 'reference,date,operation,type,status,amount,currency,balanceAfter,merchantReference,token'

/**
 * CONTRACT.md, Platform console (finance exports statements), in Chromium: finance downloads a
 * merchant's CSV statement from its page (mode, currency, dates), the same CSV the API and the
 * dashboard export, in the same export slots; an analyst or support may not; the platform audit
 * log records it. The page is axe-core clean in English and French.
 */
describeEachStore('console: a merchant’s statement in a real browser', (store) => {
  let app: TestApp
  let browser: Browser
  let finance: SignedInPlatformMember
  let merchant: IssuedMerchant
  const contexts: BrowserContext[] = []

  const collect = (channel: string, country: string, phoneNumber: string, merchantReference: string) => ({
    amount: 1500,
    channel,
    country,
    customer: { phoneNumber },
    merchantReference,
    callbackUrl: 'https://merchant.example/callback',
  })

  before(async () => {
    const port = await freePort()
    app = await startApp(store(), {
      environment: { PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` },
    })
    merchant = await app.createMerchant('Statement Shop')
    const api = app.client(merchant.sandbox)
    for (const body of [
      collect('orange-money', 'CI', '+2250700000123', 'st-xof-1'),
      collect('orange-money', 'CI', '+2250700000124', 'st-xof-2'),
      collect('mtn-momo', 'CM', '+237670000123', 'st-xaf-1'),
    ]) {
      const made = await api.post('/api/v1/collect', body)
      assert.equal(made.status, 200, made.text)
    }
    finance = await signedInPlatformMember(app, { role: 'finance' })
    if (!chromiumMissing) browser = await launchChromium()
  })
  after(async () => {
    for (const context of contexts) await context.close().catch(() => {})
    await browser?.close()
    await app?.close()
  })

  const openAs = (member: SignedInPlatformMember, lang: 'en' | 'fr') =>
    openConsolePage(browser, app.url, member, lang, contexts)

  test('finance downloads the sandbox XOF statement with the page’s form, in both languages', {
    skip: chromiumMissing,
    timeout: 180_000,
  }, async () => {
    const failures: string[] = []
    for (const lang of ['en', 'fr'] as const) {
      const page = await openAs(finance, lang)
      assert.equal((await page.goto(`${app.url}/console/merchants/${merchant.id}`))?.status(), 200)
      failures.push(...(await seriousAxeViolations(page, `console statement ${store().name} ${lang}`)))
      await page.selectOption('form[action$="/statement.csv"] select[name=mode]', 'sandbox')
      await page.selectOption('form[action$="/statement.csv"] select[name=currency]', 'XOF')
      const today = new Date().toISOString().slice(0, 10)
      await page.fill('form[action$="/statement.csv"] input[name=from]', today)
      await page.fill('form[action$="/statement.csv"] input[name=to]', today)
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.click('form[action$="/statement.csv"] button'),
      ])
      assert.equal(download.suggestedFilename(), 'statement-sandbox.csv')
      const lines = readFileSync((await download.path()) ?? '', 'utf8')
        .trim()
        .split('\r\n')
      assert.equal(lines[0], header)
      const rows = lines.slice(1).map((line) => line.split(','))
      assert.ok(rows.length >= 2, lines.join(' | '))
      for (const row of rows) assert.equal(row[6], 'XOF', 'only the currency asked')
      const references = rows.map((row) => row[8])
      assert.ok(references.includes('st-xof-1') && references.includes('st-xof-2'), lines.join(' | '))
      assert.ok(!references.includes('st-xaf-1'))
      const received = rows.find((row) => row[8] === 'st-xof-1')
      assert.deepEqual([received?.[2], received?.[4]], ['collect', 'succeeded'])
    }
    assert.deepEqual(failures, [])
    const audited = await app.db
      .selectFrom('platform_audit_log')
      .selectAll()
      .where('action', '=', 'merchant.statement.exported')
      .where('target', '=', merchant.id)
      .execute()
    assert.equal(audited.length, 2)
    assert.equal(audited[0]?.actor_label, finance.email)
    assert.equal(JSON.parse(audited[0]?.after_json ?? '').currency, 'XOF')
  })

  test('every currency, a range with nothing, a wrong date, a busy merchant, and roles without export', async () => {
    const path = `/console/merchants/${merchant.id}/statement.csv`
    const all = await finance.browser.get(`${path}?mode=sandbox&currency=`)
    assert.equal(all.status, 200)
    assert.match(all.headers.get('content-type') ?? '', /^text\/csv/)
    assert.match(all.text, /,XAF,/)
    assert.match(all.text, /,XOF,/)
    const empty = await finance.browser.get(`${path}?mode=sandbox&from=2000-01-01&to=2000-01-02`)
    assert.equal(empty.text.trim(), header)
    const wrong = await finance.browser.get(`${path}?mode=sandbox&from=yesterday`)
    assert.equal(wrong.status, 400)
    assert.match(wrong.text, /Write each date as YYYY-MM-DD/)

    // The merchant's export slots are the API's and the dashboard's: with both taken, the console waits its turn too.
    const owner = { merchantId: merchant.id, mode: 'sandbox' as const }
    const taken = [app.context.statementSlots.claim(owner), app.context.statementSlots.claim(owner)]
    const busy = await finance.browser.get(`${path}?mode=sandbox`)
    assert.equal(busy.status, 429)
    assert.equal(busy.headers.get('retry-after'), '1')
    assert.match(busy.text, /Too many statements of this merchant/)
    for (const release of taken) release?.()
    assert.equal((await finance.browser.get(`${path}?mode=sandbox`)).status, 200)

    for (const role of ['analyst', 'support', 'risk'] as const) {
      const member = await signedInPlatformMember(app, { role })
      assert.equal((await member.browser.get(`${path}?mode=sandbox`)).status, 403, role)
      const page = await member.browser.get(`/console/merchants/${merchant.id}`)
      assert.doesNotMatch(page.text, /statement\.csv/, `${role} is offered no statement`)
    }
  })
})
