import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { reconcileDay } from '../src/app/reconciliation/run.ts'
import { startMtnMomoSimulator } from '../src/simulators/mtn-momo/mtn-momo-simulator.ts'
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
 * CONTRACT.md, Reconciliation, through the Wave and MTN MoMo simulators as real servers: Wave's
 * transactions of the day are read page after page (`after` = the last page's `end_cursor`, while
 * `has_next_page`); MTN MoMo publishes no statement, so each side of the day is proven by its
 * status endpoint, and a payment it succeeded without a notification is repaired as any poll's
 * answer is.
 */

const webhookSecret = `wave_sn_WHS_${'s'.repeat(43)}`
const today = () => new Date().toISOString().slice(0, 10)
let sequence = 0

describeEachStore('reconciliation through the Wave and MTN MoMo simulators', (store) => {
  let wave: RunningSimulator
  let mtn: RunningSimulator
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
      mtn = await startMtnMomoSimulator({ settleDelayMs: 50 })
      return [
        { simulator: wave, channel: 'wave', countries: ['SN'] },
        { simulator: mtn, channel: 'mtn-momo', countries: ['CI'] },
      ]
    })
    ;({ app, live } = running)
  })
  after(() => running?.close())

  async function collect(channel: 'wave' | 'mtn-momo', ending = '120', settle = true) {
    const country = channel === 'wave' ? 'SN' : 'CI'
    const phoneNumber = channel === 'wave' ? `+221770000${ending}` : `+2250500000${ending}`
    const response = await live.post('/api/v1/collect', {
      amount: 1000 + sequence,
      channel,
      country,
      customer: { phoneNumber },
      merchantReference: `collect-${sequence++}`,
      callbackUrl: 'https://merchant.example/callback',
    })
    assert.equal(response.status, 200, response.text)
    const { token } = response.body.data.collect
    if (channel === 'wave') {
      const sessions = (await (await fetch(`${wave.url}/_simulator/sessions`)).json()) as any[]
      const session = sessions.find((entry) => entry.view?.client_reference === `${token}.main`)
      await fetch(`${wave.url}/_simulator/sessions/${session.id}/pay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
    }
    if (settle) assert.equal((await settledRecord(running, 'collect', token, 10_000)).status, 'succeeded')
    return { token, reference: await operatorReferenceOf(app, token) }
  }

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
    const row = await app.db
      .selectFrom('operations')
      .select('id')
      .where('token', '=', silent.token)
      .executeTakeFirstOrThrow()
    const events = await app.db
      .selectFrom('events')
      .select('type')
      .where('operation_id', '=', row.id)
      .execute()
    assert.equal(events.filter((event) => event.type === 'collect.succeeded').length, 1)
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
      const stranger = report.breaks.find((each: any) => each.kind === 'missing_in_sika')
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
      const unknown = await runSikaIn(
        undefined,
        ['reconcile', '--connection', 'nope', '--date', today()],
        settings,
      )
      assert.equal(unknown.code, 1)
      assert.match(unknown.stderr, /No live connection has id nope/)
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })
})
