import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { startMtnMomoSimulator } from '../../src/simulators/mtn-momo/mtn-momo-simulator.ts'
import type { RunningSimulator } from '../../src/simulators/simulator.ts'
import type { TestApp } from '../support/app.ts'
import { chromiumMissing, launchChromium, seriousAxeViolations } from '../support/browser.ts'
import { openConsolePage, type SignedInPlatformMember, signedInPlatformMember } from '../support/console.ts'
import { controlSimulator, type LiveApp, startLiveApp } from '../support/live.ts'
import { describeEachStore } from '../support/stores.ts'

const connection = 'mtn-momo-ci'
const today = () => new Date().toISOString().slice(0, 10)

/**
 * The console's upload of a portal export in Chromium, a plain form with no script: a finance
 * member chooses the MTN MoMo simulator's export and sends it, then a file that cannot be read;
 * the page says what was imported, or why nothing was, in English and in French, and passes
 * axe-core each time.
 */
describeEachStore('console: a portal export uploaded in a real browser', (store) => {
  let mtn: RunningSimulator
  let running: LiveApp
  let app: TestApp
  let browser: Browser
  let finance: SignedInPlatformMember
  const contexts: BrowserContext[] = []

  before(async () => {
    if (chromiumMissing) return
    running = await startLiveApp(store(), async () => {
      mtn = await startMtnMomoSimulator({ settleDelayMs: 50, currencies: ['XOF'] })
      return [{ simulator: mtn, channel: 'mtn-momo', countries: ['CI'] }]
    })
    app = running.app
    finance = await signedInPlatformMember(app, { role: 'finance' })
    browser = await launchChromium()
  })
  after(async () => {
    for (const context of contexts) await context.close().catch(() => {})
    await browser?.close()
    await running?.close()
  })

  const openAs = (member: SignedInPlatformMember, lang: 'en' | 'fr') =>
    openConsolePage(browser, app.url, member, lang, contexts)

  async function send(page: Page, name: string, text: string) {
    await page.selectOption(
      'form[action="/console/reconciliation/import"] select[name=connection]',
      connection,
    )
    await page.setInputFiles('input[name=file]', { name, mimeType: 'text/csv', buffer: Buffer.from(text) })
    await Promise.all([
      page.waitForEvent('load'),
      page.click('form[action="/console/reconciliation/import"] button[type=submit]'),
    ])
  }

  test('a finance member uploads an export, then a file that cannot be read, in English and French', {
    skip: chromiumMissing,
    timeout: 180_000,
  }, async () => {
    const failures: string[] = []
    for (const lang of ['en', 'fr'] as const) {
      await controlSimulator(mtn, 'books/breaks', {
        kind: 'unknown-line',
        account: 'collection',
        amount: '900',
      })
      const exported = await (
        await fetch(`${mtn.url}/_simulator/books/export?account=collection&date=${today()}`)
      ).text()
      const page = await openAs(finance, lang)
      await page.goto(`${app.url}/console/reconciliation`)
      assert.equal(await page.getAttribute('html', 'lang'), lang)
      failures.push(...(await seriousAxeViolations(page, `import ${store().name} ${lang} form`)))

      await send(page, 'momo-export.csv', exported)
      const notice = (await page.textContent('p.notice[role=status]')) ?? ''
      assert.match(
        notice,
        lang === 'en' ? /line\(s\) imported for mtn-momo-ci/ : /importée\(s\) pour mtn-momo-ci/,
      )
      failures.push(...(await seriousAxeViolations(page, `import ${store().name} ${lang} imported`)))

      const files = (await app.context.store.reconciliation.files(connection, today(), 'import')).length
      await send(page, 'contacts.csv', 'Name,Phone\nAwa,0700000000\n')
      const error = (await page.textContent('p.error[role=alert]')) ?? ''
      assert.match(error, lang === 'en' ? /Nothing was imported/ : /Rien n’a été importé/)
      failures.push(...(await seriousAxeViolations(page, `import ${store().name} ${lang} refused`)))
      assert.equal(
        (await app.context.store.reconciliation.files(connection, today(), 'import')).length,
        files,
      )
    }
    assert.deepEqual(failures, [])
  })
})
