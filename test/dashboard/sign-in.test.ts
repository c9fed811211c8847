import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { inviteMember } from '../../src/app/dashboard/invitations.ts'
import { startApp, type TestApp } from '../support/app.ts'
import { csrfIn, DashboardBrowser, nextTotpCode, signedInMember, totpCode } from '../support/dashboard.ts'
import { describeEachStore } from '../support/stores.ts'

describeEachStore('dashboard: signing in', (store) => {
  let app: TestApp
  before(async () => {
    app = await startApp(store())
  })
  after(() => app?.close())

  /** The password step as a browser submits it; answers the page after it. */
  async function passwordStep(browser: DashboardBrowser, email: string, password: string) {
    const form = await browser.get('/dashboard/login')
    return browser.post('/dashboard/login', { csrf: csrfIn(form.text), email, password })
  }

  test('an invited member accepts, enrols an authenticator, sees ten recovery codes and lands on the sandbox home', async () => {
    const member = await signedInMember(app, { role: 'viewer' })
    assert.equal(member.recoveryCodes.length, 10)
    const home = await member.browser.get('/dashboard/sandbox')
    assert.equal(home.status, 200)
    assert.match(home.text, /Sandbox: test data only/)
    assert.equal(home.headers.get('content-type'), 'text/html; charset=utf-8')
    assert.match(home.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/)
    assert.equal(home.headers.get('referrer-policy'), 'same-origin')
    assert.equal(home.headers.get('x-content-type-options'), 'nosniff')
  })

  test('the session cookie is HttpOnly and SameSite=Lax, and its value is not what the store keeps', async () => {
    const member = await signedInMember(app, { role: 'viewer' })
    const browser = new DashboardBrowser(app)
    const signedIn = await passwordStep(browser, member.email, member.password)
    assert.equal(signedIn.status, 303)
    const cookie = signedIn.headers.getSetCookie().find((line) => line.startsWith('sika_session='))
    assert.match(cookie ?? '', /HttpOnly; SameSite=Lax/)
    const token = browser.cookies.get('sika_session') ?? ''
    const rows = await app.db.selectFrom('dashboard_sessions').select('token_hash').execute()
    assert.ok(rows.length > 0 && rows.every((row) => row.token_hash !== token))
  })

  test('sign out, then in again with the password and a code of the authenticator', async () => {
    const member = await signedInMember(app, { role: 'support' })
    const out = await member.browser.post('/dashboard/logout', { csrf: member.csrf })
    assert.equal(out.status, 303)
    assert.equal(
      (await member.browser.get('/dashboard/sandbox')).location,
      '/dashboard/login?next=%2Fdashboard%2Fsandbox',
    )
    const step = await passwordStep(member.browser, member.email, member.password)
    assert.equal(step.location, '/dashboard/login/code?next=%2Fdashboard%2Fsandbox')
    const codePage = await member.browser.get('/dashboard/login/code')
    // The code the enrolment used is refused: the next step's code is what a phone shows next.
    const code = await nextTotpCode(member.totpSecret)
    const signedIn = await member.browser.post('/dashboard/login/code', { csrf: csrfIn(codePage.text), code })
    assert.equal(signedIn.status, 303, signedIn.text)
    assert.equal((await member.browser.get('/dashboard/sandbox')).status, 200)
  })

  test('a code already used is refused a second time', async () => {
    const member = await signedInMember(app, { role: 'viewer' })
    await passwordStep(member.browser, member.email, member.password)
    const codePage = await member.browser.get('/dashboard/login/code')
    const used = await member.browser.post('/dashboard/login/code', {
      csrf: csrfIn(codePage.text),
      code: await totpCode(member.totpSecret),
    })
    assert.equal(used.status, 401)
    assert.match(used.text, /not right, or it was used already/)
  })

  test('a recovery code signs in once, then no longer works', async () => {
    const member = await signedInMember(app, { role: 'viewer' })
    const [code = ''] = member.recoveryCodes
    for (const expected of [303, 401]) {
      const browser = new DashboardBrowser(app)
      await passwordStep(browser, member.email, member.password)
      const codePage = await browser.get('/dashboard/login/code')
      const answer = await browser.post('/dashboard/login/code', { csrf: csrfIn(codePage.text), code })
      assert.equal(answer.status, expected)
    }
  })

  test('an unknown email and a wrong password get the same words; five failures lock the account for 15 minutes', async () => {
    const member = await signedInMember(app, { role: 'viewer' })
    const browser = new DashboardBrowser(app, '127.0.2.1')
    const wrong = await passwordStep(browser, member.email, 'not the password at all')
    const unknown = await passwordStep(browser, 'nobody@merchant.example', 'not the password at all')
    assert.equal(wrong.status, 401)
    assert.equal(unknown.status, 401)
    const words = (page: string) => /<p class="error" role="alert">([^<]*)</.exec(page)?.[1]
    assert.equal(words(wrong.text), 'The email or the password is not right.')
    assert.equal(words(unknown.text), words(wrong.text))
    for (let failure = 2; failure <= 4; failure++)
      await passwordStep(browser, member.email, 'still wrong, again')
    const fifth = await passwordStep(browser, member.email, 'still wrong, again')
    assert.equal(fifth.status, 429)
    assert.match(fifth.text, /signing in is locked for 15 minutes/)
    const right = await passwordStep(browser, member.email, member.password)
    assert.equal(right.status, 429, 'the right password is refused while locked')
  })

  test('an unknown email locks after five failures with the very words a member’s account gets', async () => {
    const member = await signedInMember(app, { role: 'viewer' })
    const browser = new DashboardBrowser(app, '127.0.2.2')
    const fifthOf = async (email: string) => {
      let answer = await passwordStep(browser, email, 'wrong password here')
      for (let failure = 2; failure <= 5; failure++)
        answer = await passwordStep(browser, email, 'wrong password here')
      return answer
    }
    const words = (page: string) => /<p class="error" role="alert">([^<]*)</.exec(page)?.[1]
    const known = await fifthOf(member.email)
    const unknown = await fifthOf('no.member.here@merchant.example')
    assert.equal(known.status, 429)
    assert.equal(unknown.status, 429)
    assert.equal(words(unknown.text), words(known.text))
    const again = await passwordStep(browser, 'no.member.here@merchant.example', 'wrong password here')
    assert.equal(words(again.text), words(known.text), 'still locked, as an account is')
  })

  test('codes guessed across password steps count toward the lock, which ends the code step', async () => {
    const member = await signedInMember(app, { role: 'viewer' })
    const browser = new DashboardBrowser(app, '127.0.2.3')
    let last = { status: 0, text: '' }
    for (let attempt = 1; attempt <= 5; attempt++) {
      if (attempt === 1 || attempt === 3) await passwordStep(browser, member.email, member.password)
      const codePage = await browser.get('/dashboard/login/code')
      last = await browser.post('/dashboard/login/code', { csrf: csrfIn(codePage.text), code: '000000' })
    }
    assert.equal(last.status, 429)
    assert.match(last.text, /locked for 15 minutes/)
    assert.equal((await passwordStep(browser, member.email, member.password)).status, 429)
  })

  test('a member sets up a new authenticator from the account page, with a code of the old one', async () => {
    const member = await signedInMember(app, { role: 'viewer' })
    const account = await member.browser.get('/dashboard/account')
    const replaced = await member.browser.post('/dashboard/account/authenticator', {
      csrf: csrfIn(account.text, '/dashboard/account/authenticator'),
      code: await nextTotpCode(member.totpSecret),
    })
    assert.equal(replaced.status, 303, replaced.text)
    assert.match(replaced.location ?? '', /^\/dashboard\/enrol/)
    assert.equal(
      (await member.browser.get('/dashboard/sandbox')).status,
      303,
      'nothing else until it is set up',
    )
    const enrolment = await member.browser.get('/dashboard/enrol')
    const secret = /data-setup-key[^>]*>([A-Z2-7]+)</.exec(enrolment.text)?.[1] ?? ''
    assert.notEqual(secret, member.totpSecret)
    const confirmed = await member.browser.post('/dashboard/enrol', {
      csrf: csrfIn(enrolment.text),
      code: await totpCode(secret),
    })
    assert.equal(confirmed.status, 200)
    assert.equal((await member.browser.get('/dashboard/sandbox')).status, 200)
    const audited = await app.db
      .selectFrom('audit_log')
      .select('action')
      .where('target', '=', member.email)
      .execute()
    assert.ok(audited.some((row) => row.action === 'authenticator.replaced'))
  })

  test('an invitation is used once', async () => {
    const merchant = await app.createMerchant('Once')
    const invitation = await inviteMember(app.context, { kind: 'cli' }, merchant.id, {
      email: 'once@merchant.example',
      role: 'viewer',
    })
    assert.ok('invitationUrl' in invitation)
    const path = new URL(invitation.invitationUrl).pathname
    const first = new DashboardBrowser(app)
    const form = await first.get(path)
    const accepted = await first.post(path, {
      csrf: csrfIn(form.text),
      name: 'Once',
      password: 'a long enough password',
    })
    assert.equal(accepted.status, 303)
    const again = await new DashboardBrowser(app).get(path)
    assert.equal(again.status, 404)
    assert.match(again.text, /cannot be used/)
  })

  test('a POST without the CSRF token, with another session’s, or from another origin is a 403 that signs nobody out', async () => {
    const member = await signedInMember(app, { role: 'viewer' })
    const other = await signedInMember(app, { role: 'viewer' })
    for (const [form, headers] of [
      [{}, {}],
      [{ csrf: other.csrf }, {}],
      [{ csrf: member.csrf }, { origin: 'https://evil.example' }],
    ] as const) {
      const answer = await member.browser.post('/dashboard/logout', form, headers)
      assert.equal(answer.status, 403)
    }
    assert.equal((await member.browser.get('/dashboard/sandbox')).status, 200)
  })
})
