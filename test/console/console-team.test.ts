import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { recordPlatformChange } from '../../src/app/console/platform-audit.ts'
import { startApp, type TestApp } from '../support/app.ts'
import { signedInPlatformMember } from '../support/console.ts'
import { csrfIn } from '../support/dashboard.ts'
import { describeEachStore } from '../support/stores.ts'

describeEachStore('console: the platform team and its audit log', (store) => {
  let app: TestApp
  before(async () => {
    app = await startApp(store())
  })
  after(() => app?.close())

  const counts = async () => ({
    invitations: (await app.db.selectFrom('platform_invitations').select('id').execute()).length,
    audit: (await app.db.selectFrom('platform_audit_log').select('id').execute()).length,
    members: await app.db
      .selectFrom('platform_members')
      .select(['id', 'role', 'removed_at_us'])
      .orderBy('id')
      .execute(),
    sessions: (
      await app.db.selectFrom('platform_sessions').select('id').where('ended_at_us', 'is', null).execute()
    ).length,
  })

  test('an analyst reads the team without its actions; each forged POST is a 403 that changes nothing', {
    timeout: 90_000,
  }, async () => {
    const admin = await signedInPlatformMember(app, { role: 'admin' })
    const analyst = await signedInPlatformMember(app, { role: 'analyst' })
    const page = await analyst.browser.get('/console/team')
    assert.equal(page.status, 200)
    assert.match(page.text, new RegExp(analyst.email.replace('.', '\\.')))
    assert.doesNotMatch(page.text, /action="\/console\/team\//, 'no action is offered')
    const adminPage = await admin.browser.get('/console/team')
    assert.match(adminPage.text, /action="\/console\/team\/invite"/)

    const csrf = csrfIn(
      page.text.includes('name="csrf"') ? page.text : (await analyst.browser.get('/console')).text,
    )
    const before = await counts()
    const forged: [string, Record<string, string>][] = [
      ['/console/team/invite', { email: 'mole@platform.example', role: 'admin' }],
      [`/console/team/members/${analyst.id}/role`, { role: 'admin' }],
      [`/console/team/members/${admin.id}/remove`, {}],
      [`/console/team/members/${admin.id}/end-sessions`, {}],
    ]
    for (const [path, form] of forged) {
      const answer = await analyst.browser.post(path, { ...form, csrf })
      assert.equal(answer.status, 403, path)
      assert.match(answer.text, /Not allowed/)
    }
    assert.deepEqual(await counts(), before)
  })

  test('an admin invites with a role, changes a role, ends sessions and removes; each change is in the audit log', {
    timeout: 90_000,
  }, async () => {
    const admin = await signedInPlatformMember(app, { role: 'admin' })
    const risk = await signedInPlatformMember(app, { role: 'risk' })
    const invited = await admin.browser.post('/console/team/invite', {
      csrf: admin.csrf,
      email: 'New.Finance@platform.example',
      role: 'finance',
    })
    assert.equal(invited.status, 200, invited.text)
    assert.match(
      invited.text,
      /data-invitation-url="true">http:\/\/sika\.test\/console\/invitations\/[A-Za-z0-9_-]{43}</,
    )

    const changed = await admin.browser.post(`/console/team/members/${risk.id}/role`, {
      csrf: admin.csrf,
      role: 'support',
    })
    assert.equal(changed.status, 200)
    assert.match(changed.text, /role is changed/)
    const ended = await risk.browser.get('/console')
    assert.equal(ended.status, 303, 'a new role ends the member’s sessions')

    const removed = await admin.browser.post(`/console/team/members/${risk.id}/remove`, { csrf: admin.csrf })
    assert.equal(removed.status, 200)
    assert.doesNotMatch(removed.text, new RegExp(`<td>${risk.email.replace('.', '\\.')}</td>`))

    const other = await signedInPlatformMember(app, { role: 'analyst' })
    const endedSessions = await admin.browser.post(`/console/team/members/${other.id}/end-sessions`, {
      csrf: admin.csrf,
    })
    assert.equal(endedSessions.status, 200)
    assert.equal((await other.browser.get('/console')).status, 303)

    const audit = await admin.browser.get('/console/audit')
    assert.equal(audit.status, 200)
    for (const action of ['member.invited', 'member.role_changed', 'member.removed', 'member.sessions_ended'])
      assert.match(audit.text, new RegExp(`<code>${action.replace('.', '\\.')}</code>`), action)
    const rows = await app.db
      .selectFrom('platform_audit_log')
      .selectAll()
      .where('action', '=', 'member.role_changed')
      .where('target', '=', risk.email)
      .execute()
    assert.equal(rows.length, 1)
    assert.equal(rows[0]?.actor_label, admin.email)
    assert.equal(rows[0]?.before_json, '{"role":"risk"}')
    assert.equal(rows[0]?.after_json, '{"role":"support"}')
    assert.ok(rows[0]?.address, 'the address is kept')
  })

  test('the platform keeps at least one admin', { timeout: 90_000 }, async () => {
    const admins = await app.db
      .selectFrom('platform_members')
      .select('id')
      .where('role', '=', 'admin')
      .where('removed_at_us', 'is', null)
      .execute()
    const last = await signedInPlatformMember(app, { role: 'admin' })
    // Every other admin is demoted first, by the last one.
    for (const { id } of admins) {
      const answer = await last.browser.post(`/console/team/members/${id}/role`, {
        csrf: last.csrf,
        role: 'analyst',
      })
      assert.equal(answer.status, 200, answer.text)
    }
    const demoted = await last.browser.post(`/console/team/members/${last.id}/role`, {
      csrf: last.csrf,
      role: 'analyst',
    })
    assert.equal(demoted.status, 422)
    assert.match(demoted.text, /at least one admin/)
    const removed = await last.browser.post(`/console/team/members/${last.id}/remove`, { csrf: last.csrf })
    assert.equal(removed.status, 422)
    const member = await app.db
      .selectFrom('platform_members')
      .selectAll()
      .where('id', '=', last.id)
      .executeTakeFirst()
    assert.equal(member?.role, 'admin')
    assert.equal(member?.removed_at_us, null)
  })

  test('the audit log is paginated, newest first, and shows values as text', {
    timeout: 90_000,
  }, async () => {
    const analyst = await signedInPlatformMember(app, { role: 'analyst' })
    for (let index = 0; index < 60; index++)
      await recordPlatformChange(
        app.context,
        { kind: 'cli' },
        {
          action: 'test.entry',
          target: `<b>entry ${String(index).padStart(2, '0')}</b>`,
        },
      )
    const first = await analyst.browser.get('/console/audit')
    assert.equal(first.status, 200)
    const targets = (html: string) =>
      [...html.matchAll(/&lt;b(?:&gt;|>)entry (\d+)&lt;\/b(?:&gt;|>)/g)].map((match) => Number(match[1]))
    const firstTargets = targets(first.text)
    assert.equal(firstTargets[0], 59, 'newest first')
    assert.ok(!first.text.includes('<b>entry'), 'escaped')
    const next = /href="(\/console\/audit\?after=[^"]+)"/.exec(first.text)?.[1]
    assert.ok(next, 'a link to older entries')
    const second = await analyst.browser.get(next.replaceAll('&amp;', '&'))
    assert.equal(second.status, 200)
    const all = [...firstTargets, ...targets(second.text)]
    assert.ok(all.includes(0), 'the oldest entry is on a later page')
    assert.deepEqual(
      all,
      [...all].sort((a, b) => b - a),
      'in order across pages',
    )
    assert.equal(new Set(all).size, all.length, 'no entry twice')
  })
})
