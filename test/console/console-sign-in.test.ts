import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startApp, type TestApp } from '../support/app.ts'
import { runSika } from '../support/cli.ts'
import { acceptConsoleInvitation, signedInPlatformMember } from '../support/console.ts'
import { csrfIn, DashboardBrowser, nextTotpCode, signedInMember } from '../support/dashboard.ts'
import { describeEachStore } from '../support/stores.ts'

describeEachStore('console: platform members sign in', (store) => {
  let app: TestApp
  before(async () => {
    app = await startApp(store())
  })
  after(() => app?.close())

  async function passwordStep(browser: DashboardBrowser, email: string, password: string) {
    const form = await browser.get('/console/login')
    return browser.post('/console/login', { csrf: csrfIn(form.text), email, password })
  }

  test('a platform admin invited by the CLI enrols an authenticator, sees ten recovery codes, and signs in again', {
    timeout: 60_000,
  }, async () => {
    const invited = await runSika(store().databaseUrl, [
      'platform-member',
      'invite',
      '--email',
      'first.admin@platform.example',
      '--role',
      'admin',
    ])
    assert.equal(invited.code, 0, invited.stderr)
    const admin = await acceptConsoleInvitation(app, invited.stdout.trim())
    assert.equal(admin.recoveryCodes.length, 10)
    const home = await admin.browser.get('/console')
    assert.equal(home.status, 200)
    for (const link of [
      'Overview',
      'Merchants',
      'Operations',
      'Operator accounts',
      'Reconciliation',
      'Team',
      'Audit log',
    ])
      assert.match(home.text, new RegExp(`>${link}</a>`), link)
    assert.match(home.text, /<h1>Overview<\/h1>/)
    assert.equal(home.headers.get('content-type'), 'text/html; charset=utf-8')
    assert.match(
      home.headers.get('content-security-policy') ?? '',
      /default-src 'none'.*frame-ancestors 'none'/,
    )
    assert.equal(home.headers.get('referrer-policy'), 'same-origin')
    assert.equal(home.headers.get('x-content-type-options'), 'nosniff')

    const out = await admin.browser.post('/console/logout', { csrf: csrfIn(home.text) })
    assert.equal(out.status, 303)
    assert.equal((await admin.browser.get('/console')).location, '/console/login?next=%2Fconsole')
    const step = await passwordStep(admin.browser, 'first.admin@platform.example', admin.password)
    assert.equal(step.status, 303, step.text)
    assert.equal(step.location, '/console/login/code?next=%2Fconsole')
    const cookie = step.headers.getSetCookie().find((line) => line.startsWith('sika_console_session='))
    assert.match(cookie ?? '', /Path=\/console; HttpOnly; SameSite=Lax/)
    const codePage = await admin.browser.get('/console/login/code')
    const signedIn = await admin.browser.post('/console/login/code', {
      csrf: csrfIn(codePage.text),
      code: await nextTotpCode(admin.totpSecret),
    })
    assert.equal(signedIn.status, 303, signedIn.text)
    assert.equal((await admin.browser.get('/console')).status, 200)
  })

  test('a recovery code signs in once', { timeout: 60_000 }, async () => {
    const member = await signedInPlatformMember(app, { role: 'analyst' })
    const [code = ''] = member.recoveryCodes
    for (const expected of [303, 401]) {
      const browser = new DashboardBrowser(app)
      await passwordStep(browser, member.email, member.password)
      const codePage = await browser.get('/console/login/code')
      assert.equal(
        (await browser.post('/console/login/code', { csrf: csrfIn(codePage.text), code })).status,
        expected,
      )
    }
  })

  test('five wrong passwords lock a platform member for 15 minutes, with the words an unknown email gets', {
    timeout: 60_000,
  }, async () => {
    const member = await signedInPlatformMember(app, { role: 'support' })
    const browser = new DashboardBrowser(app, '127.0.3.1')
    const words = (page: string) => /<p class="error" role="alert">([^<]*)</.exec(page)?.[1]
    const wrong = await passwordStep(browser, member.email, 'not the password at all')
    const unknown = await passwordStep(browser, 'nobody@platform.example', 'not the password at all')
    assert.equal(wrong.status, 401)
    assert.equal(words(unknown.text), words(wrong.text))
    for (let failure = 2; failure <= 4; failure++) await passwordStep(browser, member.email, 'still wrong')
    const fifth = await passwordStep(browser, member.email, 'still wrong')
    assert.equal(fifth.status, 429)
    assert.match(fifth.text, /locked for 15 minutes/)
    assert.equal((await passwordStep(browser, member.email, member.password)).status, 429)
  })

  test('a merchant member cannot sign in to the console, nor a platform member to the dashboard', {
    timeout: 60_000,
  }, async () => {
    const merchantMember = await signedInMember(app, { role: 'owner' })
    const platformMember = await signedInPlatformMember(app, { role: 'admin' })
    const onConsole = await passwordStep(
      new DashboardBrowser(app, '127.0.3.2'),
      merchantMember.email,
      merchantMember.password,
    )
    assert.equal(onConsole.status, 401)
    const other = new DashboardBrowser(app, '127.0.3.2')
    const form = await other.get('/dashboard/login')
    const onDashboard = await other.post('/dashboard/login', {
      csrf: csrfIn(form.text),
      email: platformMember.email,
      password: platformMember.password,
    })
    assert.equal(onDashboard.status, 401, 'a platform member is no merchant member')
  })

  test('a dashboard session never opens /console, and a console session never opens /dashboard', {
    timeout: 60_000,
  }, async () => {
    const merchantMember = await signedInMember(app, { role: 'owner' })
    const platformMember = await signedInPlatformMember(app, { role: 'admin' })
    const dashboardToken = merchantMember.browser.cookies.get('sika_session') ?? ''
    const consoleToken = platformMember.browser.cookies.get('sika_console_session') ?? ''
    assert.ok(dashboardToken && consoleToken)
    // The test's cookie jar sends every cookie everywhere, as a browser would not: the server alone keeps them apart.
    for (const path of ['/console', '/console/team', '/console/audit']) {
      const answer = await merchantMember.browser.get(path)
      assert.equal(answer.status, 303, path)
      assert.match(answer.location ?? '', /^\/console\/login/)
      const forged = await new DashboardBrowser(app).get(path, {
        cookie: `sika_console_session=${dashboardToken}`,
      })
      assert.match(forged.location ?? '', /^\/console\/login/, `${path} with a dashboard token`)
    }
    for (const path of ['/dashboard/sandbox', '/dashboard/team', '/dashboard/audit']) {
      const answer = await platformMember.browser.get(path)
      assert.equal(answer.status, 303, path)
      assert.match(answer.location ?? '', /^\/dashboard\/login/)
      const forged = await new DashboardBrowser(app).get(path, { cookie: `sika_session=${consoleToken}` })
      assert.match(forged.location ?? '', /^\/dashboard\/login/, `${path} with a console token`)
    }
    assert.equal((await merchantMember.browser.get('/dashboard/sandbox')).status, 200)
    assert.equal((await platformMember.browser.get('/console')).status, 200)
  })

  test('a form without its CSRF token, or from another origin, is a 403 that changes nothing', {
    timeout: 60_000,
  }, async () => {
    const admin = await signedInPlatformMember(app, { role: 'admin' })
    const before = await app.db.selectFrom('platform_invitations').select('id').execute()
    const form = { email: 'csrf.victim@platform.example', role: 'admin' }
    const noToken = await admin.browser.post('/console/team/invite', form)
    assert.equal(noToken.status, 403)
    const otherOrigin = await admin.browser.post(
      '/console/team/invite',
      { ...form, csrf: admin.csrf },
      { origin: 'https://attacker.example' },
    )
    assert.equal(otherOrigin.status, 403)
    const dashboardLogin = await new DashboardBrowser(app).post('/console/login', {
      email: admin.email,
      password: admin.password,
    })
    assert.equal(dashboardLogin.status, 403, 'sign-in without its form token')
    assert.equal(
      (await app.db.selectFrom('platform_invitations').select('id').execute()).length,
      before.length,
    )
  })
})
