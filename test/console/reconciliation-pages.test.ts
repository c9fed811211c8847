import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { render } from 'preact-render-to-string'
import { reconciliationSummary } from '../../src/app/console/reconciliation-console.ts'
import type { ConsolePage } from '../../src/http/console/layout.tsx'
import { ReconciliationOverview } from '../../src/http/console/reconciliation-summary.tsx'
import { startPawapaySimulator } from '../../src/simulators/pawapay/pawapay-simulator.ts'
import type { RunningSimulator } from '../../src/simulators/simulator.ts'
import type { ApiClient, TestApp } from '../support/app.ts'
import { signedInPlatformMember } from '../support/console.ts'
import { csrfIn, nextTotpCode } from '../support/dashboard.ts'
import { type LiveApp, operatorReferenceOf, settledRecord, startLiveApp } from '../support/live.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * The console's reconciliation pages (CONTRACT.md, Reconciliation and Platform console): a finance
 * member runs a day through the pawaPay simulator from the console; the runs page shows it with
 * its breaks by kind and a CSV of them; the break queue filters and pages; an analyst's forged
 * decision is a 403 that changes nothing; a large break waits for a second finance member's fresh
 * code, and the member who asked cannot approve it.
 */

const connection = 'moov-money-bj'
const today = () => new Date().toISOString().slice(0, 10)

describeEachStore('console: reconciliation pages', (store) => {
  let simulator: RunningSimulator
  let running: LiveApp
  let app: TestApp
  let live: ApiClient
  let sequence = 0

  before(async () => {
    running = await startLiveApp(store(), async (publicBaseUrl) => {
      const notifications = `${publicBaseUrl}/providers/pawapay/notifications`
      simulator = await startPawapaySimulator({
        settleDelayMs: 50,
        statementDelayMs: 100,
        depositCallbackUrl: notifications,
        payoutCallbackUrl: notifications,
        refundCallbackUrl: notifications,
      })
      return [{ simulator, channel: 'moov-money', countries: ['BJ'] }]
    })
    ;({ app, live } = running)
  })
  after(() => running?.close())

  const control = async (body: unknown) => {
    const answer = await fetch(`${simulator.url}/_simulator/books/breaks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    assert.ok(answer.ok, await answer.text())
  }

  async function collect() {
    const response = await live.post('/api/v1/collect', {
      amount: 5000 + sequence,
      channel: 'moov-money',
      country: 'BJ',
      customer: { phoneNumber: '+2290197000120' },
      merchantReference: `console-collect-${sequence++}`,
      callbackUrl: 'https://merchant.example/callback',
    })
    assert.equal(response.status, 200, response.text)
    const { token } = response.body.data.collect
    assert.equal((await settledRecord(running, 'collect', token, 10_000)).status, 'succeeded')
    return { token, reference: await operatorReferenceOf(app, token) }
  }

  const breakIdsOf = (html: string) =>
    [...html.matchAll(/href="\/console\/reconciliation\/breaks\/(brk_[A-Za-z0-9_-]+)"/g)].map(
      (match) => match[1],
    )

  let finance: Awaited<ReturnType<typeof signedInPlatformMember>>
  const large = { id: '' }
  const small = { id: '' }

  test('a finance member runs a day by hand: the run, its breaks by kind, and a CSV of them', {
    timeout: 90_000,
  }, async () => {
    finance = await signedInPlatformMember(app, { role: 'finance' })
    await collect()
    const missing = await collect()
    await control({ kind: 'missing-line', payment: missing.reference })
    await control({ kind: 'unknown-line', amount: '700', provider: 'MOOV_BEN' })
    await control({ kind: 'unknown-line', amount: '150000', provider: 'MOOV_BEN' })

    const page = await finance.browser.get('/console/reconciliation')
    assert.equal(page.status, 200)
    assert.match(page.text, /action="\/console\/reconciliation\/run"/)
    const ran = await finance.browser.post('/console/reconciliation/run', {
      csrf: csrfIn(page.text, '/console/reconciliation/run'),
      connection,
      day: today(),
    })
    assert.equal(ran.status, 200, ran.text)
    assert.match(ran.text, new RegExp(`The run of ${connection} for ${today()} is Completed: 3 break`))
    assert.match(ran.text, /Missing in Sika: 2</)
    assert.match(ran.text, /Missing at the operator: 1</)

    const csv = await finance.browser.get(`/console/reconciliation/runs/${connection}/${today()}/breaks.csv`)
    assert.equal(csv.status, 200)
    assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/)
    const lines = csv.text.trim().split('\r\n')
    assert.equal(
      lines[0],
      'id,connection,day,kind,state,token,operatorReference,amount,currency,detail,foundAt,reason',
    )
    assert.equal(lines.length, 4)
    assert.ok(
      lines.some((line) => line.includes(',missing_at_operator,') && line.includes(missing.token)),
      csv.text,
    )

    const audit = await app.db
      .selectFrom('platform_audit_log')
      .selectAll()
      .where('action', '=', 'reconciliation.run')
      .execute()
    assert.equal(audit.length, 1)
    assert.equal(audit[0]?.actor_label, finance.email)
    const rows = await app.db
      .selectFrom('reconciliation_breaks')
      .select(['id', 'amount_minor'])
      .where('kind', '=', 'missing_in_sika')
      .execute()
    large.id = rows.find((row) => Number(row.amount_minor) === 150_000)?.id ?? ''
    small.id = rows.find((row) => Number(row.amount_minor) === 700)?.id ?? ''
    assert.ok(large.id && small.id)
  })

  test('the break queue filters by connection, kind, state and age, and pages', {
    timeout: 60_000,
  }, async () => {
    const analyst = await signedInPlatformMember(app, { role: 'analyst' })
    const ids = async (query: string) => {
      const answer = await analyst.browser.get(`/console/reconciliation/breaks${query}`)
      assert.equal(answer.status, 200, query)
      return breakIdsOf(answer.text)
    }
    assert.equal((await ids('')).length, 3)
    assert.equal((await ids('?kind=missing_in_sika')).length, 2)
    assert.equal((await ids(`?connection=${connection}&kind=missing_at_operator`)).length, 1)
    assert.equal((await ids('?connection=no-such-connection')).length, 0)
    assert.equal((await ids('?state=open')).length, 2)
    assert.equal(
      (await ids('?state=auto_resolved&kind=missing_at_operator')).length,
      1,
      'proven by its status',
    )
    assert.equal((await ids('?state=resolved')).length, 0)
    assert.equal((await ids('?age=1')).length, 0, 'none was found more than a day ago')

    // Sixty breaks of an older day, found 40 days ago: two pages of the queue.
    const fortyDaysAgoUs = app.context.clock.nowUs() - 40 * 86_400_000_000
    await app.context.store.reconciliation.recordBreaks(
      connection,
      '2026-01-02',
      Array.from({ length: 60 }, (_, index) => ({
        kind: 'missing_in_sika',
        reference: `old-${String(index).padStart(2, '0')}`,
        operationId: null,
        token: null,
        role: null,
        operatorReference: `old-${index}`,
        amountMinor: 100 + index,
        currency: 'XOF',
        detail: 'an old line',
        lines: '[]',
      })),
      fortyDaysAgoUs,
    )
    const old = await analyst.browser.get('/console/reconciliation/breaks?age=30')
    assert.match(old.text, /60 break\(s\) match/)
    assert.equal(breakIdsOf(old.text).length, 50)
    assert.match(old.text, /Page 1 of 2/)
    const next = /href="(\/console\/reconciliation\/breaks\?age=30&(?:amp;)?page=2)"/.exec(old.text)?.[1]
    assert.ok(next, 'a link to the next page')
    const second = await analyst.browser.get(next.replaceAll('&amp;', '&'))
    const secondIds = breakIdsOf(second.text)
    assert.equal(secondIds.length, 10)
    assert.equal(new Set([...breakIdsOf(old.text), ...secondIds]).size, 60, 'no break on both pages')
    assert.equal((await ids('?kind=missing_in_sika')).length, 50, 'the first page of 62')

    // A cell a spreadsheet would read as a formula is written as text, as every export does.
    await app.context.store.reconciliation.recordBreaks(
      connection,
      '2026-01-03',
      [
        {
          kind: 'missing_in_sika',
          reference: 'formula',
          operationId: null,
          token: null,
          role: null,
          operatorReference: '=HYPERLINK("http://evil.example","x")',
          amountMinor: 1250,
          currency: 'XOF',
          detail: '@SUM(1+1)',
          lines: '[]',
        },
      ],
      fortyDaysAgoUs,
    )
    const csv = await analyst.browser.get(`/console/reconciliation/runs/${connection}/2026-01-03/breaks.csv`)
    assert.equal(csv.status, 200)
    const [, line] = csv.text.trim().split('\r\n')
    assert.match(line ?? '', /,"'=HYPERLINK\(""http:\/\/evil\.example"",""x""\)",1250,XOF,'@SUM\(1\+1\),/)
  })

  test('a break shows both sides; an analyst sees no form, and a forged decision is a 403 that changes nothing', {
    timeout: 60_000,
  }, async () => {
    const analyst = await signedInPlatformMember(app, { role: 'analyst' })
    const [missingAtOperator] = await app.db
      .selectFrom('reconciliation_breaks')
      .select(['id', 'token'])
      .where('kind', '=', 'missing_at_operator')
      .execute()
    const page = await analyst.browser.get(`/console/reconciliation/breaks/${missingAtOperator?.id}`)
    assert.equal(page.status, 200)
    assert.match(page.text, new RegExp(`href="/console/operations/${missingAtOperator?.token}"`))
    assert.match(page.text, /The operator lists no line for this side\./)
    assert.doesNotMatch(page.text, /action="\/console\/reconciliation\//)
    const strangerPage = await analyst.browser.get(`/console/reconciliation/breaks/${small.id}`)
    assert.match(strangerPage.text, /Sika has no operation for this line\./)
    assert.match(strangerPage.text, /MOOV_BEN/, 'the operator’s line as received')

    const before = await app.db
      .selectFrom('reconciliation_breaks')
      .selectAll()
      .where('id', '=', small.id)
      .execute()
    const auditBefore = (await app.db.selectFrom('platform_audit_log').select('id').execute()).length
    const csrf = csrfIn(page.text)
    for (const [path, form] of [
      [`/console/reconciliation/breaks/${small.id}/decide`, { decision: 'ignored', reason: 'forged' }],
      [`/console/reconciliation/breaks/${small.id}/approve`, { code: '123456' }],
      ['/console/reconciliation/run', { connection, day: today() }],
    ] as const) {
      const answer = await analyst.browser.post(path, { ...form, csrf })
      assert.equal(answer.status, 403, path)
    }
    assert.deepEqual(
      await app.db.selectFrom('reconciliation_breaks').selectAll().where('id', '=', small.id).execute(),
      before,
    )
    assert.equal((await app.db.selectFrom('platform_audit_log').select('id').execute()).length, auditBefore)
  })

  test('a small break is resolved at once; a large one waits for a second finance member’s fresh code', {
    timeout: 90_000,
  }, async () => {
    const csrfOf = async (member: typeof finance, id: string) =>
      csrfIn((await member.browser.get(`/console/reconciliation/breaks/${id}`)).text)
    const noReason = await finance.browser.post(`/console/reconciliation/breaks/${small.id}/decide`, {
      csrf: await csrfOf(finance, small.id),
      decision: 'ignored',
      reason: '  ',
    })
    assert.equal(noReason.status, 422)
    assert.match(noReason.text, /Give a reason/)
    const ignored = await finance.browser.post(`/console/reconciliation/breaks/${small.id}/decide`, {
      csrf: await csrfOf(finance, small.id),
      decision: 'ignored',
      reason: 'A test line of the operator',
    })
    assert.equal(ignored.status, 200, ignored.text)
    assert.match(ignored.text, /The break is Ignored\./)

    const asked = await finance.browser.post(`/console/reconciliation/breaks/${large.id}/decide`, {
      csrf: await csrfOf(finance, large.id),
      decision: 'resolved',
      reason: 'Refunded by the operator on the 3rd',
    })
    assert.equal(asked.status, 200, asked.text)
    assert.match(asked.text, /waits for a second finance member/)
    assert.match(asked.text, /You asked for this decision/)
    assert.doesNotMatch(asked.text, /\/approve"/, 'no approval form for the member who asked')
    const own = await finance.browser.post(`/console/reconciliation/breaks/${large.id}/approve`, {
      csrf: await csrfOf(finance, large.id),
      code: await nextTotpCode(finance.totpSecret),
    })
    assert.equal(own.status, 422)
    assert.match(own.text, /another finance member approves it/)

    const second = await signedInPlatformMember(app, { role: 'finance' })
    const secondPage = await second.browser.get(`/console/reconciliation/breaks/${large.id}`)
    assert.match(secondPage.text, /action="\/console\/reconciliation\/breaks\/brk_[^"]+\/approve"/)
    const wrong = await second.browser.post(`/console/reconciliation/breaks/${large.id}/approve`, {
      csrf: csrfIn(secondPage.text),
      code: '000000',
    })
    assert.equal(wrong.status, 422)
    const attempts = await app.db.selectFrom('secret_attempts').selectAll().execute()
    assert.ok(
      attempts.some((row) => JSON.stringify(row).includes(second.id)),
      'the wrong code is counted with the member’s attempts',
    )
    const approved = await second.browser.post(`/console/reconciliation/breaks/${large.id}/approve`, {
      csrf: csrfIn(secondPage.text),
      code: await nextTotpCode(second.totpSecret),
    })
    assert.equal(approved.status, 200, approved.text)
    assert.match(approved.text, /The break is Resolved\./)
    const row = await app.db
      .selectFrom('reconciliation_breaks')
      .selectAll()
      .where('id', '=', large.id)
      .executeTakeFirstOrThrow()
    assert.equal(row.state, 'resolved')
    assert.equal(row.reason, 'Refunded by the operator on the 3rd')
    assert.equal(row.pending_approval, null)
    const actions = (
      await app.db.selectFrom('platform_audit_log').select(['action', 'actor_label', 'target']).execute()
    ).filter((entry) => entry.target === large.id || entry.target === small.id)
    assert.deepEqual(actions.map((entry) => `${entry.action} ${entry.actor_label}`).sort(), [
      `reconciliation.approval_asked ${finance.email}`,
      `reconciliation.break_approved ${second.email}`,
      `reconciliation.break_ignored ${finance.email}`,
    ])
  })
  test('wrong codes for an approval lock the member out as at sign-in: the session ends, the sign-in page says why', {
    timeout: 60_000,
  }, async () => {
    // A connection of its own: the overview's counts below stay the day's.
    await app.context.store.reconciliation.recordBreaks(
      'locked-conn',
      '2026-01-06',
      [
        {
          kind: 'missing_in_sika',
          reference: 'locked-approval',
          operationId: null,
          token: null,
          role: null,
          operatorReference: 'locked-approval',
          amountMinor: 900_000,
          currency: 'XOF',
          detail: 'a large line',
          lines: '[]',
        },
      ],
      app.context.clock.nowUs(),
    )
    const [waiting] = await app.context.store.reconciliation.listBreaks({
      connectionId: 'locked-conn',
      day: '2026-01-06',
    })
    assert.ok(waiting)
    const asked = await finance.browser.post(`/console/reconciliation/breaks/${waiting.id}/decide`, {
      csrf: csrfIn((await finance.browser.get(`/console/reconciliation/breaks/${waiting.id}`)).text),
      decision: 'ignored',
      reason: 'A treasury top-up',
    })
    assert.match(asked.text, /waits for a second finance member/)
    const approver = await signedInPlatformMember(app, { role: 'finance' })
    const csrf = csrfIn((await approver.browser.get(`/console/reconciliation/breaks/${waiting.id}`)).text)
    const statuses: number[] = []
    let last = ''
    for (let attempt = 0; attempt < 5; attempt++) {
      const wrong = await approver.browser.post(`/console/reconciliation/breaks/${waiting.id}/approve`, {
        csrf,
        code: '000000',
      })
      statuses.push(wrong.status)
      last = wrong.text
    }
    assert.deepEqual(statuses, [422, 422, 422, 422, 429])
    assert.match(last, /action="\/console\/login/, 'the sign-in page')
    const after = await approver.browser.get('/console/reconciliation')
    assert.notEqual(after.status, 200, 'the session has ended')
    assert.equal((await app.context.store.reconciliation.findBreak(waiting.id))?.state, 'open')
  })
  test('the overview’s section shows the open breaks by kind and each connection’s last completed run', async () => {
    const summary = await reconciliationSummary(app.context)
    assert.deepEqual(
      summary.openBreaks.filter((row) => row.connectionId === connection).map((row) => [row.kind, row.count]),
      [['missing_in_sika', 61]],
    )
    assert.deepEqual(
      summary.lastCompleted.map((run) => [run.connectionId, run.day]),
      [[connection, today()]],
    )
    const page = { locale: 'fr', path: '/console', t: {} } as unknown as ConsolePage
    const html = render(ReconciliationOverview({ page, summary }))
    assert.match(html, /Absent de Sika/)
    assert.match(
      html,
      /href="\/console\/reconciliation\/breaks\?connection=moov-money-bj&amp;kind=missing_in_sika&amp;state=open">61</,
    )
  })
})
