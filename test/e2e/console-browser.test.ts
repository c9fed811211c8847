import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { invitePlatformMember } from '../../src/app/console/platform-team.ts'
import { isRefusal } from '../../src/app/dashboard/refusals.ts'
import type { PlatformRole } from '../../src/domain/platform-roles.ts'
import { startApp, type TestApp, testSecretsKey } from '../support/app.ts'
import { chromiumMissing, launchChromium, seriousAxeViolations, tabTo } from '../support/browser.ts'
import { runSikaIn } from '../support/cli.ts'
import { signedInPlatformMember } from '../support/console.ts'
import { signedInMember, totpCode } from '../support/dashboard.ts'
import { freePort } from '../support/process.ts'
import { describeEachStore } from '../support/stores.ts'

const password = 'correct horse battery staple'

describeEachStore('the console in a real browser', (store) => {
  let app: TestApp
  let browser: Browser
  let members = 0
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
      await context.addCookies([
        { name: 'sika_console_lang', value: options.lang, url: `${app.url}/console` },
      ])
    return page
  }

  async function invitationPath(role: PlatformRole): Promise<{ email: string; path: string }> {
    members += 1
    const email = `console${members}.${store().name}@platform.example`
    const invitation = await invitePlatformMember(app.context, { kind: 'cli' }, { email, role })
    if (isRefusal(invitation)) throw new Error(`invitation refused: ${invitation.refused}`)
    return { email, path: new URL(invitation.invitationUrl).pathname }
  }

  /** The invitation accepted, the authenticator enrolled and the recovery codes read, all in the browser. */
  async function acceptInBrowser(
    page: Page,
    path: string,
    visit: (name: string) => Promise<void> = async () => {},
  ) {
    await page.goto(`${app.url}${path}`)
    await visit('invitation')
    await page.fill('input[name=name]', 'Ama Owusu')
    await page.fill('input[name=password]', password)
    await Promise.all([page.waitForURL('**/console/enrol'), page.click('main button[type=submit]')])
    await visit('enrolment')
    const secret = (await page.textContent('[data-setup-key]'))?.trim() ?? ''
    assert.match(secret, /^[A-Z2-7]{16,}$/)
    await page.fill('input[name=code]', await totpCode(secret))
    await Promise.all([page.waitForEvent('load'), page.click('main button[type=submit]')])
    const recoveryCodes = await page.locator('[data-recovery-codes] li').allTextContents()
    assert.equal(recoveryCodes.length, 10)
    await visit('recovery codes')
    await Promise.all([page.waitForURL('**/console'), page.click('main a.button')])
    return { secret, recoveryCodes }
  }

  test('a platform admin invited by the CLI enrols an authenticator in the browser, signs out and in again', {
    skip: chromiumMissing,
    timeout: 120_000,
  }, async () => {
    const email = `cli.admin.${store().name}@platform.example`
    const invited = await runSikaIn(
      undefined,
      ['platform-member', 'invite', '--email', email, '--role', 'admin'],
      {
        DATABASE_URL: store().databaseUrl,
        SECRETS_KEY: testSecretsKey,
        PUBLIC_BASE_URL: app.url,
      },
    )
    assert.equal(invited.code, 0, invited.stderr)
    const url = new URL(invited.stdout.trim())
    assert.equal(url.origin, app.url, 'the invitation is on PUBLIC_BASE_URL')
    const page = await openPage()
    const { secret } = await acceptInBrowser(page, url.pathname)
    assert.equal(await page.textContent('main h1'), 'Overview')
    const cookies = await page.context().cookies()
    const session = cookies.find((cookie) => cookie.name === 'sika_console_session')
    assert.equal(session?.path, '/console')
    assert.equal(session?.httpOnly, true)
    assert.equal(session?.sameSite, 'Lax')

    await Promise.all([page.waitForURL('**/console/login?out'), page.click('header form button')])
    await page.fill('input[name=email]', email)
    await page.fill('input[name=password]', password)
    await Promise.all([page.waitForURL('**/console/login/code**'), page.click('main button[type=submit]')])
    await page.fill('input[name=code]', await totpCode(secret, Date.now() + 30_000))
    await Promise.all([page.waitForURL('**/console'), page.click('main button[type=submit]')])
    await page.goto(`${app.url}/console/team`)
    assert.ok(((await page.textContent('main')) ?? '').includes(email))
  })

  test('one browser signed in to both: each area sees only its own session', {
    skip: chromiumMissing,
    timeout: 120_000,
  }, async () => {
    const merchantMember = await signedInMember(app, { role: 'owner' })
    const platformMember = await signedInPlatformMember(app, { role: 'admin' })
    const page = await openPage()
    const url = new URL(app.url)
    await page.context().addCookies([
      {
        name: 'sika_session',
        value: merchantMember.browser.cookies.get('sika_session') ?? '',
        url: `${app.url}/dashboard`,
      },
      {
        name: 'sika_console_session',
        value: platformMember.browser.cookies.get('sika_console_session') ?? '',
        url: `${url.origin}/console`,
      },
    ])
    await page.goto(`${app.url}/dashboard/sandbox`)
    assert.match(page.url(), /\/dashboard\/sandbox$/)
    await page.goto(`${app.url}/console`)
    assert.match(page.url(), /\/console$/)
    // The dashboard's token under the console's name, and the console's under the dashboard's: nothing opens.
    await page.context().clearCookies()
    await page.context().addCookies([
      {
        name: 'sika_console_session',
        value: merchantMember.browser.cookies.get('sika_session') ?? '',
        url: `${app.url}/console`,
      },
      {
        name: 'sika_session',
        value: platformMember.browser.cookies.get('sika_console_session') ?? '',
        url: `${app.url}/dashboard`,
      },
    ])
    await page.goto(`${app.url}/console/team`)
    assert.match(page.url(), /\/console\/login\?next=/)
    await page.goto(`${app.url}/dashboard/team`)
    assert.match(page.url(), /\/dashboard\/login\?next=/)
  })

  /** axe-core on the page as it is: a summary line per page, and the serious and critical ones kept. */
  const axeFailures: string[] = []
  async function axeCheck(page: Page, name: string, lang: string) {
    axeFailures.push(...(await seriousAxeViolations(page, `console ${store().name} ${lang} ${name}`)))
  }

  test('every console page passes axe-core with no serious or critical violation, in English and in French', {
    skip: chromiumMissing,
    timeout: 240_000,
  }, async () => {
    for (const lang of ['en', 'fr'] as const) {
      const page = await openPage({ bypassCSP: true, lang })
      const { email, path } = await invitationPath('admin')
      const { secret } = await acceptInBrowser(page, path, (name) => axeCheck(page, name, lang))
      assert.equal(await page.getAttribute('html', 'lang'), lang)
      await axeCheck(page, 'overview', lang)
      await page.goto(`${app.url}/console/team`)
      await axeCheck(page, 'team', lang)
      await page.fill('main input[name=email]', `axe.${lang}.${store().name}@platform.example`)
      await Promise.all([page.waitForEvent('load'), page.click('form[action="/console/team/invite"] button')])
      assert.ok(await page.isVisible('[data-invitation-url]'))
      await axeCheck(page, 'team with an invitation', lang)
      await page.goto(`${app.url}/console/audit`)
      await axeCheck(page, 'audit log', lang)
      assert.equal((await page.goto(`${app.url}/console/no-such-page`))?.status(), 404)
      await axeCheck(page, '404', lang)
      await page.goto(`${app.url}/console`)
      await page.locator('header form input[name=csrf]').evaluate((input: HTMLInputElement) => {
        input.value = 'forged'
      })
      await Promise.all([page.waitForEvent('load'), page.click('header form button')])
      await axeCheck(page, '403 csrf', lang)
      await page.goto(`${app.url}/console`)
      await Promise.all([page.waitForURL('**/console/login?out'), page.click('header form button')])
      await axeCheck(page, 'sign-in', lang)
      await page.fill('input[name=email]', email)
      await page.fill('input[name=password]', password)
      await Promise.all([page.waitForURL('**/console/login/code**'), page.click('main button[type=submit]')])
      await axeCheck(page, 'code step', lang)
      await page.fill('input[name=code]', '000000')
      await Promise.all([page.waitForEvent('load'), page.click('main button[type=submit]')])
      await axeCheck(page, 'code step refused', lang)
      await page.fill('input[name=code]', await totpCode(secret, Date.now() + 30_000))
      await Promise.all([page.waitForURL('**/console'), page.click('main button[type=submit]')])

      // An analyst's forged form: the 403 of a permission.
      const analystPage = await openPage({ bypassCSP: true, lang })
      const analyst = await invitationPath('analyst')
      await acceptInBrowser(analystPage, analyst.path)
      await analystPage.goto(`${app.url}/console/team`)
      assert.equal(
        await analystPage.locator('form[action^="/console/team/"]').count(),
        0,
        'no action offered',
      )
      const [, status] = await Promise.all([
        analystPage.waitForEvent('load'),
        analystPage.evaluate(async () => {
          const csrf = (document.querySelector('header form input[name=csrf]') as HTMLInputElement).value
          const form = document.createElement('form')
          form.method = 'post'
          form.action = '/console/team/invite'
          for (const [name, value] of Object.entries({
            csrf,
            email: 'mole@platform.example',
            role: 'admin',
          })) {
            const input = document.createElement('input')
            input.type = 'hidden'
            input.name = name
            input.value = value
            form.append(input)
          }
          document.body.append(form)
          form.submit()
          return 'sent'
        }),
      ])
      assert.equal(status, 'sent')
      await analystPage.waitForFunction(() => document.querySelector('h1') !== null)
      assert.match((await analystPage.textContent('h1')) ?? '', lang === 'en' ? /Not allowed/ : /./)
      await axeCheck(analystPage, '403 forbidden', lang)
    }
    const moles = await app.db
      .selectFrom('platform_invitations')
      .select('id')
      .where('email', '=', 'mole@platform.example')
      .execute()
    assert.equal(moles.length, 0, 'the forged invitation changed nothing')
    assert.deepEqual(axeFailures, [])
  })

  test('with the keyboard alone: sign in to the console, then open the team from the navigation', {
    skip: chromiumMissing,
    timeout: 120_000,
  }, async () => {
    const member = await signedInPlatformMember(app, { role: 'support' })
    const page = await openPage()
    await page.goto(`${app.url}/console/login`)
    const skip = await tabTo(page, () => true)
    assert.equal(skip.href, '#content', 'the first stop skips to the content')
    await tabTo(page, (focus) => focus.name === 'email')
    await page.keyboard.type(member.email)
    await tabTo(page, (focus) => focus.name === 'password')
    await page.keyboard.type(member.password)
    await Promise.all([page.waitForURL('**/console/login/code**'), page.keyboard.press('Enter')])
    await tabTo(page, (focus) => focus.name === 'code')
    await page.keyboard.type(await totpCode(member.totpSecret, Date.now() + 30_000))
    await Promise.all([page.waitForURL('**/console'), page.keyboard.press('Enter')])
    await tabTo(page, (focus) => focus.href === '/console/team')
    await Promise.all([page.waitForURL('**/console/team'), page.keyboard.press('Enter')])
    assert.ok(((await page.textContent('main')) ?? '').includes(member.email))
  })
})
