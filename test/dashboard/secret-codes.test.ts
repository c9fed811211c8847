import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startApp, type TestApp } from '../support/app.ts'
import {
  csrfIn,
  type DashboardAnswer,
  DashboardBrowser,
  nextTotpCode,
  type SignedInMember,
  signedInMember,
} from '../support/dashboard.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * Issue 50, findings 7 and 8 (CONTRACT.md, Dashboard: "Five failures for one account lock it for
 * 15 minutes"). Every form that checks a member's password or code counts in one row per member,
 * and an attempt is claimed before its secret is checked, in the statement that checks the limit:
 * - at sign-in, 39 wrong passwords at once let the right one in after them; 40 codes at once at
 *   the code step checked far more than five;
 * - with a copied session cookie, the batch approval's code, the new authenticator's and the
 *   recovery codes' were guessed without limit (3,000 approval codes, then the right one
 *   approved; 300 guesses enrolled the attacker's own authenticator).
 * Now at most five are checked, the fifth wrong one locks the member and ends the session that
 * tried it, and the right secret sent afterwards changes nothing.
 */

const header = 'amount,channel,country,phoneNumber,fullName,merchantReference'
const wordsOf = (page: string) => /<p class="error" role="alert">([^<]*)</.exec(page)?.[1]
const lockWords = 'Too many failed attempts: signing in is locked for 15 minutes. Try again later.'

function tally(statuses: readonly number[]): string {
  const counts = new Map<number, number>()
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1)
  return [...counts]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${count} × ${status}`)
    .join(', ')
}

describeEachStore('dashboard: every secret code is counted', (store) => {
  let app: TestApp
  before(async () => {
    app = await startApp(store())
  })
  after(() => app?.close())

  /** The password step from a browser of its own address; answers the page after it. */
  async function passwordStep(browser: DashboardBrowser, email: string, password: string) {
    const form = await browser.get('/dashboard/login')
    return browser.post('/dashboard/login', { csrf: csrfIn(form.text), email, password })
  }

  /** A session copied from the member's browser: the cookie an attacker took. */
  function copiedSession(member: SignedInMember): DashboardBrowser {
    const attacker = new DashboardBrowser(app)
    for (const [name, value] of member.browser.cookies) attacker.cookies.set(name, value)
    return attacker
  }

  async function signedOut(member: SignedInMember): Promise<boolean> {
    const home = await member.browser.get('/dashboard/sandbox')
    return home.status === 303 && (home.location ?? '').startsWith('/dashboard/login')
  }

  test('39 wrong passwords at once from 39 addresses and the right one 40th: at most five are checked, the right one is refused', async (t) => {
    const member = await signedInMember(app, { role: 'viewer' })
    const browsers = Array.from({ length: 40 }, (_, n) => new DashboardBrowser(app, `127.0.3.${n + 1}`))
    const forms = await Promise.all(browsers.map((browser) => browser.get('/dashboard/login')))
    const answers = await Promise.all(
      browsers.map((browser, n) =>
        browser.post('/dashboard/login', {
          csrf: csrfIn(forms[n]?.text ?? ''),
          email: member.email,
          password: n === 39 ? member.password : `wrong ${n}`,
        }),
      ),
    )
    const statuses = answers.map((answer) => answer.status)
    const right = answers[39]
    t.diagnostic(
      `39 wrong passwords at once answered ${tally(statuses.slice(0, 39))}; the right one ${right?.status}`,
    )
    assert.ok(
      statuses.slice(0, 39).every((status) => status === 401 || status === 429 || status === 503),
      'each wrong one is refused',
    )
    assert.ok(
      statuses.filter((status) => status === 401).length <= 4,
      'at most five checked, the fifth locks',
    )
    assert.ok(right?.status === 429 || right?.status === 503, 'the right password, 40th, is refused')
    const after = await passwordStep(new DashboardBrowser(app, '127.0.3.100'), member.email, member.password)
    assert.equal(after.status, 429, 'the member is locked')
    assert.equal(wordsOf(after.text), lockWords)
  })

  test('40 codes at once at the code step with the right one 10th, 15th, 20th or 25th: at most five are checked, the right one never signs in', async (t) => {
    for (const position of [10, 15, 20, 25]) {
      const member = await signedInMember(app, { role: 'viewer' })
      const browser = new DashboardBrowser(app, `127.0.4.${position}`)
      assert.equal((await passwordStep(browser, member.email, member.password)).status, 303)
      const codePage = await browser.get('/dashboard/login/code')
      const csrf = csrfIn(codePage.text)
      const right = await nextTotpCode(member.totpSecret)
      const codes = Array.from({ length: 40 }, (_, n) =>
        n === position - 1 ? right : String((Number(right) + 1 + n) % 1_000_000).padStart(6, '0'),
      )
      // The codes before the right one go at once, then the right one at once with the rest: on a
      // loaded machine requests sent together arrive in any order, and a right code that arrives
      // among the first five is rightly checked.
      const send = (some: string[]) =>
        Promise.all(some.map((code) => browser.post('/dashboard/login/code', { csrf, code })))
      const answers = [
        ...(await send(codes.slice(0, position - 1))),
        ...(await send(codes.slice(position - 1))),
      ]
      const statuses = answers.map((answer) => answer.status)
      t.diagnostic(`40 codes at once, the right one ${position}th: ${tally(statuses)}`)
      assert.ok(
        statuses.filter((status) => status === 401).length <= 4,
        'at most five checked, the fifth locks',
      )
      const signedIn = answers.filter((answer) => answer.location === '/dashboard/sandbox')
      assert.equal(signedIn.length, 0, `the right code, ${position}th, did not sign in`)
      const again = await passwordStep(
        new DashboardBrowser(app, '127.0.4.200'),
        member.email,
        member.password,
      )
      assert.equal(again.status, 429, 'the member is locked')
    }
  })

  /** A batch a finance member made, awaiting a second member's approval: its page's path. */
  async function batchAwaitingApproval(merchantId: string): Promise<string> {
    const creator = await signedInMember(app, { role: 'finance', merchantId })
    const page = await creator.browser.get('/dashboard/sandbox/payout-batches')
    const csv = [header, '1000,orange-money,CI,+2250700000001,Awa Diop,guessed-1'].join('\n')
    const preview = await creator.browser.postMultipart(
      '/dashboard/sandbox/payout-batches/preview',
      { csrf: csrfIn(page.text, '/dashboard/sandbox/payout-batches/preview'), reference: 'guessed' },
      { file: { name: 'batch.csv', text: csv } },
    )
    assert.equal(preview.status, 200, preview.text)
    const submitted = await creator.browser.postMultipart('/dashboard/sandbox/payout-batches', {
      csrf: csrfIn(preview.text, '/dashboard/sandbox/payout-batches'),
      csv: /name="csv" value="([^"]*)"/.exec(preview.text)?.[1] ?? '',
      reference: 'guessed',
    })
    assert.equal(submitted.status, 303, submitted.text)
    return submitted.location?.split('?')[0] ?? ''
  }

  const batchStatus = async (path: string) => {
    const token = path.split('/').at(-1) ?? ''
    const row = await app.db
      .selectFrom('payout_batches')
      .select('status')
      .where('token', '=', token)
      .executeTakeFirst()
    return row?.status
  }

  test('30 wrong approval codes at once from a copied session, then the right one: five are checked, the session ends, nothing is approved', async (t) => {
    const approver = await signedInMember(app, { role: 'admin' })
    const path = await batchAwaitingApproval(approver.merchantId)
    const attacker = copiedSession(approver)
    const seen = await attacker.get(path)
    const csrf = csrfIn(seen.text, `${path}/approve`)
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, n) =>
        attacker.post(`${path}/approve`, { csrf, code: String(100_000 + n) }),
      ),
    )
    const right = await attacker.post(`${path}/approve`, {
      csrf,
      code: await nextTotpCode(approver.totpSecret),
    })
    t.diagnostic(`30 wrong approval codes at once answered ${tally(answers.map((answer) => answer.status))}`)
    assert.ok(answers.filter((answer) => answer.status === 422).length <= 4, 'at most five checked')
    assert.ok(answers.some((answer) => answer.status === 429 && wordsOf(answer.text) === lockWords))
    assert.equal(right.status, 303)
    assert.match(right.location ?? '', /^\/dashboard\/login/, 'the session has ended')
    assert.equal(await batchStatus(path), 'awaiting_approval')
    assert.ok(await signedOut(approver), "the member's browser holds the same, ended session")
  })

  /** Each form that asks a signed-in member for a secret: its path, a wrong and the right secret, and what the right one would change. */
  const forms: {
    name: string
    path: string
    wrong: (n: number) => Record<string, string>
    right: (member: SignedInMember) => Promise<Record<string, string>>
    unchanged: (member: SignedInMember) => Promise<unknown>
  }[] = [
    {
      name: 'the new authenticator',
      path: '/dashboard/account/authenticator',
      wrong: (n) => ({ code: String(200_000 + n) }),
      right: async (member) => ({ code: await nextTotpCode(member.totpSecret) }),
      unchanged: (member) => memberColumn(member, 'totp_sealed'),
    },
    {
      name: 'new recovery codes',
      path: '/dashboard/account/recovery-codes',
      wrong: (n) => ({ code: String(300_000 + n) }),
      right: async (member) => ({ code: await nextTotpCode(member.totpSecret) }),
      unchanged: async (member) => {
        const id = await memberColumn(member, 'id')
        const rows = await app.db
          .selectFrom('member_recovery_codes')
          .select('code_hash')
          .where('member_id', '=', String(id))
          .orderBy('code_hash')
          .execute()
        return rows.map((row) => row.code_hash)
      },
    },
    {
      name: 'a new password',
      path: '/dashboard/account/password',
      wrong: (n) => ({ current: `not the password ${n}`, password: 'a brand new long password' }),
      right: async (member) => ({ current: member.password, password: 'a brand new long password' }),
      unchanged: (member) => memberColumn(member, 'password_hash'),
    },
  ]

  async function memberColumn(member: SignedInMember, column: 'id' | 'totp_sealed' | 'password_hash') {
    const row = await app.db
      .selectFrom('members')
      .select(column)
      .where('email', '=', member.email)
      .executeTakeFirstOrThrow()
    return (row as Record<string, unknown>)[column]
  }

  for (const form of forms) {
    test(`${form.name} from a copied session: the fifth wrong secret locks the member and ends the session; the right one then changes nothing`, async () => {
      const member = await signedInMember(app, { role: 'viewer' })
      const before = await form.unchanged(member)
      const attacker = copiedSession(member)
      const account = await attacker.get('/dashboard/account')
      const csrf = csrfIn(account.text, form.path)
      const answers: DashboardAnswer[] = []
      for (let n = 0; n < 5; n++) answers.push(await attacker.post(form.path, { csrf, ...form.wrong(n) }))
      assert.deepEqual(
        answers.map((answer) => answer.status),
        [400, 400, 400, 400, 429],
      )
      assert.equal(wordsOf(answers[4]?.text ?? ''), lockWords)
      const right = await attacker.post(form.path, { csrf, ...(await form.right(member)) })
      assert.equal(right.status, 303)
      assert.match(right.location ?? '', /^\/dashboard\/login/, 'the session has ended')
      assert.deepEqual(await form.unchanged(member), before)
      assert.ok(await signedOut(member))
      const signIn = await passwordStep(new DashboardBrowser(app, '127.0.5.1'), member.email, member.password)
      assert.equal(signIn.status, 429, 'locked as a sign-in locks')
    })
  }

  test('one count per member: three wrong approval codes and two wrong sign-in codes lock', async () => {
    const approver = await signedInMember(app, { role: 'finance' })
    const path = await batchAwaitingApproval(approver.merchantId)
    const seen = await approver.browser.get(path)
    const csrf = csrfIn(seen.text, `${path}/approve`)
    for (const code of ['111111', '222222', '333333'])
      assert.equal((await approver.browser.post(`${path}/approve`, { csrf, code })).status, 422)
    const browser = new DashboardBrowser(app, '127.0.5.2')
    assert.equal((await passwordStep(browser, approver.email, approver.password)).status, 303)
    const codePage = await browser.get('/dashboard/login/code')
    const codeCsrf = csrfIn(codePage.text)
    assert.equal(
      (await browser.post('/dashboard/login/code', { csrf: codeCsrf, code: '444444' })).status,
      401,
    )
    const fifth = await browser.post('/dashboard/login/code', { csrf: codeCsrf, code: '555555' })
    assert.equal(fifth.status, 429)
    assert.equal(wordsOf(fifth.text), lockWords)
  })

  test('a right code or password gives its attempt back: a member who types the code right each time is never locked', async () => {
    const member = await signedInMember(app, { role: 'viewer' })
    for (let n = 0; n < 6; n++) {
      const browser = new DashboardBrowser(app, '127.0.5.3')
      assert.equal(
        (await passwordStep(browser, member.email, member.password)).status,
        303,
        `sign-in ${n + 1}`,
      )
    }
  })
})
