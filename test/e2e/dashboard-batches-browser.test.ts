import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import type { IssuedMerchant } from '../../src/app/merchants.ts'
import type { Role } from '../../src/domain/roles.ts'
import { startApp, type TestApp } from '../support/app.ts'
import { chromiumMissing, launchChromium } from '../support/browser.ts'
import { type SignedInMember, signedInMember } from '../support/dashboard.ts'
import { freePort } from '../support/process.ts'
import { describeEachStore } from '../support/stores.ts'

const axeSource = readFileSync('node_modules/axe-core/axe.min.js', 'utf8')
const header = 'amount,channel,country,phoneNumber,fullName,merchantReference'
const files = mkdtempSync(join(tmpdir(), 'sika-batches-'))

describeEachStore('the payout batch and payment link pages in a real browser', (store) => {
  let app: TestApp
  let browser: Browser
  let merchant: IssuedMerchant
  const contexts: BrowserContext[] = []
  const axeFailures: string[] = []

  before(async () => {
    if (chromiumMissing) return
    const port = await freePort()
    app = await startApp(store(), {
      environment: { PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` },
    })
    merchant = await app.createMerchant('Boutique Awa')
    browser = await launchChromium()
  })
  after(async () => {
    for (const context of contexts) await context.close().catch(() => {})
    await browser?.close()
    await app?.close()
  })

  /** A member signed in over HTTP, whose session the browser then carries; a dialog or a script error fails the test. */
  async function memberInBrowser(
    role: Role,
    lang: 'en' | 'fr',
  ): Promise<{ page: Page; member: SignedInMember }> {
    const member = await signedInMember(app, { role, merchantId: merchant.id })
    // CSP bypassed only so that axe-core can be injected: the pages themselves run no script.
    const context = await browser.newContext({ locale: lang === 'fr' ? 'fr-FR' : 'en-US', bypassCSP: true })
    contexts.push(context)
    const url = `${app.url}/dashboard`
    await context.addCookies([
      ...[...member.browser.cookies].map(([name, value]) => ({ name, value, url })),
      { name: 'sika_lang', value: lang, url },
    ])
    const page = await context.newPage()
    page.on('dialog', (dialog) => {
      void dialog.dismiss()
      assert.fail(`a dialog opened: ${dialog.message()}`)
    })
    page.on('pageerror', (error) => assert.fail(`a script ran and failed: ${error.message}`))
    return { page, member }
  }

  /** axe-core on the page as it is: every violation, of any impact, is kept and fails the test. */
  async function axeCheck(page: Page, name: string, lang: string) {
    await page.addScriptTag({ content: axeSource })
    const violations = await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<any> } })
        .axe
      const result = await axe.run(document, { resultTypes: ['violations'] })
      return (result.violations as any[]).map((violation) => ({
        id: violation.id as string,
        impact: violation.impact as string,
        targets: (violation.nodes as any[]).slice(0, 3).map((node) => node.target.join(' ')),
      }))
    })
    process.stdout.write(
      `axe ${store().name} ${lang} ${name} (${new URL(page.url()).pathname}): ${violations.length} violations${violations.map((v) => ` ${v.id}(${v.impact})`).join('')}\n`,
    )
    for (const violation of violations)
      axeFailures.push(
        `${lang} ${name}: ${violation.id} (${violation.impact}) at ${violation.targets.join(', ')}`,
      )
  }

  function csvFile(name: string, lines: string[]): string {
    const path = join(files, `${store().name}-${name}.csv`)
    writeFileSync(path, [header, ...lines].join('\n'))
    return path
  }

  async function uploadFile(page: Page, path: string) {
    await page.goto(`${app.url}/dashboard/sandbox/payout-batches`)
    await page.setInputFiles('input[name=file]', path)
    await Promise.all([page.waitForLoadState(), page.click('main form[enctype] button[type=submit]')])
  }

  for (const lang of ['en', 'fr'] as const) {
    test(`a preview shows a bad row's error (${lang}), and the pages pass axe`, {
      skip: chromiumMissing,
    }, async () => {
      const { page } = await memberInBrowser('finance', lang)
      await page.goto(`${app.url}/dashboard/sandbox/payout-batches`)
      await axeCheck(page, 'payout batches', lang)
      const path = csvFile(`bad-${lang}`, [
        `1000,orange-money,CI,+2250700000001,Awa Diop,bad-${lang}-1`,
        `abc,orange-money,CI,+2250700000002,Kone,bad-${lang}-2`,
      ])
      await uploadFile(page, path)
      const faulty = page.locator('#batch-rows tr.faulty')
      assert.equal(await faulty.count(), 1)
      assert.equal(await faulty.locator('th').textContent(), '3', 'the bad row is line 3 of the file')
      assert.match(
        (await faulty.locator('.row-errors').textContent()) ?? '',
        lang === 'fr' ? /amount: Écrivez le montant/ : /amount: Write the amount/,
      )
      assert.equal(await page.locator('input[name=csv]').count(), 0, 'no submit form')
      await axeCheck(page, 'preview with an error', lang)
      assert.deepEqual(axeFailures, [])
    })
  }
})
