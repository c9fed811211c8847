import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { importExport } from '../src/app/reconciliation/imports.ts'
import { reconcileDay } from '../src/app/reconciliation/run.ts'
import { startMtnMomoSimulator } from '../src/simulators/mtn-momo/mtn-momo-simulator.ts'
import { startOrangeMoneySimulator } from '../src/simulators/orange-money/orange-money-simulator.ts'
import type { RunningSimulator } from '../src/simulators/simulator.ts'
import { startWaveSimulator } from '../src/simulators/wave/wave-simulator.ts'
import { type ApiClient, type TestApp, testSecretsKey } from './support/app.ts'
import { runSikaIn } from './support/cli.ts'
import {
  controlSimulator,
  type LiveApp,
  operatorReferenceOf,
  settledRecord,
  startLiveApp,
} from './support/live.ts'
import { describeEachStore } from './support/stores.ts'
import { assertStoreConsistent } from './support/verify.ts'

/**
 * CONTRACT.md, Reconciliation, through the Wave, MTN MoMo and Orange Money simulators as real
 * servers: Wave's transactions of the day are read page after page (`after` = the last page's
 * `end_cursor`, while `has_next_page`), and each break its control routes make is found once;
 * MTN MoMo and Orange Money publish no statement, so each side of the day is proven by its status
 * endpoint (a payment succeeded without a notification is repaired as any poll's answer is), and
 * a portal export imported for the day shows the breaks a statement would.
 */

const webhookSecret = `wave_sn_WHS_${'s'.repeat(43)}`
const today = () => new Date().toISOString().slice(0, 10)
let sequence = 0

describeEachStore('reconciliation through the Wave, MTN MoMo and Orange Money simulators', (store) => {
  let wave: RunningSimulator
  let mtn: RunningSimulator
  let orange: RunningSimulator
  let running: LiveApp
  let app: TestApp
  let live: ApiClient

  before(async () => {
    running = await startLiveApp(store(), async (publicBaseUrl) => {
      wave = await startWaveSimulator({
        settleDelayMs: 50,
        webhookUrl: `${publicBaseUrl}/providers/wave/notifications`,
        webhookSecret,
        transactionsPageSize: 2,
      })
      // The account's currency is XOF, so the payments move its books (and its portal export).
      mtn = await startMtnMomoSimulator({ settleDelayMs: 50, currencies: ['XOF'] })
      orange = await startOrangeMoneySimulator({
        settleDelayMs: 50,
        webhookUrl: `${publicBaseUrl}/providers/orange-money/notifications`,
      })
      return [
        { simulator: wave, channel: 'wave', countries: ['SN'] },
        { simulator: mtn, channel: 'mtn-momo', countries: ['CI'] },
        { simulator: orange, channel: 'orange-money', countries: ['CI'] },
      ]
    })
    ;({ app, live } = running)
  })
  after(() => running?.close())

  /**
   * A collect of the channel; `settle`: the customer pays (Wave's and Orange's pages) and it is
   * read until it succeeded. `payment` is its id at the operator, as the control routes take it.
   */
  async function collect(channel: 'wave' | 'mtn-momo' | 'orange-money', ending = '120', settle = true) {
    const country = channel === 'wave' ? 'SN' : 'CI'
    const prefix = { wave: '+221770000', 'mtn-momo': '+2250500000', 'orange-money': '+2250700000' }[channel]
    const amount = 1000 + sequence
    const response = await live.post('/api/v1/collect', {
      amount,
      channel,
      country,
      customer: { phoneNumber: `${prefix}${ending}` },
      merchantReference: `collect-${sequence++}`,
      callbackUrl: 'https://merchant.example/callback',
    })
    assert.equal(response.status, 200, response.text)
    const { token } = response.body.data.collect
    const reference = await operatorReferenceOf(app, token)
    let payment = reference
    if (channel === 'wave') {
      const sessions = (await (await fetch(`${wave.url}/_simulator/sessions`)).json()) as any[]
      payment = sessions.find((entry) => entry.view?.client_reference === `${token}.main`).id
      if (settle)
        await fetch(`${wave.url}/_simulator/sessions/${payment}/pay`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        })
    }
    if (channel === 'orange-money' && settle)
      await controlSimulator(orange, `payments/${token}/pay`, { msisdn: '0700000123' })
    if (settle) assert.equal((await settledRecord(running, 'collect', token, 10_000)).status, 'succeeded')
    return { token, reference, payment, amount }
  }

  /** How many `collect.succeeded` events the operation wrote: the merchant's callback, sent once. */
  async function successEvents(token: string) {
    const row = await app.db
      .selectFrom('operations')
      .select('id')
      .where('token', '=', token)
      .executeTakeFirstOrThrow()
    const events = await app.db
      .selectFrom('events')
      .select('type')
      .where('operation_id', '=', row.id)
      .execute()
    return events.filter((event) => event.type === 'collect.succeeded').length
  }

  const evidenceOf = async (id: string) =>
    JSON.parse((await app.context.store.reconciliation.findBreak(id))!.evidence!)

  test("Wave: the day's transactions are read page after page, and a clean day has no break", async () => {
    for (let count = 0; count < 5; count++) await collect('wave')
    const report = await reconcileDay(app.context, 'wave-sn', today(), 'test')
    assert.equal(report.status, 'completed', report.reason)
    assert.equal(report.lines, 5)
    assert.equal(report.matched, 5)
    assert.deepEqual(report.breaks, [])
    const pages = wave.requests.filter((request) => request.url.startsWith('/v1/transactions'))
    assert.ok(pages.length >= 3, `${pages.length} pages read`)
    assert.ok(pages.some((request) => request.url.includes('after=')))
  })

  test('Wave: each break its control routes make is found once, names its side and amount, and keeps its id', async () => {
    const missing = await collect('wave')
    const otherAmount = await collect('wave')
    const duplicate = await collect('wave')
    // Opened and never paid: pending in Sika; then paid at Wave, its webhook never sent.
    const silent = await collect('wave', '120', false)
    await controlSimulator(wave, 'books/breaks', { kind: 'missing-line', payment: missing.payment })
    await controlSimulator(wave, 'books/breaks', {
      kind: 'other-amount',
      payment: otherAmount.payment,
      amount: '400',
    })
    await controlSimulator(wave, 'books/breaks', { kind: 'duplicate', payment: duplicate.payment })
    await controlSimulator(wave, 'books/breaks', { kind: 'silent-success', payment: silent.payment })
    await controlSimulator(wave, 'books/breaks', { kind: 'unknown-line', amount: '700' })
    await controlSimulator(wave, 'books/breaks', { kind: 'balance-drift', amount: '50' })

    const report = await reconcileDay(app.context, 'wave-sn', today(), 'test')
    assert.equal(report.status, 'completed', report.reason)
    const named = report.breaks.map((each) => [each.kind, each.token, each.amount])
    assert.deepEqual(named, [
      ['amount_mismatch', otherAmount.token, otherAmount.amount - 400],
      ['balance_drift', null, 50],
      ['duplicate', duplicate.token, duplicate.amount],
      ['missing_at_operator', missing.token, missing.amount],
      ['missing_in_sika', null, 700],
      ['status_mismatch', silent.token, silent.amount],
    ])
    const byKind = new Map(report.breaks.map((each) => [each.kind, each]))
    // Both are asked of Wave's status endpoint (the checkout session): the silent payment is
    // written as any answer is; the left-out line's payment is proven succeeded there.
    assert.equal(byKind.get('status_mismatch')!.state, 'auto_resolved')
    assert.equal((await evidenceOf(byKind.get('status_mismatch')!.id)).repaired, true)
    assert.equal(byKind.get('missing_at_operator')!.state, 'auto_resolved')
    assert.deepEqual(await evidenceOf(byKind.get('missing_at_operator')!.id), {
      ...(await evidenceOf(byKind.get('missing_at_operator')!.id)),
      repaired: false,
      by: `wave-sn for ${today()}`,
    })
    for (const kind of ['amount_mismatch', 'balance_drift', 'duplicate', 'missing_in_sika'])
      assert.equal(byKind.get(kind)!.state, 'open', kind)
    assert.equal((await live.get(`/api/v1/collect/${silent.token}`)).body.data.collect.status, 'succeeded')

    const again = await reconcileDay(app.context, 'wave-sn', today(), 'test')
    assert.deepEqual(
      again.breaks.map((each) => [each.id, each.state]),
      report.breaks.map((each) => [each.id, each.state]),
    )
    assert.equal(await successEvents(silent.token), 1)
    await assertStoreConsistent(app)
  })

  test('MTN MoMo: each side is proven by its status; a silent success is repaired once', async () => {
    await collect('mtn-momo')
    // 104: pending forever, no callback; then succeeded at the operator, silently.
    const silent = await collect('mtn-momo', '104', false)
    // The record's operatorReference names the payment at MTN (the README's example uses it).
    const pending = (await live.get(`/api/v1/collect/${silent.token}`)).body.data.collect
    assert.equal(pending.operatorReference, silent.reference)
    await controlSimulator(mtn, 'books/breaks', { kind: 'silent-success', payment: silent.reference })
    const report = await reconcileDay(app.context, 'mtn-momo-ci', today(), 'test')
    assert.equal(report.status, 'completed', report.reason)
    assert.equal(report.lines, 2)
    assert.deepEqual(
      report.breaks.map((each) => [each.kind, each.token, each.state]),
      [['status_mismatch', silent.token, 'auto_resolved']],
    )
    const record = (await live.get(`/api/v1/collect/${silent.token}`)).body.data.collect
    assert.equal(record.status, 'succeeded')
    const again = await reconcileDay(app.context, 'mtn-momo-ci', today(), 'test')
    assert.deepEqual(
      again.breaks.map((each) => each.id),
      report.breaks.map((each) => each.id),
    )
    assert.equal(await successEvents(silent.token), 1)
    await assertStoreConsistent(app)
  })

  test("MTN MoMo: an imported portal export's breaks; what it lacks, or Sika holds pending, is settled by status", async () => {
    const missing = await collect('mtn-momo')
    const otherAmount = await collect('mtn-momo')
    const duplicate = await collect('mtn-momo')
    const silent = await collect('mtn-momo', '104', false)
    await controlSimulator(mtn, 'books/breaks', { kind: 'missing-line', payment: missing.reference })
    await controlSimulator(mtn, 'books/breaks', {
      kind: 'other-amount',
      payment: otherAmount.reference,
      amount: '900',
    })
    await controlSimulator(mtn, 'books/breaks', { kind: 'duplicate', payment: duplicate.reference })
    await controlSimulator(mtn, 'books/breaks', { kind: 'silent-success', payment: silent.reference })
    await controlSimulator(mtn, 'books/breaks', {
      kind: 'unknown-line',
      account: 'collection',
      amount: '700',
    })
    const exported = await fetch(`${mtn.url}/_simulator/books/export?account=collection&date=${today()}`)
    assert.equal(exported.status, 200)
    const bytes = new Uint8Array(await exported.arrayBuffer())
    const imported = await importExport(app.context, 'mtn-momo-ci', bytes, undefined)
    assert.deepEqual(imported.problems, [])

    const report = await reconcileDay(app.context, 'mtn-momo-ci', today(), 'test')
    assert.equal(report.status, 'completed', report.reason)
    const fresh = report.breaks.filter(
      (each) => each.kind !== 'status_mismatch' || each.token === silent.token,
    )
    assert.deepEqual(
      fresh.map((each) => [each.kind, each.token, each.amount, each.state]),
      [
        ['amount_mismatch', otherAmount.token, otherAmount.amount - 900, 'open'],
        ['duplicate', duplicate.token, duplicate.amount, 'open'],
        ['missing_at_operator', missing.token, missing.amount, 'auto_resolved'],
        ['missing_in_sika', null, 700, 'open'],
        ['status_mismatch', silent.token, silent.amount, 'auto_resolved'],
      ],
    )
    const stranger = fresh.find((each) => each.kind === 'missing_in_sika')!
    assert.match(stranger.operatorReference ?? '', /^[0-9a-f-]{36}$/)
    assert.equal((await live.get(`/api/v1/collect/${silent.token}`)).body.data.collect.status, 'succeeded')
    assert.equal((await evidenceOf(fresh.at(-1)!.id)).repaired, true)
    assert.equal(await successEvents(silent.token), 1)
    // The export is kept, with its hash, as the run's evidence.
    const files = await app.context.store.reconciliation.files('mtn-momo-ci', today(), 'import')
    assert.ok(files.some((file) => file.bytes.length === bytes.length))

    const again = await reconcileDay(app.context, 'mtn-momo-ci', today(), 'test')
    assert.deepEqual(
      again.breaks.map((each) => [each.id, each.state]),
      report.breaks.map((each) => [each.id, each.state]),
    )
    assert.equal(await successEvents(silent.token), 1)
    await assertStoreConsistent(app)
  })

  test("Orange Money: a silent success repaired by its status; an imported export's breaks", async () => {
    const paid = await collect('orange-money')
    const silent = await collect('orange-money', '120', false)
    await controlSimulator(orange, `payments/${silent.token}/status`, { status: 'SUCCESS', notify: false })
    const report = await reconcileDay(app.context, 'orange-money-ci', today(), 'test')
    assert.equal(report.status, 'completed', report.reason)
    assert.deepEqual(
      report.breaks.map((each) => [each.kind, each.token, each.state]),
      [['status_mismatch', silent.token, 'auto_resolved']],
    )
    assert.equal((await live.get(`/api/v1/collect/${silent.token}`)).body.data.collect.status, 'succeeded')
    assert.equal(await successEvents(silent.token), 1)

    // Orange's portal lists each payment under its order_id, which is Sika's token.
    const at = new Date().toISOString()
    const csv = [
      'Transaction ID,External ID,Amount,Date,Status,Type,Currency',
      `MP1,${paid.token},${paid.amount + 5},${at},SUCCESS,Paiement marchand,XOF`,
      `MP2,${silent.token},${silent.amount},${at},SUCCESS,Paiement marchand,XOF`,
      `MP3,stranger-order-9,2500,${at},SUCCESS,Paiement marchand,XOF`,
    ].join('\n')
    await importExport(app.context, 'orange-money-ci', new TextEncoder().encode(csv), undefined)
    const imported = await reconcileDay(app.context, 'orange-money-ci', today(), 'test')
    assert.equal(imported.status, 'completed', imported.reason)
    assert.deepEqual(
      imported.breaks.map((each) => [each.kind, each.token, each.amount, each.state]),
      [
        ['amount_mismatch', paid.token, 5, 'open'],
        ['missing_in_sika', null, 2500, 'open'],
        ['status_mismatch', silent.token, silent.amount, 'auto_resolved'],
      ],
    )
    assert.equal(
      imported.breaks.find((each) => each.kind === 'missing_in_sika')!.operatorReference,
      'stranger-order-9',
    )
    assert.equal(await successEvents(silent.token), 1)
    await assertStoreConsistent(app)
  })

  test('sika reconcile: --json, an imported portal export, the breaks; exit 1 when the run cannot be made', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'sika-reconcile-'))
    try {
      const operatorsFile = join(folder, 'operators.json')
      writeFileSync(
        operatorsFile,
        JSON.stringify({
          connections: [wave.connection('wave', ['SN']), mtn.connection('mtn-momo', ['CI'])],
        }),
      )
      const settings = {
        DATABASE_URL: store().databaseUrl,
        SECRETS_KEY: testSecretsKey,
        OPERATORS_FILE: operatorsFile,
      }
      const exported = join(folder, 'export.csv')
      writeFileSync(
        exported,
        `Ref,Montant,Quand,Statut\nunknown-ref-1,1 500,${today()}T00:00:01Z,SUCCESSFUL\n`,
      )
      const imported = await runSikaIn(
        undefined,
        [
          'reconcile',
          'import',
          '--connection',
          'mtn-momo-ci',
          '--file',
          exported,
          '--columns',
          'reference=Ref,amount=Montant,date=Quand,status=Statut',
          '--json',
        ],
        settings,
      )
      assert.equal(imported.code, 0, imported.stderr)
      assert.deepEqual(JSON.parse(imported.stdout), { days: [today()], lines: 1, problems: [] })
      const ran = await runSikaIn(
        undefined,
        ['reconcile', '--connection', 'mtn-momo-ci', '--date', today(), '--json'],
        settings,
      )
      assert.equal(ran.code, 0, ran.stderr)
      const report = JSON.parse(ran.stdout)
      assert.deepEqual(Object.keys(report), [
        'connection',
        'date',
        'status',
        'lines',
        'matched',
        'matchedAmount',
        'breaks',
      ])
      const stranger = report.breaks.find((each: any) => each.operatorReference === 'unknown-ref-1')
      assert.deepEqual(
        { ...stranger, id: typeof stranger.id },
        {
          id: 'string',
          kind: 'missing_in_sika',
          token: null,
          operatorReference: 'unknown-ref-1',
          amount: 1500,
          currency: 'XOF',
          state: 'open',
        },
      )
      const listed = await runSikaIn(
        undefined,
        ['reconcile', 'breaks', '--state', 'open', '--json'],
        settings,
      )
      assert.equal(listed.code, 0, listed.stderr)
      assert.ok(JSON.parse(listed.stdout).some((each: any) => each.id === stranger.id))
      // A decision made by the CLI is the platform's change, audited as the console's are.
      const ignored = await runSikaIn(
        undefined,
        ['reconcile', 'ignore', stranger.id, '--reason', 'a test line of the portal', '--by', 'ops-on-call'],
        settings,
      )
      assert.equal(ignored.code, 0, ignored.stderr)
      assert.equal(ignored.stdout, `${stranger.id} is ignored\n`)
      const again = await runSikaIn(
        undefined,
        ['reconcile', 'resolve', stranger.id, '--reason', 'twice'],
        settings,
      )
      assert.equal(again.code, 1)
      assert.equal(again.stderr, `sika: Break ${stranger.id} is no longer open: see sika reconcile breaks.\n`)
      const nothing = await runSikaIn(
        undefined,
        ['reconcile', 'resolve', 'rbk_nope', '--reason', 'x'],
        settings,
      )
      assert.equal(nothing.stderr, 'sika: No break has id rbk_nope.\n')
      const byCli = await app.db
        .selectFrom('platform_audit_log')
        .select(['action', 'actor_kind', 'actor_label', 'target'])
        .where('actor_kind', '=', 'cli')
        .where('action', 'in', ['reconciliation.run', 'reconciliation.break_ignored'])
        .execute()
      assert.deepEqual(byCli.map((row) => [row.action, row.actor_label, row.target]).sort(), [
        ['reconciliation.break_ignored', 'ops-on-call', stranger.id],
        ['reconciliation.run', 'cli', `mtn-momo-ci ${today()}`],
      ])
      const unknown = await runSikaIn(
        undefined,
        ['reconcile', '--connection', 'nope', '--date', today()],
        settings,
      )
      assert.equal(unknown.code, 1)
      assert.match(unknown.stderr, /No live connection has id nope/)
      // A file that cannot be read, and a day that is none, are named plainly: no stack trace.
      const nowhere = join(folder, 'nope.csv')
      const unread = await runSikaIn(
        undefined,
        ['reconcile', 'import', '--connection', 'mtn-momo-ci', '--file', nowhere],
        settings,
      )
      assert.equal(unread.code, 1)
      assert.equal(unread.stderr, `sika: cannot read ${nowhere}: no such file\n`)
      const folderGiven = await runSikaIn(
        undefined,
        ['reconcile', 'import', '--connection', 'mtn-momo-ci', '--file', folder],
        settings,
      )
      assert.equal(folderGiven.stderr, `sika: cannot read ${folder}: it is a folder, not a file\n`)
      // A file none of whose rows can be read keeps nothing, and says what each row needs.
      const contacts = join(folder, 'contacts.csv')
      writeFileSync(contacts, 'Name,Phone\nAwa,0700000000\n')
      const filesBefore = (await app.context.store.reconciliation.files('mtn-momo-ci', today(), 'import'))
        .length
      const unreadable = await runSikaIn(
        undefined,
        ['reconcile', 'import', '--connection', 'mtn-momo-ci', '--file', contacts],
        settings,
      )
      assert.equal(unreadable.code, 1)
      assert.match(
        unreadable.stderr,
        /^sika: No row of .*contacts\.csv could be read: each needs a reference, an amount and a date \(columns External ID, Amount, Date\)\. Nothing was imported\.\nRow 2: /,
      )
      assert.equal(
        (await app.context.store.reconciliation.files('mtn-momo-ci', today(), 'import')).length,
        filesBefore,
      )
      // Wave's run reads its statement API: an export for it would never be read.
      const statementConnection = await runSikaIn(
        undefined,
        ['reconcile', 'import', '--connection', 'wave-sn', '--file', exported],
        settings,
      )
      assert.equal(statementConnection.code, 1)
      assert.match(statementConnection.stderr, /wave-sn reads its operator's statement API/)
      // The CLI's import is in the platform audit log.
      const audited = await app.db
        .selectFrom('platform_audit_log')
        .selectAll()
        .where('action', '=', 'reconciliation.import')
        .execute()
      assert.ok(audited.some((row) => row.actor_kind === 'cli' && row.target === 'mtn-momo-ci'))
      const noDay = await runSikaIn(
        undefined,
        ['reconcile', '--connection', 'mtn-momo-ci', '--date', '2026-13-01'],
        settings,
      )
      assert.equal(noDay.code, 2)
      assert.match(noDay.stderr, /--date 2026-13-01 is not a day written YYYY-MM-DD/)
      assert.doesNotMatch(noDay.stderr + unread.stderr, /\bat .*\.ts:\d+/)
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })
})
