import assert from 'node:assert/strict'
import { mkdirSync, readFileSync } from 'node:fs'
import { after, before, test } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { inviteMember } from '../../src/app/dashboard/invitations.ts'
import { isRefusal } from '../../src/app/dashboard/refusals.ts'
import type { IssuedMerchant } from '../../src/app/merchants.ts'
import { systemClock } from '../../src/domain/clock.ts'
import type { Role } from '../../src/domain/roles.ts'
import { startApp, type TestApp } from '../support/app.ts'
import { chromiumMissing, launchChromium } from '../support/browser.ts'
import { signedInMember, totpCode } from '../support/dashboard.ts'
import { freePort } from '../support/process.ts'
import { describeEachStore } from '../support/stores.ts'

const axeSource = readFileSync('node_modules/axe-core/axe.min.js', 'utf8')
/** README images are written only when asked: a normal run leaves the tree clean. */
const screenshots = process.env.DASHBOARD_SCREENSHOTS === '1' ? 'docs/images' : undefined
const password = 'correct horse battery staple'
const hostileName = '<img src=x onerror=alert(1)>'
const hostileMetadata = '<script>alert(1)</script>'
const hostileReference = '"><svg onload=alert(2)>'

/** The real time, moved forward by the test: a session's idle end without waiting 30 minutes. */
function movableClock() {
  let offsetMs = 0
  return {
    nowUs: () => systemClock.nowUs() + offsetMs * 1000,
    nowMs: () => Date.now() + offsetMs,
    advance(milliseconds: number) {
      offsetMs += milliseconds
    },
  }
}

/** A member as the browser test knows them: what they typed, and what the pages showed them once. */
interface BrowserMember {
  email: string
  secret: string
  recoveryCodes: string[]
}

describeEachStore('the dashboard in a real browser', (store) => {
  let app: TestApp
  let browser: Browser
  let merchant: IssuedMerchant
  const clock = movableClock()
  let members = 0
  const contexts: BrowserContext[] = []

  before(async () => {
    if (chromiumMissing) return
    const port = await freePort()
    app = await startApp(store(), {
      clock,
      liveOperators: true,
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

  /** A fresh browser profile (no cookies); a dialog or a script error fails the test. */
  async function openPage(options: { bypassCSP?: boolean; lang?: 'en' | 'fr' } = {}): Promise<Page> {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      bypassCSP: options.bypassCSP ?? false,
      locale: options.lang === 'fr' ? 'fr-FR' : 'en-US',
    })
    contexts.push(context)
    const page = await context.newPage()
    page.on('dialog', (dialog) => {
      void dialog.dismiss()
      assert.fail(`a dialog opened: ${dialog.message()}`)
    })
    page.on('pageerror', (error) => assert.fail(`a script ran and failed: ${error.message}`))
    if (options.lang)
      await context.addCookies([{ name: 'sika_lang', value: options.lang, url: `${app.url}/dashboard` }])
    return page
  }

  const code = (secret: string, steps = 0) => totpCode(secret, clock.nowMs() + steps * 30_000)

  async function invite(role: Role): Promise<{ email: string; path: string }> {
    members += 1
    const email = `browser${members}.${store().name}@merchant.example`
    const invitation = await inviteMember(app.context, { kind: 'cli' }, merchant.id, { email, role })
    if (isRefusal(invitation)) throw new Error(`invitation refused: ${invitation.refused}`)
    // The URL is on PUBLIC_BASE_URL, which is this app's origin.
    return { email, path: new URL(invitation.invitationUrl).pathname }
  }

  /** Invited as the CLI invites; the rest typed and read in the browser, up to the recovery codes. */
  async function acceptInBrowser(
    page: Page,
    role: Role,
    visit: (name: string) => Promise<void> = async () => {},
  ): Promise<BrowserMember> {
    const { email, path } = await invite(role)
    await page.goto(`${app.url}${path}`)
    await visit('invitation')
    await page.fill('input[name=name]', 'Awa Diop')
    await page.fill('input[name=password]', password)
    await Promise.all([page.waitForURL('**/dashboard/enrol'), page.click('button[type=submit]')])
    await visit('enrolment')
    const secret = (await page.textContent('[data-setup-key]'))?.trim() ?? ''
    assert.match(secret, /^[A-Z2-7]{16,}$/, 'the setup key is on the page')
    await page.fill('input[name=code]', await code(secret))
    await Promise.all([page.waitForEvent('load'), page.click('main button[type=submit]')])
    const recoveryCodes = await page.locator('[data-recovery-codes] li').allTextContents()
    assert.equal(recoveryCodes.length, 10)
    await visit('recovery codes')
    return { email, secret, recoveryCodes }
  }

  async function signOut(page: Page) {
    await Promise.all([page.waitForURL('**/dashboard/login?out'), page.click('header form button')])
  }

  /** The password step; answers the page's status. */
  async function passwordStep(page: Page, email: string, typed = password): Promise<number> {
    await page.goto(`${app.url}/dashboard/login`)
    await page.fill('input[name=email]', email)
    await page.fill('input[name=password]', typed)
    const [response] = await Promise.all([
      page.waitForResponse((answer) => answer.request().method() === 'POST'),
      page.waitForEvent('load'),
      page.click('main button[type=submit]'),
    ])
    return response.status()
  }

  async function codeStep(page: Page, typed: string): Promise<number> {
    await page.fill('input[name=code]', typed)
    const [response] = await Promise.all([
      page.waitForResponse((answer) => answer.request().method() === 'POST'),
      page.waitForEvent('load'),
      page.click('main button[type=submit]'),
    ])
    return response.status()
  }

  /**
   * A member signed in over HTTP (test/support/dashboard.ts), their session cookie handed to a
   * fresh browser: quicker where the sign-in itself is not what is tested. Its codes are of the
   * real time, so no test calls it after the clock moved.
   */
  async function signedInPage(
    role: Role,
    options: { merchantId?: string; bypassCSP?: boolean; lang?: 'en' | 'fr' } = {},
  ) {
    assert.equal(clock.nowMs() - Date.now() < 1000, true, 'the clock has not moved yet')
    const member = await signedInMember(app, { role, merchantId: options.merchantId ?? merchant.id })
    const page = await openPage(options)
    const session = member.browser.cookies.get('sika_session') ?? ''
    await page
      .context()
      .addCookies([{ name: 'sika_session', value: session, domain: '127.0.0.1', path: '/dashboard' }])
    await page.goto(`${app.url}/dashboard/sandbox`)
    assert.match(page.url(), /\/dashboard\/sandbox$/)
    return { page, member }
  }

  async function collect(
    mode: 'sandbox' | 'live',
    reference: string,
    fullName = 'Awa Kone',
    options: { of?: IssuedMerchant; phoneNumber?: string; amount?: number } = {},
  ) {
    const response = await app.client((options.of ?? merchant)[mode]).post('/api/v1/collect', {
      amount: options.amount ?? 15000,
      channel: 'mtn-momo',
      country: 'CI',
      customer: { phoneNumber: options.phoneNumber ?? '2250500000101', fullName },
      merchantReference: reference,
      metadata: { note: fullName === hostileName ? hostileMetadata : 'Two bags of rice' },
      callbackUrl: 'https://merchant.example/sika/callback',
    })
    assert.equal(response.status, 200, response.text)
    return response.body.data.collect as { token: string }
  }

  const bodyText = async (page: Page) => (await page.textContent('body')) ?? ''

  test('an invitation accepted in the browser; then in with the next code, then with a recovery code once', {
    skip: chromiumMissing,
  }, async () => {
    const page = await openPage()
    const member = await acceptInBrowser(page, 'viewer')
    await page.click('main a.button')
    await page.waitForURL('**/dashboard/sandbox')
    assert.ok((await bodyText(page)).includes('Signed in as Awa Diop (Viewer)'))
    await signOut(page)
    assert.ok((await bodyText(page)).includes('You are signed out.'))

    assert.equal(await passwordStep(page, member.email), 303)
    assert.match(page.url(), /\/dashboard\/login\/code/)
    // The enrolment used the current step: a phone shows the next one next.
    assert.equal(await codeStep(page, await code(member.secret, 1)), 303)
    assert.match(page.url(), /\/dashboard\/sandbox$/)
    await signOut(page)

    const [recovery = ''] = member.recoveryCodes
    assert.equal(await passwordStep(page, member.email), 303)
    assert.equal(await codeStep(page, recovery), 303)
    assert.match(page.url(), /\/dashboard\/sandbox$/)
    await signOut(page)
    assert.equal(await passwordStep(page, member.email), 303)
    assert.equal(await codeStep(page, recovery), 401)
    assert.ok((await bodyText(page)).includes('This code is not right, or it was used already.'))
  })

  test('five wrong passwords lock the account, and the page says so; an unknown email reads as a wrong password', {
    skip: chromiumMissing,
  }, async () => {
    const member = await signedInMember(app, { role: 'viewer', merchantId: merchant.id })
    const page = await openPage()
    const alert = async () => (await page.textContent('[role=alert]'))?.trim()
    assert.equal(await passwordStep(page, member.email, 'not the password at all'), 401)
    const wrong = await alert()
    assert.equal(wrong, 'The email or the password is not right.')
    assert.equal(await passwordStep(page, `nobody.${store().name}@merchant.example`, 'whatever it is'), 401)
    assert.equal(await alert(), wrong)
    for (let failure = 2; failure <= 4; failure++)
      assert.equal(await passwordStep(page, member.email, 'still wrong, again'), 401)
    assert.equal(await passwordStep(page, member.email, 'still wrong, again'), 429)
    assert.match(
      (await alert()) ?? '',
      /^Too many failed attempts: signing in is locked for 15 minutes\. Try again later\.$/,
    )
    assert.equal(await passwordStep(page, member.email), 429, 'the right password is refused while locked')
    assert.match((await alert()) ?? '', /signing in is locked for 15 minutes/)
  })

  test('a customer name, metadata and reference holding markup are shown as text, and no script runs', {
    skip: chromiumMissing,
  }, async () => {
    const { token } = await collect('sandbox', hostileReference, hostileName)
    const { page } = await signedInPage('viewer')
    await page.reload()
    const latest = page.locator('section[aria-labelledby=latest]')
    assert.ok(((await latest.textContent()) ?? '').includes(hostileReference))
    const noMarkup = async () => {
      assert.equal(await page.locator('main img, main svg, main script').count(), 0)
      const html = await page.content()
      assert.ok(!html.includes('<svg onload'), 'the reference is escaped')
      assert.ok(!html.includes(hostileName) && !html.includes(hostileMetadata))
    }
    await noMarkup()
    await page.goto(`${app.url}/dashboard/sandbox/operations/${token}`)
    assert.equal((await page.textContent('.customer-name'))?.trim(), hostileName)
    const metadata = (await page.textContent('section[aria-labelledby=metadata]')) ?? ''
    assert.ok(metadata.includes(hostileMetadata), 'the metadata is shown as text')
    assert.ok(((await page.textContent('main')) ?? '').includes(hostileReference))
    await noMarkup()
    // A dialog would have failed the test through page.on('dialog').
    await page.waitForTimeout(100)
  })

  /** axe-core on the page as it is: a summary line per page, and the serious and critical ones kept. */
  const axeFailures: string[] = []
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
    const count = (impact: string) => violations.filter((violation) => violation.impact === impact).length
    const ids = violations.map((violation) => `${violation.id}(${violation.impact})`).join(' ')
    process.stdout.write(
      `axe ${store().name} ${lang} ${name} (${new URL(page.url()).pathname}): critical ${count('critical')}, serious ${count('serious')}, moderate ${count('moderate')}, minor ${count('minor')}${ids ? ` - ${ids}` : ''}\n`,
    )
    for (const violation of violations)
      if (violation.impact === 'serious' || violation.impact === 'critical')
        axeFailures.push(`${lang} ${name}: ${violation.id} at ${violation.targets.join(', ')}`)
  }

  /** Pages of other areas, checked when they are there. */
  const areaPages = (token: string) => [
    ['operations', '/dashboard/sandbox/operations'],
    ['search results', '/dashboard/sandbox/operations?q=%2B225%2005%2000%2000%2001%2001'],
    ['operation', `/dashboard/sandbox/operations/${token}`],
    ['balance', '/dashboard/sandbox/balance'],
    ['developers', '/dashboard/sandbox/developers'],
    ['team', '/dashboard/team'],
    ['account', '/dashboard/account'],
    ['audit', '/dashboard/audit'],
  ]

  test('every page passes axe-core with no serious or critical violation, in English and in French', {
    skip: chromiumMissing,
  }, async () => {
    // The markup does not depend on the store: English on SQLite, French on PostgreSQL, to keep each suite short.
    const languages = store().name === 'sqlite' ? (['en'] as const) : (['fr'] as const)
    const { token } = await collect('sandbox', `axe-${Date.now()}`)
    for (const lang of languages) {
      const page = await openPage({ bypassCSP: true, lang })
      const member = await acceptInBrowser(page, 'owner', (name) => axeCheck(page, name, lang))
      await page.click('main a.button')
      await page.waitForURL('**/dashboard/sandbox')
      await axeCheck(page, 'home sandbox', lang)
      await page.goto(`${app.url}/dashboard/live`)
      await axeCheck(page, 'home live', lang)
      for (const [name, path] of areaPages(token)) {
        const response = await page.goto(`${app.url}${path}`)
        if (response?.status() === 200) await axeCheck(page, name ?? '', lang)
        else process.stdout.write(`axe ${store().name} ${lang} ${name}: not there (${response?.status()})\n`)
      }
      assert.equal((await page.goto(`${app.url}/dashboard/no-such-page`))?.status(), 404)
      await axeCheck(page, '404', lang)
      // A form whose token is not the session's: the 403 of CSRF.
      await page.goto(`${app.url}/dashboard/sandbox`)
      await page.locator('header form input[name=csrf]').evaluate((input: HTMLInputElement) => {
        input.value = 'forged'
      })
      await Promise.all([page.waitForEvent('load'), page.click('header form button')])
      assert.ok((await bodyText(page)).length > 0)
      await axeCheck(page, '403 csrf', lang)
      await page.goto(`${app.url}/dashboard/sandbox`)
      await signOut(page)
      await axeCheck(page, 'sign-in', lang)
      assert.equal(await passwordStep(page, member.email), 303)
      await axeCheck(page, 'code step', lang)
      assert.equal(await codeStep(page, 'wrong-code'), 401)
      await axeCheck(page, 'code step refused', lang)
      // A page the role may not see: the 403 of a permission.
      const viewer = await signedInPage('viewer', { bypassCSP: true, lang })
      assert.equal((await viewer.page.goto(`${app.url}/dashboard/sandbox/developers`))?.status(), 403)
      await axeCheck(viewer.page, '403 forbidden', lang)
    }
    assert.deepEqual(axeFailures, [])
  })

  /** Where the focus is, and whether it can be seen: an outline of at least 2px. */
  async function focused(page: Page) {
    return page.evaluate(() => {
      const element = document.activeElement as HTMLElement
      const style = getComputedStyle(element)
      const box = element.getBoundingClientRect()
      return {
        tag: element.tagName.toLowerCase(),
        name: element.getAttribute('name') ?? '',
        href: element.getAttribute('href') ?? '',
        text: element.textContent?.trim() ?? '',
        visible:
          style.outlineStyle !== 'none' &&
          Number.parseFloat(style.outlineWidth) >= 2 &&
          box.right > 0 &&
          box.bottom > 0,
      }
    })
  }

  /** Tabs until `wanted` holds of the focused element; every stop on the way shows its focus. */
  async function tabTo(page: Page, wanted: (focus: Awaited<ReturnType<typeof focused>>) => boolean) {
    for (let stop = 0; stop < 40; stop++) {
      await page.keyboard.press('Tab')
      const focus = await focused(page)
      assert.ok(
        focus.visible,
        `the focus on ${focus.tag} ${focus.name || focus.href || focus.text} is visible`,
      )
      if (wanted(focus)) return focus
    }
    throw new Error('tabbing never reached the element')
  }

  test('with the keyboard alone: sign in, then open the home and an operation, the focus always visible', {
    skip: chromiumMissing,
  }, async () => {
    const reference = `keyboard-${Date.now()}`
    const { token } = await collect('sandbox', reference)
    const member = await signedInMember(app, { role: 'viewer', merchantId: merchant.id })
    const page = await openPage()
    await page.goto(`${app.url}/dashboard/login`)

    const skip = await tabTo(page, () => true)
    assert.equal(skip.href, '#content', 'the first stop skips to the content')
    await tabTo(page, (focus) => focus.name === 'email')
    await page.keyboard.type(member.email)
    await tabTo(page, (focus) => focus.name === 'password')
    await page.keyboard.type(password)
    await Promise.all([page.waitForURL('**/dashboard/login/code**'), page.keyboard.press('Enter')])
    await tabTo(page, (focus) => focus.name === 'code')
    await page.keyboard.type(await code(member.totpSecret, 1))
    await Promise.all([page.waitForURL('**/dashboard/sandbox'), page.keyboard.press('Enter')])

    // The skip link leads past the navigation: the next stop is in the content.
    await tabTo(page, (focus) => focus.href === '#content')
    await page.keyboard.press('Enter')
    await tabTo(page, (focus) => focus.href === `/dashboard/sandbox/operations/${token}`)
    await Promise.all([
      page.waitForURL(`**/dashboard/sandbox/operations/${token}`),
      page.keyboard.press('Enter'),
    ])
    assert.ok(((await page.textContent('section[aria-labelledby=record]')) ?? '').includes(reference))
    // Back home through the navigation, by keyboard too.
    await tabTo(page, (focus) => focus.href === '/dashboard/sandbox' && focus.text === 'Home')
    await Promise.all([page.waitForURL('**/dashboard/sandbox'), page.keyboard.press('Enter')])
    assert.ok((await bodyText(page)).includes(reference))
  })

  test('sandbox pages carry the sandbox banner; the live home shows live operations only', {
    skip: chromiumMissing,
  }, async () => {
    const sandboxReference = `sandbox-only-${Date.now()}`
    const liveReference = `live-only-${Date.now()}`
    await collect('sandbox', sandboxReference)
    await collect('live', liveReference)
    const { page } = await signedInPage('viewer')
    const latest = async () => (await page.locator('section[aria-labelledby=latest]').textContent()) ?? ''

    await page.goto(`${app.url}/dashboard/sandbox`)
    assert.equal(await page.locator('.banner-sandbox').count(), 1)
    assert.equal(await page.locator('.banner-live').count(), 0)
    assert.match((await page.textContent('.banner-sandbox')) ?? '', /Sandbox: test data only/)
    assert.ok((await latest()).includes(sandboxReference))
    assert.ok(!(await latest()).includes(liveReference))

    await page.goto(`${app.url}/dashboard/live`)
    assert.equal(await page.locator('.banner-live').count(), 1)
    assert.equal(await page.locator('.banner-sandbox').count(), 0)
    assert.ok((await latest()).includes(liveReference))
    assert.ok(!(await latest()).includes(sandboxReference), 'a sandbox operation is not on the live home')
  })

  /** The audit log's rows of one action, as the page shows them. */
  async function auditRows(page: Page, action: string): Promise<string[]> {
    await page.goto(`${app.url}/dashboard/audit?action=${encodeURIComponent(action)}`)
    return page.locator(`tr[data-audit="${action}"]`).allTextContents()
  }

  /** A form POST from the page's own browser (its cookies), with no Origin unless given. */
  async function postFrom(page: Page, path: string, form: Record<string, string>, origin?: string) {
    const answer = await page
      .context()
      .request.post(`${app.url}${path}`, { form, headers: origin ? { origin } : {}, maxRedirects: 0 })
    return answer.status()
  }
  const csrfOf = (page: Page) => page.inputValue('header form input[name=csrf]')

  test('search by a phone number in three written forms, by reference and by token', {
    skip: chromiumMissing,
  }, async () => {
    const shop = await app.createMerchant('Boutique Search')
    const phoneNumber = '2250700000321'
    const first = await collect('sandbox', 'search-first', 'Awa Kone', { of: shop, phoneNumber })
    await collect('sandbox', 'search-second', 'Awa Kone', { of: shop, phoneNumber, amount: 2500 })
    await collect('sandbox', 'search-other', 'Koffi Yao', { of: shop, phoneNumber: '2250700000654' })
    const { page } = await signedInPage('viewer', { merchantId: shop.id })
    const search = async (text: string) => {
      await page.goto(`${app.url}/dashboard/sandbox/operations`)
      await page.fill('#q', text)
      await Promise.all([page.waitForURL('**/operations?**'), page.press('#q', 'Enter')])
      const results = (await page.textContent('section[aria-labelledby=results]')) ?? ''
      return ['search-first', 'search-second', 'search-other'].filter((each) => results.includes(each))
    }
    for (const written of ['0700000321', '+225 07 00 00 03 21', '2250700000321'])
      assert.deepEqual(await search(written), ['search-first', 'search-second'], written)
    if (screenshots) {
      await search('+225 07 00 00 03 21')
      await page.screenshot({ path: `${screenshots}/dashboard-search.png`, fullPage: true })
    }
    assert.deepEqual(await search('search-second'), ['search-second'])
    assert.deepEqual(await search(first.token), ['search-first'])
    assert.match((await page.textContent('main [role=status]')) ?? '', /1 operation found/)
  })

  test('a refund in part, then one beyond what is left; a callback resent; a viewer and a support member as their roles allow; the audit log', {
    skip: chromiumMissing,
  }, async () => {
    const { token } = await collect('sandbox', `refund-${Date.now()}`)
    const path = `/dashboard/sandbox/operations/${token}`
    const finance = await signedInPage('finance')
    const page = finance.page
    await page.goto(`${app.url}${path}`)
    await page.fill('#refund-amount', '5000')
    await page.fill('#refund-reason', 'one item returned')
    await Promise.all([
      page.waitForURL('**?refunded=**'),
      page.click('section[aria-labelledby=refund] button'),
    ])
    assert.match((await page.textContent('main [role=status]')) ?? '', /^Refund \S+ created\.$/)
    if (screenshots) await page.screenshot({ path: `${screenshots}/dashboard-operation.png`, fullPage: true })
    await page.fill('#refund-amount', '20000')
    await Promise.all([page.waitForEvent('load'), page.click('section[aria-labelledby=refund] button')])
    const refused = (await page.textContent('main [role=alert]')) ?? ''
    assert.match(refused, /Only XOF\s10,000 is left to refund\./, refused)

    // CSRF: no token, another session's, a foreign origin: each a 403, and nothing refunded.
    const other = await signedInPage('finance')
    const own = await csrfOf(page)
    assert.equal(await postFrom(page, `${path}/refund`, { amount: '100' }), 403)
    assert.equal(
      await postFrom(page, `${path}/refund`, { amount: '100', csrf: await csrfOf(other.page) }),
      403,
    )
    assert.equal(
      await postFrom(page, `${path}/refund`, { amount: '100', csrf: own }, 'https://evil.example'),
      403,
    )
    await page.goto(`${app.url}${path}`)
    assert.match((await page.textContent('section[aria-labelledby=record]')) ?? '', /XOF\s10,000/)

    const viewer = await signedInPage('viewer')
    await viewer.page.goto(`${app.url}${path}`)
    assert.equal(await viewer.page.locator('#refund-amount').count(), 0, 'a viewer is offered no refund')
    assert.equal(await viewer.page.locator('button[name=resend]').count(), 0, 'nor a resend')
    const forged = { amount: '100', csrf: await csrfOf(viewer.page) }
    assert.equal(await postFrom(viewer.page, `${path}/refund`, forged), 403)

    const support = await signedInPage('support')
    await support.page.goto(`${app.url}${path}`)
    assert.equal(await support.page.locator('#refund-amount').count(), 0, 'support is offered no refund')
    await Promise.all([
      support.page.waitForURL('**?resent=**'),
      support.page.locator('button[name=resend]').first().click(),
    ])
    assert.equal(
      (await support.page.textContent('main [role=status]'))?.trim(),
      'The callback is queued to be sent again.',
    )
    const supportForged = { amount: '100', csrf: await csrfOf(support.page) }
    assert.equal(await postFrom(support.page, `${path}/refund`, supportForged), 403)

    // Each change is in the audit log, with who made it; the refused ones are not.
    const refunds = await auditRows(page, 'refund.created')
    assert.equal(refunds.filter((row) => row.includes(finance.member.email)).length, 1)
    const resent = await auditRows(support.page, 'callback.resent')
    assert.ok(resent.some((row) => row.includes(support.member.email) && row.includes(token)))
  })

  test('a developer rotates the key pair and sees its secret once, in the audit log after; a viewer is refused the page', {
    skip: chromiumMissing,
  }, async () => {
    // A merchant of its own: the suite's merchant keeps its keys.
    const shop = await app.createMerchant('Boutique Keys')
    const { page, member } = await signedInPage('developer', { merchantId: shop.id })
    await page.goto(`${app.url}/dashboard/sandbox/developers`)
    await Promise.all([page.waitForEvent('load'), page.click('#rotate-keys')])
    const secret = (await page.textContent('#new-secret-key'))?.trim() ?? ''
    assert.ok(secret.length >= 20, 'the new secret key is on the answer')
    await page.goto(`${app.url}/dashboard/sandbox/developers`)
    assert.equal(await page.locator('#new-secret-key').count(), 0)
    assert.ok(!(await page.content()).includes(secret), 'the secret is shown once')
    const rotated = await auditRows(page, 'api_key.rotated')
    assert.equal(rotated.length, 1)
    assert.ok(rotated[0]?.includes(member.email))
    assert.ok(!rotated[0]?.includes(secret), 'the audit log holds no secret')

    const viewer = await signedInPage('viewer', { merchantId: shop.id })
    assert.equal(await viewer.page.locator('nav.main a[href$="/developers"]').count(), 0)
    const refused = await viewer.page.goto(`${app.url}/dashboard/sandbox/developers`)
    assert.equal(refused?.status(), 403)
  })

  test('the README images: the home of a merchant with a few operations (written with DASHBOARD_SCREENSHOTS=1)', {
    skip: chromiumMissing,
  }, async (t) => {
    if (store().name === 'postgres') return t.skip('one set of images: taken on SQLite')
    const shop = await app.createMerchant('Boutique Awa')
    const made = [
      ['order-1041', '2250500000101', 15000, 'Awa Kone'],
      ['order-1042', '2250500000901', 4500, 'Koffi Yao'],
      ['order-1043', '2250500000906', 27000, 'Mariam Traore'],
      ['order-1044', '2250500000904', 8000, 'Jean Kouassi'],
      ['order-1045', '2250500000222', 120000, 'Fatou Diallo'],
    ] as const
    for (const [reference, phoneNumber, amount, name] of made)
      await collect('sandbox', reference, name, { of: shop, phoneNumber, amount })
    const { page } = await signedInPage('owner', { merchantId: shop.id })
    await page.setViewportSize({ width: 1280, height: 800 })
    await page.reload()
    const latest = (await page.locator('section[aria-labelledby=latest]').textContent()) ?? ''
    for (const [reference] of made) assert.ok(latest.includes(reference))
    if (screenshots) {
      mkdirSync(screenshots, { recursive: true })
      await page.screenshot({ path: `${screenshots}/dashboard-home.png`, fullPage: true })
    }
  })

  // Last: it moves the clock 31 minutes, and every session of the tests before ends with it.
  test('a revoked session, a removed member and an idle session each get the sign-in page on the next navigation', {
    skip: chromiumMissing,
  }, async () => {
    const expectSignIn = async (page: Page) => {
      await page.goto(`${app.url}/dashboard/sandbox`)
      assert.match(page.url(), /\/dashboard\/login\?next=%2Fdashboard%2Fsandbox$/)
      assert.equal(await page.locator('input[name=password]').count(), 1)
    }
    const revoked = await signedInPage('viewer')
    const removed = await signedInPage('viewer')
    const idle = await signedInPage('viewer')

    const repositories = app.context.store
    const member = await repositories.members.findActiveMemberByEmail(revoked.member.email)
    assert.ok(member)
    const [session] = await repositories.dashboardSessions.listLiveSessions(merchant.id, member.id)
    assert.ok(session)
    assert.ok(
      await repositories.dashboardSessions.endSession(session.id, 'revoked by the test', clock.nowUs()),
    )
    await expectSignIn(revoked.page)

    const gone = await repositories.members.findActiveMemberByEmail(removed.member.email)
    assert.ok(gone)
    await repositories.members.updateMember(gone.id, { removedAtUs: clock.nowUs() }, clock.nowUs())
    await expectSignIn(removed.page)

    await idle.page.goto(`${app.url}/dashboard/live`)
    assert.match(idle.page.url(), /\/dashboard\/live$/)
    clock.advance(31 * 60_000)
    await expectSignIn(idle.page)
  })
})
