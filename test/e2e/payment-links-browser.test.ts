import assert from 'node:assert/strict'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { after, before, test } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import type { IssuedMerchant } from '../../src/app/merchants.ts'
import { startMtnMomoSimulator } from '../../src/simulators/mtn-momo/mtn-momo-simulator.ts'
import type { RunningSimulator } from '../../src/simulators/simulator.ts'
import type { ApiClient } from '../support/app.ts'
import { chromiumMissing, launchChromium } from '../support/browser.ts'
import { controlSimulator, type LiveApp, operatorReferenceOf, startLiveApp } from '../support/live.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * CONTRACT.md, Payment links, in Chromium: a customer pays on /pay/{token} with no script, in
 * English and in French, and every page passes axe-core. One Sika serves sandbox and live (an MTN
 * MoMo simulator connected for CI), as a deployment does.
 */

const axeSource = readFileSync('node_modules/axe-core/axe.min.js', 'utf8')
const languages = ['en', 'fr'] as const
type Language = (typeof languages)[number]
let sequence = 0
const reference = (name: string) => `${name}-${process.pid}-${sequence++}`

/** The merchant's own site: where succeededUrl sends the customer back. */
async function startMerchantSite() {
  const server: Server = createServer((request, response) => {
    response.setHeader('content-type', 'text/html')
    response.end(
      `<!doctype html><title>Merchant</title><h1>Back at the merchant: ${request.url?.split('?')[0]}</h1>`,
    )
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  if (!address || typeof address === 'string') throw new Error('no address')
  return {
    origin: `http://127.0.0.1:${address.port}`,
    close: () => {
      server.closeAllConnections()
      server.close()
    },
  }
}

describeEachStore('payment links in a real browser', (store) => {
  let running: LiveApp
  let simulator: RunningSimulator
  let site: Awaited<ReturnType<typeof startMerchantSite>>
  let browser: Browser
  let merchant: IssuedMerchant
  let sandbox: ApiClient
  let live: ApiClient
  const contexts: BrowserContext[] = []

  before(async () => {
    if (chromiumMissing) return
    running = await startLiveApp(store(), async () => {
      simulator = await startMtnMomoSimulator({ settleDelayMs: 100 })
      return [{ simulator, channel: 'mtn-momo', countries: ['CI'] }]
    })
    merchant = await running.app.createMerchant('Boutique Awa')
    sandbox = running.app.client(merchant.sandbox)
    live = running.app.client(merchant.live)
    site = await startMerchantSite()
    browser = await launchChromium()
  })
  after(async () => {
    for (const context of contexts) await context.close().catch(() => {})
    await browser?.close()
    site?.close()
    await running?.close()
  })

  /** A customer's phone: a fresh profile in their language; a dialog or a script fails the test. */
  async function phone(lang: Language): Promise<Page> {
    const context = await browser.newContext({
      viewport: { width: 360, height: 740 },
      locale: lang === 'fr' ? 'fr-FR' : 'en-US',
      isMobile: true,
      // axe-core is injected as a script, which the pages' policy refuses; the policy itself is checked on the answers.
      bypassCSP: true,
    })
    contexts.push(context)
    const page = await context.newPage()
    page.on('dialog', (dialog) => {
      void dialog.dismiss()
      assert.fail(`a dialog opened: ${dialog.message()}`)
    })
    page.on('pageerror', (error) => assert.fail(`a script ran: ${error.message}`))
    return page
  }

  async function createLink(client: ApiClient, body: Record<string, unknown>) {
    const response = await client.post('/api/v1/payment-link', {
      merchantReference: reference('link'),
      description: 'Robe wax, taille M',
      country: 'CI',
      ...body,
    })
    assert.equal(response.status, 200, response.text)
    return response.body.data.paymentLink as { token: string; url: string; merchantReference: string }
  }

  const payments = async (client: ApiClient, token: string) =>
    (await client.get('/api/v1/collect', { paymentLink: token })).body.data.collects as {
      token: string
      status: string
      merchantReference: string
      paymentLink: string
    }[]

  const text = async (page: Page) => (await page.textContent('body')) ?? ''

  /** Waits (20 ms at a time, at most `timeoutMs`) until `condition` holds. */
  async function until(condition: () => boolean, timeoutMs = 5_000) {
    const deadline = Date.now() + timeoutMs
    while (!condition()) {
      assert.ok(Date.now() < deadline, 'waited too long')
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }

  /** axe-core on the page as it is: a line per page; serious and critical violations fail the test, and with `anyImpact` every violation does. */
  async function axeCheck(page: Page, name: string, lang: Language, options: { anyImpact?: boolean } = {}) {
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
    const count = (impact: string) => violations.filter((violation) => violation.impact === impact).length
    const ids = violations.map((violation) => `${violation.id}(${violation.impact})`).join(' ')
    process.stdout.write(
      `axe ${store().name} ${lang} ${name}: critical ${count('critical')}, serious ${count('serious')}, moderate ${count('moderate')}, minor ${count('minor')}${ids ? ` - ${ids}` : ''}\n`,
    )
    const failing = options.anyImpact
      ? violations
      : violations.filter((violation) => ['serious', 'critical'].includes(violation.impact))
    assert.deepEqual(
      failing.map((violation) => violation.id),
      [],
      `${lang} ${name}: axe-core's ${options.anyImpact ? '' : 'serious or critical '}violations: ${JSON.stringify(failing)}`,
    )
  }

  async function fillAndPay(page: Page, fields: { channel: string; phoneNumber: string; amount?: string }) {
    if (fields.amount !== undefined) await page.fill('input[name=amount]', fields.amount)
    await page.check(`input[name=channel][value=${fields.channel}]`)
    await page.fill('input[name=phoneNumber]', fields.phoneNumber)
    const [response] = await Promise.all([
      page.waitForResponse((answer) => answer.request().method() === 'POST'),
      page.waitForEvent('load'),
      page.click('form button[type=submit]'),
    ])
    return response.status()
  }

  for (const lang of languages) {
    const words =
      lang === 'en'
        ? {
            pay: 'Pay 15,000 XOF',
            paid: 'Payment received',
            range: 'between 1,000 XOF and 5,000 XOF',
            busy: 'already under way',
            done: 'already been paid',
            closed: 'closed this payment link',
            expired: 'has expired',
            approve: 'Approve on your phone',
          }
        : {
            pay: 'Payer 15 000 XOF',
            paid: 'Paiement reçu',
            range: 'compris entre 1 000 XOF et 5 000 XOF',
            busy: 'déjà en cours',
            done: 'déjà été payé',
            closed: 'fermé ce lien de paiement',
            expired: 'a expiré',
            approve: 'Validez sur votre téléphone',
          }
    const normalise = (shown: string) => shown.replace(/[\u00a0\u202f]/g, ' ')

    test(`${lang}: a customer pays a fixed link in sandbox, through the checkout page, and is sent back to the merchant`, {
      skip: chromiumMissing,
    }, async () => {
      const link = await createLink(sandbox, { amount: 15000, succeededUrl: `${site.origin}/merci` })
      const page = await phone(lang)
      const opened = await page.goto(link.url)
      const headers = opened?.headers() ?? {}
      assert.match(
        headers['content-security-policy'] ?? '',
        /default-src 'none'; style-src 'self';.*frame-ancestors 'none'/,
      )
      assert.equal(headers['referrer-policy'], 'same-origin')
      assert.equal(headers['x-content-type-options'], 'nosniff')
      assert.equal(headers['content-type'], 'text/html; charset=utf-8')
      assert.equal(await page.getAttribute('html', 'lang'), lang)
      const shown = normalise(await text(page))
      for (const expected of ['Boutique Awa', 'Robe wax, taille M', words.pay])
        assert.ok(shown.includes(expected), `${expected} in ${shown}`)
      assert.equal(await page.locator('script').count(), 0, 'no script on the page')
      await axeCheck(page, 'link form', lang)
      // 906: the sandbox's checkout page asks the customer, as an operator's page would.
      await fillAndPay(page, { channel: 'orange-money', phoneNumber: '07 00 00 09 06' })
      await page.waitForURL('**/checkout/**')
      // Paid on the checkout page: the browser goes on to the link's succeededUrl.
      await Promise.all([
        page.waitForURL(`${site.origin}/merci?**`),
        page.getByRole('button', { name: /^Pay/ }).click(),
      ])
      const back = new URL(page.url())
      assert.equal(back.searchParams.get('status'), 'succeeded')
      assert.equal(back.searchParams.get('merchantReference'), `${link.merchantReference}-1`)
      const [collect] = await payments(sandbox, link.token)
      assert.equal(collect?.status, 'succeeded')
      assert.equal(collect?.token, back.searchParams.get('token'))
      assert.equal(collect?.paymentLink, link.token)
      const read = await sandbox.get(`/api/v1/payment-link/${link.token}`)
      assert.equal(read.body.data.paymentLink.status, 'completed')
      assert.equal(read.body.data.paymentLink.collectedAmount, 15000)
    })

    test(`${lang}: an open-amount link refuses an amount outside its range and creates nothing, then takes one within it`, {
      skip: chromiumMissing,
    }, async () => {
      const link = await createLink(sandbox, { amountRange: { min: 1000, max: 5000 }, reusable: true })
      const page = await phone(lang)
      await page.goto(link.url)
      await axeCheck(page, 'open-amount form', lang)
      assert.equal(
        await fillAndPay(page, { channel: 'orange-money', phoneNumber: '0700000123', amount: '6000' }),
        422,
      )
      assert.ok(normalise(await text(page)).includes(words.range), normalise(await text(page)))
      assert.equal(await page.getAttribute('input[name=amount]', 'aria-invalid'), 'true')
      await axeCheck(page, 'amount refused', lang)
      assert.equal((await payments(sandbox, link.token)).length, 0, 'nothing was created')
      await fillAndPay(page, { channel: 'orange-money', phoneNumber: '0700000123', amount: '2500' })
      assert.ok(normalise(await text(page)).includes(words.paid))
      await axeCheck(page, 'paid', lang)
      const made = await payments(sandbox, link.token)
      assert.deepEqual(
        made.map((payment) => payment.status),
        ['succeeded'],
      )
    })

    test(`${lang}: a single-use link refuses a second payment while the first is pending, and shows it paid once it is`, {
      skip: chromiumMissing,
    }, async () => {
      const link = await createLink(sandbox, { amount: 15000 })
      const first = await phone(lang)
      const second = await phone(lang)
      await first.goto(link.url)
      await second.goto(link.url)
      await fillAndPay(first, { channel: 'orange-money', phoneNumber: '0700000906' })
      await first.waitForURL('**/checkout/**')
      assert.equal(await fillAndPay(second, { channel: 'wave', phoneNumber: '0700000123' }), 409)
      assert.ok(normalise(await text(second)).includes(words.busy))
      await axeCheck(second, 'second payment refused', lang)
      assert.equal((await payments(sandbox, link.token)).length, 1, 'the refused payment created nothing')
      await Promise.all([
        first.waitForURL(`**/pay/${link.token}/done?**`),
        first.getByRole('button', { name: /^Pay/ }).click(),
      ])
      assert.ok(normalise(await text(first)).includes(words.paid))
      await second.goto(link.url)
      assert.ok(normalise(await text(second)).includes(words.done))
      assert.equal(await second.locator('form').count(), 0)
      await axeCheck(second, 'completed link', lang)
      assert.deepEqual(
        (await payments(sandbox, link.token)).map((payment) => payment.status),
        ['succeeded'],
      )
    })

    test(`${lang}: a closed link and an expired link show their page and create nothing`, {
      skip: chromiumMissing,
    }, async () => {
      const closed = await createLink(sandbox, { amount: 2000 })
      assert.equal((await sandbox.post(`/api/v1/payment-link/${closed.token}/close`)).status, 200)
      const expiring = await createLink(sandbox, {
        amount: 2000,
        expiresAt: new Date(Date.now() + 1500).toISOString(),
      })
      const page = await phone(lang)
      // Opened while it still takes payments; sent once it has expired.
      await page.goto(expiring.url)
      await page.check('input[name=channel][value=orange-money]')
      await page.fill('input[name=phoneNumber]', '0700000123')
      await new Promise((resolve) => setTimeout(resolve, 1600))
      const [answer] = await Promise.all([
        page.waitForResponse((response) => response.request().method() === 'POST'),
        page.click('form button[type=submit]'),
      ])
      assert.equal(answer.status(), 422)
      assert.ok(normalise(await text(page)).includes(words.expired))
      await axeCheck(page, 'expired link', lang)
      await page.goto(closed.url)
      assert.ok(normalise(await text(page)).includes(words.closed))
      assert.equal(await page.locator('form').count(), 0)
      await axeCheck(page, 'closed link', lang)
      for (const link of [closed, expiring]) assert.equal((await payments(sandbox, link.token)).length, 0)
    })
  }

  test('a live link through the MTN MoMo simulator: approve on the phone, the page follows by itself and ends paid', {
    skip: chromiumMissing,
  }, async () => {
    for (const lang of languages) {
      const link = await createLink(live, { amount: 15000, channels: ['mtn-momo'] })
      const page = await phone(lang)
      await page.goto(link.url)
      await axeCheck(page, 'live link form', lang)
      // DevTools (so Playwright) runs no script in a document while a navigation it started is
      // pending, which the page's own refresh always is (held by the server): while the page is
      // inspected, that refresh is cancelled (the document stays). A customer reads and clicks it
      // all along: below, a real click on "stop updating" while the refresh is held.
      const selfRefresh = /[?&]wait=1(&|$)/
      await page.route(selfRefresh, (route) => route.abort('aborted'))
      // 104: the simulator leaves the request pending until its control path settles it.
      await fillAndPay(page, { channel: 'mtn-momo', phoneNumber: '0500000104' })
      const waiting = (await text(page)).replace(/[\u00a0\u202f]/g, ' ')
      assert.ok(
        waiting.includes(lang === 'en' ? 'Approve on your phone' : 'Validez sur votre téléphone'),
        waiting,
      )
      // No delayed refresh (axe-core's meta-refresh rule, WCAG 2.2.1): the page asks for itself again
      // at once with wait=1, and the server holds that answer until the payment changes or 5 s pass.
      const refresh = (await page.getAttribute('meta[http-equiv=refresh]', 'content')) ?? ''
      assert.match(refresh, new RegExp(`^0; url=/pay/${link.token}/done\\?token=[^&]+&lang=${lang}&wait=1$`))
      await axeCheck(page, 'approve on your phone', lang, { anyImpact: true })
      // Where a finger lands on "stop updating" (its first line: the French one wraps).
      const stop = await page.evaluate(() => {
        const box = document.querySelector('a[href*="follow=off"]')!.getClientRects()[0]!
        return { x: box.x + box.width / 2, y: box.y + box.height / 2 }
      })
      await page.click('a[href*="follow=off"]')
      assert.equal(await page.locator('meta[http-equiv=refresh]').count(), 0)
      await axeCheck(page, 'approve, not updating by itself', lang, { anyImpact: true })
      await page.unroute(selfRefresh)
      const held: string[] = []
      page.on('request', (request) => {
        if (selfRefresh.test(request.url())) held.push(request.url())
      })
      await page.click('a[href*="follow=on"]')
      await until(() => held.length > 0)
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      const clickedAt = Date.now()
      await page.mouse.click(stop.x, stop.y)
      await page.waitForURL(/follow=off/, { timeout: 3_000 })
      assert.ok(Date.now() - clickedAt < 2_000, 'stopped at once, not at the end of the held refresh')
      assert.equal(await page.locator('meta[http-equiv=refresh]').count(), 0)
      held.length = 0
      await page.click('a[href*="follow=on"]')
      await until(() => held.length > 0)
      const [collect] = await payments(live, link.token)
      assert.equal(collect?.status, 'pending')
      const operatorReference = await operatorReferenceOf(running.app, collect!.token)
      await controlSimulator(simulator, `transactions/${operatorReference}/status`, { status: 'SUCCESSFUL' })
      await page.waitForSelector('h1.paid', { timeout: 15_000 })
      assert.match(page.url(), selfRefresh, "the paid page is the answer to the page's own held refresh")
      await axeCheck(page, 'live paid', lang)
      const [settled] = await payments(live, link.token)
      assert.equal(settled?.status, 'succeeded')
    }
  })
})
