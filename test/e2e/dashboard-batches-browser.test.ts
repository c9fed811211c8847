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
import { nextTotpCode, type SignedInMember, signedInMember } from '../support/dashboard.ts'
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

  /** Good sandbox rows (each succeeds at once once sent), numbered under the prefix. */
  function goodLines(prefix: string, count: number): string[] {
    return Array.from(
      { length: count },
      (_, index) =>
        `1000,orange-money,CI,+22507000001${String(index).padStart(2, '0')},Awa Diop,${prefix}-${store().name}-${index}`,
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
    await Promise.all([page.waitForEvent('load'), page.click('main form[enctype] button[type=submit]')])
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

    test(`a dashboard upload waits; the creator cannot approve it; a second member approves it with a code (${lang})`, {
      skip: chromiumMissing,
    }, async () => {
      const { page } = await memberInBrowser('finance', lang)
      await uploadFile(page, csvFile(`approve-${lang}`, goodLines(`approve-${lang}`, 2)))
      await axeCheck(page, 'preview, all good', lang)
      await Promise.all([
        page.waitForURL('**/payout-batches/*?done=submitted'),
        page.click('main form[enctype] button[type=submit]'),
      ])
      const batchUrl = page.url().split('?')[0] ?? ''
      assert.equal(
        await page.locator('.status-batch-awaiting_approval').count(),
        1,
        'awaiting approval, in its record',
      )
      assert.equal(
        await page.locator('form[action$="/approve"]').count(),
        0,
        'the creator is offered no approval',
      )
      assert.equal(await page.locator('#own-batch').count(), 1, 'the page says why')
      await axeCheck(page, 'batch awaiting approval (its creator)', lang)

      const second = await memberInBrowser('admin', lang)
      await second.page.goto(batchUrl)
      await axeCheck(second.page, 'batch awaiting approval (an approver)', lang)
      await second.page.fill(
        'form[action$="/approve"] input[name=code]',
        await nextTotpCode(second.member.totpSecret),
      )
      await Promise.all([
        second.page.waitForURL('**?done=approved'),
        second.page.click('form[action$="/approve"] button[type=submit]'),
      ])
      assert.equal(await second.page.locator('.status-batch-awaiting_approval').count(), 0)
      assert.equal(await second.page.locator('form[action$="/approve"]').count(), 0)
      await axeCheck(second.page, 'batch approved', lang)
      assert.deepEqual(axeFailures, [])
    })

    test(`a reject releases every hold (${lang})`, { skip: chromiumMissing }, async () => {
      const { page } = await memberInBrowser('owner', lang)
      const balance = async () =>
        (await app.context.store.ledger.balances(merchant.id, 'sandbox')).find(
          (entry) => entry.currency === 'XOF',
        )
      const before = await balance()
      await uploadFile(page, csvFile(`reject-${lang}`, goodLines(`reject-${lang}`, 3)))
      await Promise.all([
        page.waitForURL('**/payout-batches/*?done=submitted'),
        page.click('main form[enctype] button[type=submit]'),
      ])
      assert.ok((await balance())!.heldMinor > before!.heldMinor, 'held while it waits')
      await Promise.all([
        page.waitForURL('**?done=rejected'),
        page.click('form[action$="/reject"] button[type=submit]'),
      ])
      assert.equal(await page.locator('.status-batch-rejected').count(), 1)
      assert.deepEqual(await balance(), before, 'every hold released')
      await axeCheck(page, 'batch rejected', lang)
      await page.goto(`${app.url}/dashboard/sandbox/payout-batches`)
      await axeCheck(page, 'batch list', lang)
      assert.deepEqual(axeFailures, [])
    })

    test(`a link is created with its QR code, then closed (${lang})`, { skip: chromiumMissing }, async () => {
      const { page } = await memberInBrowser('finance', lang)
      await page.goto(`${app.url}/dashboard/sandbox/payment-links`)
      await axeCheck(page, 'payment links', lang)
      await page.selectOption('select[name=country]', 'SN')
      await Promise.all([page.waitForURL(/country=SN/), page.click('main form[method=get] button')])
      assert.equal(await page.locator('input[name="channel-mtn-momo"]').count(), 0, 'only Senegal’s channels')
      await axeCheck(page, 'payment links, Senegal', lang)
      await page.fill('input[name=description]', `T-shirt ${lang}`)
      await page.fill('input[name=amount]', '7500')
      await page.check('input[name="channel-orange-money"]')
      await Promise.all([
        page.waitForURL('**/payment-links/*?done=created'),
        page.click('main form[method=post] button[type=submit]'),
      ])
      const qr = page.locator('img.qr')
      assert.match((await qr.getAttribute('src')) ?? '', /^data:image\/svg\+xml;base64,/)
      assert.ok(
        (await qr.evaluate((image: HTMLImageElement) => image.naturalWidth)) > 0,
        'the QR code is drawn (CSP allows it)',
      )
      assert.match((await page.textContent('main')) ?? '', /\/pay\//)
      await axeCheck(page, 'payment link', lang)
      await Promise.all([
        page.waitForURL('**?done=closed'),
        page.click('form[action$="/close"] button[type=submit]'),
      ])
      assert.equal(await page.locator('.status-link-closed').count(), 1)
      assert.equal(await page.locator('form[action$="/close"]').count(), 0)
      await axeCheck(page, 'payment link closed', lang)
      assert.deepEqual(axeFailures, [])
    })

    test(`the settings page and a cash-out's cancel pass axe (${lang})`, {
      skip: chromiumMissing,
    }, async () => {
      const { page } = await memberInBrowser('owner', lang)
      await page.goto(`${app.url}/dashboard/settings`)
      await axeCheck(page, 'settings', lang)
      await page.check('input[name=requireBatchApproval]')
      await Promise.all([page.waitForEvent('load'), page.click('main form button[type=submit]')])
      assert.equal(await page.locator('input[name=requireBatchApproval]').isChecked(), true)
      await axeCheck(page, 'settings saved', lang)
      await page.uncheck('input[name=requireBatchApproval]')
      await Promise.all([page.waitForEvent('load'), page.click('main form button[type=submit]')])
      await uploadFile(page, csvFile(`cancel-${lang}`, goodLines(`cancel-${lang}`, 1)))
      await Promise.all([
        page.waitForURL('**/payout-batches/*?done=submitted'),
        page.click('main form[enctype] button[type=submit]'),
      ])
      await Promise.all([page.waitForEvent('load'), page.click('#batch-items tbody a')])
      await axeCheck(page, 'operation with cancel', lang)
      await Promise.all([
        page.waitForURL('**?canceled=1'),
        page.click('form[action$="/cancel"] button[type=submit]'),
      ])
      assert.equal(
        await page.locator('#record .status-canceled, [aria-labelledby=record] .status-canceled').count(),
        1,
      )
      await axeCheck(page, 'operation canceled', lang)
      assert.deepEqual(axeFailures, [])
    })
  }
})
