import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startApp, type TestApp } from './support/app.ts'
import { runSika } from './support/cli.ts'
import { csrfIn, DashboardBrowser, signedInMember, totpCode } from './support/dashboard.ts'
import { describeEachStore } from './support/stores.ts'

/** A person who opens the printed address in a browser: accepts, enrols, lands signed in. */
async function accept(app: TestApp, invitationUrl: string, password: string) {
  const browser = new DashboardBrowser(app)
  const path = new URL(invitationUrl).pathname
  const form = await browser.get(path)
  assert.equal(form.status, 200, form.text)
  const accepted = await browser.post(path, { csrf: csrfIn(form.text), name: 'Kofi Mensah', password })
  assert.equal(accepted.status, 303, accepted.text)
  const enrolment = await browser.get('/dashboard/enrol')
  const secret = /data-setup-key[^>]*>([A-Z2-7]+)</.exec(enrolment.text)?.[1] ?? ''
  const confirmed = await browser.post('/dashboard/enrol', {
    csrf: csrfIn(enrolment.text),
    code: await totpCode(secret),
  })
  assert.equal(confirmed.status, 200, confirmed.text)
  return browser
}

describeEachStore('sika member', (store) => {
  let app: TestApp
  const sika = (...args: string[]) => runSika(store().databaseUrl, args)
  before(async () => {
    app = await startApp(store())
  })
  after(() => app?.close())

  test('invite prints an invitationUrl a person accepts; list shows them enrolled; the CLI is audited', {
    timeout: 60_000,
  }, async () => {
    const merchant = await app.createMerchant('Boutique')
    const invited = await sika(
      'member',
      'invite',
      merchant.id,
      '--email',
      'Owner@Shop.example',
      '--role',
      'owner',
    )
    assert.equal(invited.code, 0, invited.stderr)
    const url = invited.stdout.trim()
    assert.match(url, /^http.*\/dashboard\/invitations\/[A-Za-z0-9_-]{43}$/)
    const browser = await accept(app, url, 'a long enough password')
    assert.equal((await browser.get('/dashboard/sandbox')).status, 200)

    const json = await sika(
      'member',
      'invite',
      merchant.id,
      '--email',
      'dev@shop.example',
      '--role',
      'developer',
      '--json',
    )
    assert.equal(json.code, 0, json.stderr)
    const issued = JSON.parse(json.stdout)
    assert.deepEqual(Object.keys(issued).sort(), ['email', 'expiresAt', 'invitationUrl', 'role'])
    assert.equal(issued.role, 'developer')
    const hours = (Date.parse(issued.expiresAt) - Date.now()) / 3_600_000
    assert.ok(hours > 71.9 && hours <= 72, `expires in ${hours} h`)

    const listed = await sika('member', 'list', merchant.id, '--json')
    assert.equal(listed.code, 0, listed.stderr)
    const members = JSON.parse(listed.stdout)
    assert.equal(members.length, 1)
    assert.equal(members[0].email, 'owner@shop.example')
    assert.equal(members[0].role, 'owner')
    assert.equal(members[0].enrolled, true)
    assert.equal(members[0].name, 'Kofi Mensah')
    const text = await sika('member', 'list', merchant.id)
    assert.match(text.stdout, /owner@shop\.example\s+owner\s+enrolled/)

    const rows = await app.context.store.auditLog.list(merchant.id, { actor: 'cli', limit: 10 })
    assert.deepEqual(rows.map((row) => row.action).sort(), ['member.invited', 'member.invited'])
  })

  test("remove ends the member's sessions and refuses the last owner", { timeout: 60_000 }, async () => {
    const owner = await signedInMember(app, { role: 'owner' })
    const viewer = await signedInMember(app, { role: 'viewer', merchantId: owner.merchantId })
    const last = await sika('member', 'remove', owner.merchantId, '--email', owner.email)
    assert.equal(last.code, 1)
    assert.match(last.stderr, /last owner/)
    assert.equal((await owner.browser.get('/dashboard/sandbox')).status, 200)

    const removed = await sika('member', 'remove', owner.merchantId, '--email', viewer.email)
    assert.equal(removed.code, 0, removed.stderr)
    const next = await viewer.browser.get('/dashboard/sandbox')
    assert.equal(next.status, 303)
    assert.match(next.location ?? '', /^\/dashboard\/login/)
    const listed = JSON.parse((await sika('member', 'list', owner.merchantId, '--json')).stdout)
    assert.deepEqual(
      listed.map((row: { email: string }) => row.email),
      [owner.email],
    )
    const [row] = await app.context.store.auditLog.list(owner.merchantId, {
      action: 'member.removed',
      limit: 1,
    })
    assert.equal(row?.actorLabel, 'cli')
    assert.equal(row?.target, viewer.email)
  })

  test('reset-totp ends the sessions; the next sign-in with the password goes to the enrolment', {
    timeout: 60_000,
  }, async () => {
    const member = await signedInMember(app, { role: 'finance' })
    const reset = await sika('member', 'reset-totp', member.merchantId, '--email', member.email)
    assert.equal(reset.code, 0, reset.stderr)
    assert.equal((await member.browser.get('/dashboard/sandbox')).status, 303)
    assert.equal(
      await app.context.store.members.countUnusedRecoveryCodes(
        (await app.context.store.members.findActiveMemberByEmail(member.email))?.id ?? '',
      ),
      0,
    )
    const browser = new DashboardBrowser(app)
    const form = await browser.get('/dashboard/login')
    const signedIn = await browser.post('/dashboard/login', {
      csrf: csrfIn(form.text),
      email: member.email,
      password: member.password,
    })
    assert.equal(signedIn.status, 303)
    assert.match(signedIn.location ?? '', /\/dashboard\/enrol/)
  })

  test('usage errors exit 2 before the database is touched; an unknown merchant or member exits 1', async () => {
    const merchant = await app.createMerchant()
    for (const args of [
      ['member', 'invite', merchant.id, '--email', 'x@y.example'],
      ['member', 'invite', merchant.id, '--email', 'x@y.example', '--role', 'boss'],
      ['member', 'invite', merchant.id, '--email', 'not-an-email', '--role', 'viewer'],
      ['member', 'invite', '--email', 'x@y.example', '--role', 'viewer'],
      ['member', 'remove', merchant.id],
      ['member', 'list', merchant.id, 'extra'],
      ['member', 'frobnicate', merchant.id],
      ['member', 'list', merchant.id, '--colour'],
    ]) {
      const result = await sika(...args)
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`)
      assert.match(result.stderr, /Usage: sika/)
    }
    const unknown = await sika('member', 'list', 'mer_nothing')
    assert.equal(unknown.code, 1)
    assert.match(unknown.stderr, /no merchant has id mer_nothing/)
    const nobody = await sika('member', 'reset-totp', merchant.id, '--email', 'nobody@y.example')
    assert.equal(nobody.code, 1)
    for (const words of [['member'], ['member', 'list'], ['member', 'remove'], ['member', 'reset-totp']]) {
      const shown = await sika(...words, '-h')
      assert.equal(shown.code, 0, shown.stderr)
      assert.match(shown.stdout, new RegExp(`^Usage: sika ${words.join(' ')}`))
    }
    const help = await sika('member', 'invite', '--help')
    assert.equal(help.code, 0)
    assert.match(help.stdout, /^Usage: sika member invite MERCHANT_ID --email EMAIL --role ROLE/)
  })
})
