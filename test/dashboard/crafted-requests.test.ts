import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startApp, type TestApp } from '../support/app.ts'
import { csrfIn, DashboardBrowser, nextTotpCode, signedInMember } from '../support/dashboard.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * Issue 50, findings 11 and 12: what the dashboard answers to a request made to learn something or
 * to break it. The invite form never tells one merchant that an email is another merchant's
 * member's; a link's `back=` or `next=` holding CR/LF or a character a header cannot carry, and a
 * refund naming no operation, are answered as any bad input is, never with a 500.
 */

describeEachStore('dashboard: crafted requests', (store) => {
  let app: TestApp
  before(async () => {
    app = await startApp(store())
  })
  after(() => app?.close())

  const wordsOf = (page: string) => /<p class="error" role="alert">([^<]*)</.exec(page)?.[1]
  /** The invite's answer with what differs between two emails (the email, the link's token) taken out. */
  const shapeOf = (page: string, email: string) =>
    page
      .replaceAll(email, '<email>')
      .replace(/\/dashboard\/invitations\/[A-Za-z0-9_-]{43}/g, '<link>')
      .replace(/name="csrf" value="[^"]*"/g, '')
      .replace(/data-session="[^"]*"|value="(inv|ses|mem)_[^"]*"/g, '')
      .replace(/<tr[\s\S]*?<\/tr>/g, '')

  test("the invite form answers an email of another merchant's member as it answers a new email; its own member's email is refused", async () => {
    const elsewhere = await signedInMember(app, { role: 'viewer' })
    const admin = await signedInMember(app, { role: 'admin' })
    const colleague = await signedInMember(app, { role: 'viewer', merchantId: admin.merchantId })
    const invite = async (email: string) => {
      const team = await admin.browser.get('/dashboard/team')
      return admin.browser.post('/dashboard/team/invite', { csrf: csrfIn(team.text), email, role: 'viewer' })
    }
    const fresh = await invite('nobody.yet@shop.example')
    const taken = await invite(elsewhere.email)
    assert.equal(fresh.status, 200, fresh.text)
    assert.equal(taken.status, fresh.status)
    assert.equal(
      shapeOf(taken.text, elsewhere.email),
      shapeOf(fresh.text, 'nobody.yet@shop.example'),
      'the same page',
    )
    const own = await invite(colleague.email)
    assert.equal(own.status, 400)
    assert.equal(wordsOf(own.text), 'A member of your team already has this email.')

    // The invitation cannot make a second member of the email: whoever opens it is told it cannot be used.
    const link = /data-invitation-url[^>]*>([^<]+)</.exec(taken.text)?.[1] ?? ''
    const browser = new DashboardBrowser(app)
    const form = await browser.get(new URL(link).pathname)
    const accepted = await browser.post(new URL(link).pathname, {
      csrf: csrfIn(form.text),
      name: 'Someone',
      password: 'a long enough password',
    })
    assert.equal(accepted.status, 404)
    assert.equal((await elsewhere.browser.get('/dashboard/sandbox')).status, 200, 'the member is untouched')
  })

  test('the language switch: a back= with CR/LF or a character outside Latin-1 goes to the dashboard, never a 500', async () => {
    const browser = new DashboardBrowser(app)
    for (const back of ['/dashboard/sandbox\r\nSet-Cookie: taken=1', '/dashboard/€', '//evil.example']) {
      const answer = await browser.get(`/dashboard/language?lang=fr&back=${encodeURIComponent(back)}`)
      assert.equal(answer.status, 303, JSON.stringify(back))
      assert.equal(answer.location, '/dashboard')
      assert.ok(!answer.headers.getSetCookie().some((line) => line.startsWith('taken=')))
    }
    const kept = await browser.get(
      `/dashboard/language?lang=en&back=${encodeURIComponent('/dashboard/live/operations?q=a%20b')}`,
    )
    assert.equal(kept.location, '/dashboard/live/operations?q=a%20b')
    // A NUL is refused before any page, as everywhere else, with a page of its own: not a 500.
    const nul = await browser.get(
      `/dashboard/language?lang=fr&back=${encodeURIComponent('/dashboard/\u0000')}`,
    )
    assert.equal(nul.status, 422)
  })

  test('a next= with CR/LF planted in the sign-in link: the sign-in goes to the dashboard, never a 500 after the code is spent', async () => {
    const member = await signedInMember(app, { role: 'viewer' })
    const browser = new DashboardBrowser(app, '127.0.6.1')
    const planted = encodeURIComponent('/dashboard/sandbox\r\nSet-Cookie: taken=1')
    const login = await browser.get(`/dashboard/login?next=${planted}`)
    assert.equal(login.status, 200)
    const password = await browser.post('/dashboard/login', {
      csrf: csrfIn(login.text),
      email: member.email,
      password: member.password,
      next: /name="next" value="([^"]*)"/.exec(login.text)?.[1] ?? '',
    })
    assert.equal(password.status, 303, password.text)
    const codePage = await browser.get(password.location ?? '')
    const signedIn = await browser.post('/dashboard/login/code', {
      csrf: csrfIn(codePage.text),
      code: await nextTotpCode(member.totpSecret),
      next: '/dashboard/sandbox\r\nSet-Cookie: taken=1',
    })
    assert.equal(signedIn.status, 303, signedIn.text)
    assert.equal(signedIn.location, '/dashboard/sandbox')
    assert.ok(!signedIn.headers.getSetCookie().some((line) => line.startsWith('taken=')))
  })

  test('a refund naming no operation is the page that says nothing is there (404)', async () => {
    const finance = await signedInMember(app, { role: 'finance' })
    const path = '/dashboard/sandbox/operations/aaaaa-bbbbb-ccccc-ddddd-eeeee/refund'
    const answer = await finance.browser.post(path, { csrf: finance.csrf, amount: '10', reason: 'nothing' })
    assert.equal(answer.status, 404, answer.text)
  })
})
