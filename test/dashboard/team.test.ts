import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startApp, type TestApp } from '../support/app.ts'
import { csrfIn, DashboardBrowser, nextTotpCode, signedInMember } from '../support/dashboard.ts'
import { describeEachStore } from '../support/stores.ts'

/** The id a select offers for the member with this email. */
function memberIdIn(html: string, email: string): string {
  const found = new RegExp(`<option value="(mem_[^"]+)"[^>]*>[^<]*${email.replaceAll('.', '\\.')}`).exec(html)
  if (!found?.[1]) throw new Error(`no option for ${email}`)
  return found[1]
}

describeEachStore('dashboard: team, account and audit', (store) => {
  let app: TestApp
  before(async () => {
    app = await startApp(store())
  })
  after(() => app?.close())

  test('an admin invites, changes a role (ending that session), removes a member mid-session; the audit page and CSV show it', {
    timeout: 90_000,
  }, async () => {
    const owner = await signedInMember(app, { role: 'owner' })
    const admin = await signedInMember(app, {
      role: 'admin',
      merchantId: owner.merchantId,
      name: 'Ada <b>Admin</b>',
    })
    const support = await signedInMember(app, { role: 'support', merchantId: owner.merchantId })
    const finance = await signedInMember(app, { role: 'finance', merchantId: owner.merchantId })

    const team = await admin.browser.get('/dashboard/team')
    assert.equal(team.status, 200)
    assert.match(team.text, /Ada &lt;b>Admin&lt;\/b>|Ada &lt;b&gt;Admin&lt;\/b&gt;/)
    assert.doesNotMatch(team.text, /<b>Admin<\/b>/)
    assert.doesNotMatch(team.text, /<option value="owner"/, 'an admin is not offered the owner role')

    const invited = await admin.browser.post('/dashboard/team/invite', {
      csrf: csrfIn(team.text),
      email: 'newcomer@shop.example',
      role: 'developer',
    })
    assert.equal(invited.status, 200, invited.text)
    const url = /data-invitation-url[^>]*>([^<]+)</.exec(invited.text)?.[1] ?? ''
    assert.match(url, /\/dashboard\/invitations\/[A-Za-z0-9_-]{43}$/)
    const again = await admin.browser.get('/dashboard/team')
    assert.doesNotMatch(again.text, /data-invitation-url/, 'the address is shown once')
    assert.match(again.text, /newcomer@shop\.example/)
    const invitationPage = await new DashboardBrowser(app).get(new URL(url).pathname)
    assert.equal(invitationPage.status, 200)
    const invitationId = /name="invitationId" value="(inv_[^"]+)"/.exec(again.text)?.[1] ?? ''
    const revoked = await admin.browser.post('/dashboard/team/invitations/revoke', {
      csrf: admin.csrf,
      invitationId,
    })
    assert.equal(revoked.status, 200, revoked.text)
    assert.doesNotMatch(revoked.text, /newcomer@shop\.example/)
    const unusable = await new DashboardBrowser(app).get(new URL(url).pathname)
    assert.doesNotMatch(unusable.text, /name="password"/)

    const ownerRole = await admin.browser.post('/dashboard/team/role', {
      csrf: admin.csrf,
      memberId: memberIdIn(again.text, support.email),
      role: 'owner',
    })
    assert.equal(ownerRole.status, 400, 'only an owner gives the owner role')

    const changed = await admin.browser.post('/dashboard/team/role', {
      csrf: admin.csrf,
      memberId: memberIdIn(again.text, support.email),
      role: 'finance',
    })
    assert.equal(changed.status, 200, changed.text)
    const afterChange = await support.browser.get('/dashboard/sandbox')
    assert.equal(afterChange.status, 303)
    assert.match(afterChange.location ?? '', /^\/dashboard\/login/)

    const removed = await admin.browser.post('/dashboard/team/remove', {
      csrf: admin.csrf,
      memberId: memberIdIn(again.text, finance.email),
    })
    assert.equal(removed.status, 200, removed.text)
    const afterRemoval = await finance.browser.get('/dashboard/team')
    assert.equal(afterRemoval.status, 303)
    assert.match(afterRemoval.location ?? '', /^\/dashboard\/login/)

    const audit = await owner.browser.get('/dashboard/audit')
    assert.equal(audit.status, 200)
    for (const action of ['member.invited', 'invitation.revoked', 'member.role_changed', 'member.removed'])
      assert.match(audit.text, new RegExp(`data-audit="${action.replace('.', '\\.')}"`))
    assert.match(audit.text, new RegExp(admin.email.replaceAll('.', '\\.')))
    assert.match(audit.text, /{&quot;role&quot;:&quot;support&quot;}/)
    const filtered = await owner.browser.get('/dashboard/audit?action=member.removed')
    assert.equal([...filtered.text.matchAll(/data-audit="/g)].length, 1)

    const csv = await owner.browser.get('/dashboard/audit.csv?action=member.role_changed')
    assert.equal(csv.status, 200)
    assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/)
    const lines = csv.text.trim().split('\r\n')
    assert.equal(lines.length, 2, csv.text)
    assert.match(
      lines[1] ?? '',
      new RegExp(
        `member,${admin.email.replaceAll('.', '\\.')},member\\.role_changed,${support.email.replaceAll('.', '\\.')}`,
      ),
    )
    assert.match(lines[1] ?? '', /"{""role"":""support""}","{""role"":""finance""}"/)
  })

  test("the last owner stays; an admin ends another member's session", { timeout: 60_000 }, async () => {
    const owner = await signedInMember(app, { role: 'owner' })
    const admin = await signedInMember(app, { role: 'admin', merchantId: owner.merchantId })
    const team = await owner.browser.get('/dashboard/team')
    const demoted = await owner.browser.post('/dashboard/team/role', {
      csrf: owner.csrf,
      memberId: memberIdIn(team.text, owner.email),
      role: 'admin',
    })
    assert.equal(demoted.status, 400)
    assert.match(demoted.text, /at least one owner/)
    const removed = await owner.browser.post('/dashboard/team/remove', {
      csrf: owner.csrf,
      memberId: memberIdIn(team.text, owner.email),
    })
    assert.equal(removed.status, 400)
    assert.equal(await app.context.store.members.countOwners(owner.merchantId), 1)

    const ownerId = (await app.context.store.members.findActiveMemberByEmail(owner.email))?.id
    const sessions = await app.context.store.dashboardSessions.listLiveSessions(owner.merchantId, ownerId)
    const ownerSession = sessions.find((session) => session.stage === 'signed-in')
    assert.ok(ownerSession && team.text.includes(`data-session="${ownerSession.id}"`))
    const ended = await admin.browser.post('/dashboard/team/sessions/end', {
      csrf: admin.csrf,
      sessionId: ownerSession.id,
    })
    assert.equal(ended.status, 200, ended.text)
    assert.equal((await owner.browser.get('/dashboard/team')).status, 303)
  })

  test('a viewer sees no forms; a forged POST from a viewer is a 403 that changes nothing', {
    timeout: 60_000,
  }, async () => {
    const owner = await signedInMember(app, { role: 'owner' })
    const viewer = await signedInMember(app, { role: 'viewer', merchantId: owner.merchantId })
    const team = await viewer.browser.get('/dashboard/team')
    assert.equal(team.status, 200)
    assert.match(team.text, new RegExp(owner.email.replaceAll('.', '\\.')))
    assert.doesNotMatch(team.text, /action="\/dashboard\/team\//)
    const ownerRow = await app.context.store.members.findActiveMemberByEmail(owner.email)
    for (const [path, form] of [
      ['/dashboard/team/remove', { memberId: ownerRow?.id ?? '' }],
      ['/dashboard/team/role', { memberId: ownerRow?.id ?? '', role: 'viewer' }],
      ['/dashboard/team/invite', { email: 'sneaky@shop.example', role: 'owner' }],
    ] as const) {
      const forged = await viewer.browser.post(path, { csrf: viewer.csrf, ...form })
      assert.equal(forged.status, 403, path)
    }
    const members = await app.context.store.members.listMembers(owner.merchantId)
    assert.deepEqual(members.map((member) => member.role).sort(), ['owner', 'viewer'])
    assert.equal((await app.context.store.members.listInvitations(owner.merchantId)).length, 2)
    assert.equal((await viewer.browser.get('/dashboard/audit')).status, 200)
  })

  test('a password change ends the other sessions; new recovery codes need a fresh code; the time zone is kept', {
    timeout: 60_000,
  }, async () => {
    const member = await signedInMember(app, { role: 'viewer' })
    const elsewhere = new DashboardBrowser(app)
    const login = await elsewhere.get('/dashboard/login')
    const step = await elsewhere.post('/dashboard/login', {
      csrf: csrfIn(login.text),
      email: member.email,
      password: member.password,
    })
    assert.equal(step.status, 303)

    const account = await member.browser.get('/dashboard/account')
    assert.equal(account.status, 200)
    const short = await member.browser.post('/dashboard/account/password', {
      csrf: member.csrf,
      current: member.password,
      password: 'short',
    })
    assert.equal(short.status, 400)
    const wrong = await member.browser.post('/dashboard/account/password', {
      csrf: member.csrf,
      current: 'not it at all',
      password: 'a brand new passphrase',
    })
    assert.equal(wrong.status, 400)
    const changed = await member.browser.post('/dashboard/account/password', {
      csrf: member.csrf,
      current: member.password,
      password: 'a brand new passphrase',
    })
    assert.equal(changed.status, 200, changed.text)
    const sessions = await app.context.store.dashboardSessions.listLiveSessions(member.merchantId)
    assert.equal(sessions.length, 1, 'only the session that changed it is left')
    assert.equal((await member.browser.get('/dashboard/account')).status, 200)

    const codes = await member.browser.post('/dashboard/account/recovery-codes', {
      csrf: member.csrf,
      code: await nextTotpCode(member.totpSecret),
    })
    assert.equal(codes.status, 200, codes.text)
    const fresh = [...codes.text.matchAll(/<li>([0-9a-z]{4}-[0-9a-z]{4})<\/li>/g)].map((match) => match[1])
    assert.equal(fresh.length, 10)
    assert.notDeepEqual(fresh, member.recoveryCodes)
    const replayed = await member.browser.post('/dashboard/account/recovery-codes', {
      csrf: member.csrf,
      code: await nextTotpCode(member.totpSecret),
    })
    assert.equal(replayed.status, 400, 'a used code is refused')

    const zone = await member.browser.post('/dashboard/account/time-zone', {
      csrf: member.csrf,
      timeZone: 'Europe/Paris',
    })
    assert.equal(zone.status, 200)
    assert.match(zone.text, /<option value="Europe\/Paris" selected/)
    const bad = await member.browser.post('/dashboard/account/time-zone', {
      csrf: member.csrf,
      timeZone: 'Mars/Olympus',
    })
    assert.equal(bad.status, 400)
    const audit = await member.browser.get(`/dashboard/audit?actor=${encodeURIComponent(member.email)}`)
    for (const action of ['password.changed', 'recovery_codes.regenerated', 'time_zone.changed'])
      assert.match(audit.text, new RegExp(`data-audit="${action.replace('.', '\\.')}"`))
  })
})
