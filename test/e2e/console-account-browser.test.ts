import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { platformRoles } from '../../src/domain/platform-roles.ts'
import { messagesOf } from '../../src/http/dashboard/messages/catalogue.ts'
import { formatInstant } from '../../src/http/pages/kit/format.ts'
import { startApp, type TestApp } from '../support/app.ts'
import { chromiumMissing, launchChromium, seriousAxeViolations, tabTo } from '../support/browser.ts'
import {
  consolePasswordStep,
  consoleSignIn,
  openConsolePage,
  type SignedInPlatformMember,
  signedInPlatformMember,
} from '../support/console.ts'
import { csrfIn, nextTotpCode } from '../support/dashboard.ts'
import { freePort } from '../support/process.ts'
import { describeEachStore } from '../support/stores.ts'

const newPassword = 'a brand new console passphrase'

/**
 * A platform member's own account at /console/account (the dashboard's account page, on the
 * platform's members), in Chromium: the password changed with the keyboard alone (the old one then
 * fails at sign-in, the new one works), ten new recovery codes shown once (an old one no longer
 * signs in), another session ended, a time zone the pages then use; each change a row of the
 * platform audit log. A wrong current password is a 400 that counts toward the lockout; a form
 * without its CSRF token is a 403 that changes nothing. axe-core clean in English and French.
 */
describeEachStore('console: a platform member’s own account', (store) => {
  let app: TestApp
  let browser: Browser
  const contexts: BrowserContext[] = []

  before(async () => {
    const port = await freePort()
    app = await startApp(store(), {
      environment: { PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` },
    })
    if (!chromiumMissing) browser = await launchChromium()
  })
  after(async () => {
    for (const context of contexts) await context.close().catch(() => {})
    await browser?.close()
    await app?.close()
  })

  const platformRows = (email: string) =>
    app.db
      .selectFrom('platform_audit_log')
      .selectAll()
      .where('target', '=', email)
      .orderBy('at_us', 'desc')
      .orderBy('id', 'desc')
      .execute()
  const attemptsOf = async (member: SignedInPlatformMember) => {
    const row = await app.db
      .selectFrom('secret_attempts')
      .select('attempts')
      .where('subject', '=', `platform-member:${member.id}`)
      .executeTakeFirst()
    return Number(row?.attempts ?? 0)
  }
  const passwordHashOf = async (member: SignedInPlatformMember) =>
    (
      await app.db
        .selectFrom('platform_members')
        .select('password_hash')
        .where('id', '=', member.id)
        .executeTakeFirstOrThrow()
    ).password_hash
  /** Submits a form of the page (by `press`) and waits for the page it answers with: its status. */
  const submit = async (page: Page, path: string, press: () => Promise<void>) => {
    const [response] = await Promise.all([
      page.waitForResponse((answer) => answer.url().endsWith(path) && answer.request().method() === 'POST'),
      page.waitForURL((url) => url.pathname === path),
      press(),
    ])
    return response.status()
  }

  test('every platform role has the page, linked from the console’s header', async () => {
    for (const role of platformRoles) {
      const member = await signedInPlatformMember(app, { role })
      const page = await member.browser.get('/console/account')
      assert.equal(page.status, 200, role)
      assert.match(page.text, /<a href="\/console\/account"/)
      assert.ok(page.text.includes(member.email))
      assert.match(page.text, /action="\/console\/account\/password"/)
    }
  })

  test('in Chromium, in English and French: the password by keyboard, new recovery codes, another session ended, a time zone; the audit log shows each', {
    skip: chromiumMissing,
    timeout: 240_000,
  }, async () => {
    const failures: string[] = []
    for (const lang of ['en', 'fr'] as const) {
      const member = await signedInPlatformMember(app, { role: lang === 'en' ? 'analyst' : 'finance' })
      const page = await openConsolePage(browser, app.url, member, lang, contexts)
      const axe = async (state: string) =>
        failures.push(
          ...(await seriousAxeViolations(page, `console account ${store().name} ${lang} ${state}`)),
        )
      await page.goto(`${app.url}/console`)
      await Promise.all([
        page.waitForURL('**/console/account'),
        page.click('header a[href="/console/account"]'),
      ])
      await axe('shown')

      // A wrong current password: a 400 that says so, counted with the sign-in's attempts.
      await page.fill('#current-password', 'not the password at all')
      await page.fill('#new-password', newPassword)
      const wrong = await submit(page, '/console/account/password', () => page.click('#password-form button'))
      assert.equal(wrong, 400)
      assert.equal(await page.textContent('main p.error'), messagesOf(lang).refusals.password_wrong)
      assert.equal(await attemptsOf(member), 1, 'counted toward the lockout')
      await axe('wrong password')

      // New recovery codes: ten, shown once; an old one no longer signs in, a new one does.
      await page.fill('#recovery-code', await nextTotpCode(member.totpSecret))
      assert.equal(
        await submit(page, '/console/account/recovery-codes', () => page.click('#recovery-form button')),
        200,
      )
      const codes = (await page.locator('[data-recovery-codes] li').allTextContents()).map((code) =>
        code.trim(),
      )
      assert.equal(codes.length, 10)
      await axe('new recovery codes')
      await page.reload()
      assert.equal(await page.locator('[data-recovery-codes]').count(), 0, 'shown once')
      const old = await consoleSignIn(app, member.email, member.password, member.recoveryCodes[0] ?? '')
      assert.equal(old.answer.status, 401, 'an old recovery code no longer works')
      const other = await consoleSignIn(app, member.email, member.password, codes[0] ?? '')
      assert.equal(other.answer.status, 303, other.answer.text)

      // The other session, ended from this page.
      await page.reload()
      const rows = page.locator('main tr[data-session]')
      assert.equal(await rows.count(), 2)
      const otherRow = rows.filter({ hasNotText: lang === 'en' ? 'This session' : 'Cette session' })
      const otherId = (await otherRow.getAttribute('data-session')) ?? ''
      assert.equal(
        await submit(page, '/console/account/sessions/end', () => otherRow.locator('button').click()),
        200,
      )
      assert.equal(await page.locator('main tr[data-session]').count(), 1)
      assert.equal((await other.browser.get('/console')).status, 303, 'the other session has ended')
      await axe('session ended')

      // A time zone, which the pages then show times in.
      await page.selectOption('#time-zone-select', 'Africa/Nairobi')
      assert.equal(
        await submit(page, '/console/account/time-zone', () => page.click('#time-zone-form button')),
        200,
      )
      await axe('time zone saved')
      await page.goto(`${app.url}/console/audit`)
      const [newest] = await app.db
        .selectFrom('platform_audit_log')
        .selectAll()
        .orderBy('at_us', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .execute()
      assert.equal(newest?.action, 'time_zone.changed')
      const shownAt = (await page.locator('main tbody tr').first().locator('td').first().textContent()) ?? ''
      assert.equal(shownAt, formatInstant(Number(newest?.at_us), lang, 'Africa/Nairobi'))
      assert.ok(!shownAt.endsWith('UTC'))

      // The password, with the keyboard alone.
      await page.goto(`${app.url}/console/account`)
      await tabTo(page, (focus) => focus.name === 'current')
      await page.keyboard.type(member.password)
      await tabTo(page, (focus) => focus.name === 'password')
      await page.keyboard.type(newPassword)
      assert.equal(await submit(page, '/console/account/password', () => page.keyboard.press('Enter')), 200)
      assert.ok(await page.isVisible('main p.notice'))
      await axe('password changed')
      assert.equal((await consolePasswordStep(app, member.email, member.password)).answer.status, 401)
      assert.equal((await consolePasswordStep(app, member.email, newPassword)).answer.status, 303)

      // The platform audit log has a row of each, by the member.
      await page.goto(`${app.url}/console/audit`)
      await axe('audit log')
      const audited = await platformRows(member.email)
      for (const action of [
        'password.changed',
        'recovery_codes.regenerated',
        'session.ended',
        'time_zone.changed',
      ]) {
        const row = audited.find((entry) => entry.action === action)
        assert.equal(row?.actor_label, member.email, action)
        assert.ok(await page.locator('main tbody code', { hasText: action }).count(), `${action} shown`)
      }
      const ended = audited.find((entry) => entry.action === 'session.ended')
      assert.equal(JSON.parse(ended?.before_json ?? '{}').session, otherId)
      const merchantRows = await app.db
        .selectFrom('audit_log')
        .select('id')
        .where('target', '=', member.email)
        .execute()
      assert.equal(merchantRows.length, 0, 'nothing in a merchant’s audit log')
    }
    assert.deepEqual(failures, [])
  })

  test('a wrong current password five times locks the member out, as the dashboard does', async () => {
    const member = await signedInPlatformMember(app, { role: 'support' })
    const account = await member.browser.get('/console/account')
    const csrf = csrfIn(account.text, '/console/account/password')
    const statuses: number[] = []
    for (let n = 0; n < 5; n++) {
      const answer = await member.browser.post('/console/account/password', {
        csrf,
        current: `not the password ${n}`,
        password: newPassword,
      })
      statuses.push(answer.status)
    }
    assert.deepEqual(statuses, [400, 400, 400, 400, 429])
    assert.equal((await member.browser.get('/console/account')).status, 303, 'the session has ended')
    const signIn = await consolePasswordStep(app, member.email, member.password, '127.0.7.1')
    assert.equal(signIn.answer.status, 429, 'locked as a sign-in locks')
  })

  test('a POST without the CSRF token is a 403 and changes nothing', async () => {
    const member = await signedInPlatformMember(app, { role: 'risk' })
    const hash = await passwordHashOf(member)
    const forms: [string, Record<string, string>][] = [
      ['password', { current: member.password, password: newPassword }],
      ['time-zone', { timeZone: 'Europe/Paris' }],
      ['sessions/end', { sessionId: 'ses_any' }],
      ['recovery-codes', { code: '000000' }],
      ['authenticator', { code: '000000' }],
    ]
    for (const [path, form] of forms) {
      const answer = await member.browser.post(`/console/account/${path}`, form)
      assert.equal(answer.status, 403, path)
    }
    assert.equal(await passwordHashOf(member), hash)
    assert.equal((await member.browser.get('/console/account')).status, 200, 'still signed in')
    assert.equal(await attemptsOf(member), 0)
    const actions = (await platformRows(member.email)).map((row) => row.action)
    assert.deepEqual(actions.sort(), ['authenticator.enrolled', 'member.invited', 'member.joined'])
  })

  test('a new authenticator goes to the console’s enrolment; ending this session signs out to /console/login', async () => {
    const member = await signedInPlatformMember(app, { role: 'admin' })
    const account = await member.browser.get('/console/account')
    const replaced = await member.browser.post('/console/account/authenticator', {
      csrf: csrfIn(account.text, '/console/account/authenticator'),
      code: await nextTotpCode(member.totpSecret),
    })
    assert.equal(replaced.status, 303)
    assert.equal(replaced.location, '/console/enrol?next=%2Fconsole%2Faccount')
    assert.equal((await member.browser.get('/console/enrol')).status, 200)
    assert.ok((await platformRows(member.email)).some((row) => row.action === 'authenticator.replaced'))

    const other = await signedInPlatformMember(app, { role: 'analyst' })
    const page = await other.browser.get('/console/account')
    const ownId = /data-session="([^"]+)"/.exec(page.text)?.[1] ?? ''
    const ended = await other.browser.post('/console/account/sessions/end', {
      csrf: csrfIn(page.text, '/console/account/sessions/end'),
      sessionId: ownId,
    })
    assert.equal(ended.status, 303)
    assert.equal(ended.location, '/console/login')
    assert.equal((await other.browser.get('/console')).status, 303)
  })
})
