import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startMtnMomoSimulator } from '../../src/simulators/mtn-momo/mtn-momo-simulator.ts'
import type { RunningSimulator } from '../../src/simulators/simulator.ts'
import type { ApiClient, TestApp } from '../support/app.ts'
import { type SignedInPlatformMember, signedInPlatformMember } from '../support/console.ts'
import { csrfIn } from '../support/dashboard.ts'
import { controlSimulator, type LiveApp, settledRecord, startLiveApp } from '../support/live.ts'
import { describeEachStore } from '../support/stores.ts'
import { boundary, multipartBody, postWithoutTheBody, uploadBytes } from '../support/uploads.ts'

/**
 * CONTRACT.md, Reconciliation: a portal export is imported "by `sika reconcile import` or an
 * upload in the console". A finance member uploads the MTN MoMo simulator's export on the
 * reconciliation page; it is kept byte for byte as the CLI keeps it, written to the platform audit
 * log, and the day's run then finds its breaks. A file that cannot be read, a bad column mapping,
 * a forged form or a member without the permission change nothing.
 */

const connection = 'mtn-momo-ci'
const today = () => new Date().toISOString().slice(0, 10)

describeEachStore('console: importing a portal export', (store) => {
  let mtn: RunningSimulator
  let running: LiveApp
  let app: TestApp
  let live: ApiClient
  let finance: SignedInPlatformMember

  before(async () => {
    running = await startLiveApp(store(), async () => {
      mtn = await startMtnMomoSimulator({ settleDelayMs: 50, currencies: ['XOF'] })
      return [{ simulator: mtn, channel: 'mtn-momo', countries: ['CI'] }]
    })
    ;({ app, live } = running)
    finance = await signedInPlatformMember(app, { role: 'finance' })
  })
  after(() => running?.close())

  const keptFiles = async () =>
    (await app.context.store.reconciliation.files(connection, today(), 'import')).length
  const auditRows = async () =>
    (await app.db.selectFrom('platform_audit_log').select('action').execute()).filter(
      (row) => row.action === 'reconciliation.import',
    ).length

  async function upload(member: SignedInPlatformMember, text: string, fields: Record<string, string> = {}) {
    const form = await member.browser.get('/console/reconciliation')
    return member.browser.postMultipart(
      '/console/reconciliation/import',
      { csrf: csrfIn(form.text), connection, ...fields },
      { file: { name: 'momo-export.csv', text } },
    )
  }

  test('a finance member uploads the export; the run of its day finds its breaks', async () => {
    const page = await finance.browser.get('/console/reconciliation')
    assert.match(
      page.text,
      /<form method="post" action="\/console\/reconciliation\/import" enctype="multipart\/form-data"/,
    )
    const paid = await live.post('/api/v1/collect', {
      amount: 2500,
      channel: 'mtn-momo',
      country: 'CI',
      customer: { phoneNumber: '+2250500000120' },
      merchantReference: 'import-1',
      callbackUrl: 'https://merchant.example/callback',
    })
    const { token } = paid.body.data.collect
    assert.equal((await settledRecord(running, 'collect', token, 10_000)).status, 'succeeded')
    await controlSimulator(mtn, 'books/breaks', {
      kind: 'unknown-line',
      account: 'collection',
      amount: '700',
    })
    const exported = await (
      await fetch(`${mtn.url}/_simulator/books/export?account=collection&date=${today()}`)
    ).text()

    const answer = await upload(finance, exported)
    assert.equal(answer.status, 200, answer.text)
    assert.match(answer.text, new RegExp(`2 line\\(s\\) imported for ${connection} on ${today()}`))
    assert.equal(await keptFiles(), 1)
    const [kept] = await app.context.store.reconciliation.files(connection, today(), 'import')
    assert.equal(Buffer.from(kept!.bytes).toString('utf8'), exported, 'kept byte for byte')
    const audit = await app.db
      .selectFrom('platform_audit_log')
      .selectAll()
      .where('action', '=', 'reconciliation.import')
      .executeTakeFirstOrThrow()
    assert.equal(audit.actor_label, finance.email)
    assert.equal(audit.target, connection)
    assert.equal(JSON.parse(audit.after_json ?? '{}').lines, 2)

    const ran = await finance.browser.post('/console/reconciliation/run', {
      csrf: csrfIn(answer.text),
      connection,
      day: today(),
    })
    assert.equal(ran.status, 200, ran.text)
    const breaks = await app.context.store.reconciliation.listBreaks({
      connectionId: connection,
      day: today(),
      limit: 10,
    })
    assert.deepEqual(
      breaks.map((each) => [each.kind, each.amountMinor]),
      [['missing_in_sika', 700]],
    )
  })

  test('a file that cannot be read, or a bad mapping, is refused in the page’s language and changes nothing', async () => {
    const files = await keptFiles()
    const rows = await auditRows()
    const unreadable = await upload(finance, 'Name,Phone\nAwa,0700000000\n')
    assert.equal(unreadable.status, 422)
    assert.match(
      unreadable.text,
      /No row of this file could be read: each needs a reference, an amount and a date \(columns External ID, Amount, Date\)\. Nothing was imported/,
    )
    const empty = await upload(finance, '')
    assert.equal(empty.status, 422)
    assert.match(empty.text, /none was sent, or it is empty/)
    const badMapping = await upload(finance, 'a,b\n1,2\n', { columns: 'colour=Red' })
    assert.equal(badMapping.status, 422)
    assert.match(badMapping.text, /The column mapping is field=column pairs/)
    const otherConnection = await upload(finance, 'a\n', { connection: 'nope' })
    assert.equal(otherConnection.status, 422)

    finance.browser.cookies.set('sika_console_lang', 'fr')
    try {
      const french = await upload(finance, 'Nom,Téléphone\nAwa,0700000000\n')
      assert.equal(french.status, 422)
      assert.match(french.text, /Aucune ligne de ce fichier n’a pu être lue/)
      assert.match(french.text, /Rien n’a été importé/)
    } finally {
      finance.browser.cookies.set('sika_console_lang', 'en')
    }
    assert.equal(await keptFiles(), files)
    assert.equal(await auditRows(), rows)
  })

  test('without the CSRF token, or without the permission, the upload is refused and nothing is kept', async () => {
    const files = await keptFiles()
    const forged = await finance.browser.postMultipart(
      '/console/reconciliation/import',
      { csrf: 'forged', connection },
      {
        file: { name: 'x.csv', text: `External ID,Amount,Date\nforged-1,100,${new Date().toISOString()}\n` },
      },
    )
    assert.equal(forged.status, 403)
    const analyst = await signedInPlatformMember(app, { role: 'analyst' })
    const page = await analyst.browser.get('/console/reconciliation')
    assert.doesNotMatch(page.text, /action="\/console\/reconciliation\/import"/)
    const refused = await upload(
      analyst,
      `External ID,Amount,Date\nforged-2,100,${new Date().toISOString()}\n`,
    )
    assert.equal(refused.status, 403)
    assert.equal(await keptFiles(), files)
  })

  test('no upload body is read before the session, the permission and the CSRF token: it is answered before it arrives', async () => {
    const analyst = await signedInPlatformMember(app, { role: 'analyst' })
    const page = await finance.browser.get('/console/reconciliation')
    const csrf = csrfIn(page.text)
    const path = '/console/reconciliation/import'
    const cases = [
      { what: 'without a session', options: {}, status: 303 },
      {
        what: 'without the permission',
        options: { cookie: analyst.browser.cookieHeader, csrf: analyst.csrf },
        status: 403,
      },
      {
        what: 'with another session’s token',
        options: { cookie: finance.browser.cookieHeader, csrf: analyst.csrf },
        status: 403,
      },
      { what: 'with no token first', options: { cookie: finance.browser.cookieHeader }, status: 403 },
    ]
    for (const { what, options, status } of cases) {
      const answer = await postWithoutTheBody(app.url, path, { ...options, sentBytes: 4096 })
      assert.equal(answer.status, status, `${what}: answered ${answer.status}`)
    }
    // The member's own upload, its token first: the rest of the body is awaited.
    const firstField = multipartBody(uploadBytes, csrf).indexOf(`--${boundary}`, 10)
    const own = await postWithoutTheBody(
      app.url,
      path,
      { cookie: finance.browser.cookieHeader, csrf, sentBytes: firstField + 200 },
      1000,
    )
    assert.equal(own.status, 'no answer')
  })
})
