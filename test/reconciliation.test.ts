import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { platformAuditPage } from '../src/app/console/platform-audit.ts'
import { decideBreakByHand } from '../src/app/console/reconciliation-console.ts'
import { operationView } from '../src/app/dashboard/operation-view.ts'
import { approveBreak, decideBreak } from '../src/app/reconciliation/breaks.ts'
import { reconcileDay } from '../src/app/reconciliation/run.ts'
import { ReconciliationScheduler } from '../src/app/reconciliation/scheduler.ts'
import { startPawapaySimulator } from '../src/simulators/pawapay/pawapay-simulator.ts'
import type { RunningSimulator } from '../src/simulators/simulator.ts'
import type { ApiClient, TestApp } from './support/app.ts'
import { type LiveApp, operatorReferenceOf, settledRecord, startLiveApp } from './support/live.ts'
import { describeEachStore } from './support/stores.ts'
import { assertStoreConsistent } from './support/verify.ts'

/**
 * CONTRACT.md, Reconciliation, through the pawaPay simulator as a real server: its statement is
 * asynchronous (ACCEPTED, then COMPLETED), waited for; a clean day matches every line; each break
 * the simulator's control routes make is found once, names its side and amount, and keeps its id
 * when the day runs again; a payment the operator succeeded without a notification is repaired
 * through the write pipeline (the ledger moves once, the callback is sent once, the break is
 * auto_resolved with the status answer as evidence); a line Sika does not know moves no money;
 * two instances never run one day at once.
 */

const connection = 'moov-money-bj'
const today = () => new Date().toISOString().slice(0, 10)
let sequence = 0

describeEachStore('reconciliation through the pawaPay simulator', (store) => {
  let simulator: RunningSimulator
  let running: LiveApp
  let app: TestApp
  let live: ApiClient

  before(async () => {
    running = await startLiveApp(store(), async (publicBaseUrl) => {
      const notifications = `${publicBaseUrl}/providers/pawapay/notifications`
      simulator = await startPawapaySimulator({
        settleDelayMs: 50,
        // The statement is generated asynchronously: the run waits for it.
        statementDelayMs: 400,
        depositCallbackUrl: notifications,
        payoutCallbackUrl: notifications,
        refundCallbackUrl: notifications,
      })
      return [{ simulator, channel: 'moov-money', countries: ['BJ'] }]
    })
    ;({ app, live } = running)
  })
  after(async () => {
    await running?.close()
  })

  const control = async (path: string, body: unknown) => {
    const answer = await fetch(`${simulator.url}/_simulator/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    const text = await answer.text()
    assert.ok(answer.ok, `${path}: ${answer.status} ${text}`)
    return JSON.parse(text)
  }

  async function collect(ending = '120', settle = true) {
    const response = await live.post('/api/v1/collect', {
      amount: 5000 + sequence,
      channel: 'moov-money',
      country: 'BJ',
      customer: { phoneNumber: `+2290197000${ending}` },
      merchantReference: `collect-${sequence++}`,
      callbackUrl: 'https://merchant.example/callback',
    })
    assert.equal(response.status, 200, response.text)
    const { token } = response.body.data.collect
    if (settle) assert.equal((await settledRecord(running, 'collect', token, 10_000)).status, 'succeeded')
    return { token, reference: await operatorReferenceOf(app, token), amount: 5000 + sequence - 1 }
  }

  const reconcile = (owner = 'test') => reconcileDay(app.context, connection, today(), owner)
  const availableXof = async () => {
    const balance = (await live.get('/api/v1/balance')).body.data
    return JSON.stringify(balance)
  }

  test('a clean day matches every line, with no break; the statement is waited for', async () => {
    await collect()
    await collect()
    const startedAt = Date.now()
    const report = await reconcile()
    assert.equal(report.status, 'completed', report.reason)
    assert.ok(Date.now() - startedAt >= 400, 'the asynchronous statement was waited for')
    assert.equal(report.lines, 2)
    assert.equal(report.matched, 2)
    assert.deepEqual(report.breaks, [])
  })

  const found = new Map<string, string>()

  test('each break is found once, with its side and amount', async () => {
    const missing = await collect()
    const otherAmount = await collect()
    const duplicate = await collect()
    // 104: pending forever at the operator, no callback; then succeeded there, silently.
    const silent = await collect('104', false)
    await control('books/breaks', { kind: 'missing-line', payment: missing.reference })
    await control('books/breaks', { kind: 'other-amount', payment: otherAmount.reference, amount: '4000' })
    await control('books/breaks', { kind: 'duplicate', payment: duplicate.reference })
    await control('books/breaks', { kind: 'silent-success', payment: silent.reference })
    const [stranger] = (
      await control('books/breaks', { kind: 'unknown-line', amount: '700', provider: 'MOOV_BEN' })
    ).lines
    await control('books/breaks', { kind: 'balance-drift', amount: '50' })
    const balanceBefore = await availableXof()

    const report = await reconcile()
    assert.equal(report.status, 'completed', report.reason)
    const byKind = new Map(report.breaks.map((each) => [each.kind, each]))
    assert.deepEqual(report.breaks.map((each) => each.kind).sort(), [
      'amount_mismatch',
      'balance_drift',
      'duplicate',
      'missing_at_operator',
      'missing_in_sika',
      'status_mismatch',
    ])
    assert.equal(byKind.get('amount_mismatch')!.token, otherAmount.token)
    assert.equal(byKind.get('amount_mismatch')!.amount, otherAmount.amount - 4000)
    assert.equal(byKind.get('duplicate')!.token, duplicate.token)
    assert.equal(byKind.get('duplicate')!.amount, duplicate.amount)
    assert.equal(byKind.get('missing_at_operator')!.token, missing.token)
    assert.equal(byKind.get('missing_at_operator')!.amount, missing.amount)
    assert.equal(byKind.get('missing_in_sika')!.token, null)
    assert.equal(byKind.get('missing_in_sika')!.amount, 700)
    assert.equal(byKind.get('missing_in_sika')!.operatorReference, stranger.payment)
    assert.equal(byKind.get('balance_drift')!.amount, 50)
    assert.equal(byKind.get('status_mismatch')!.token, silent.token)
    assert.equal(byKind.get('status_mismatch')!.amount, silent.amount)
    for (const each of report.breaks) found.set(each.kind, each.id)

    // The silent success is repaired through the write pipeline, once.
    const repaired = byKind.get('status_mismatch')!
    assert.equal(repaired.state, 'auto_resolved')
    const record = (await live.get(`/api/v1/collect/${silent.token}`)).body.data.collect
    assert.equal(record.status, 'succeeded')
    const evidence = JSON.parse((await app.context.store.reconciliation.findBreak(repaired.id))!.evidence!)
    assert.equal(evidence.repaired, true)
    assert.equal(evidence.answer.status, 'succeeded')
    assert.equal(evidence.by, `${connection} for ${today()}`)
    // A line Sika does not know moves no money; the repair moved the silent payment's, once.
    const entries = await app.db.selectFrom('ledger_entries').selectAll().execute()
    const silentRow = await app.db
      .selectFrom('operations')
      .select('id')
      .where('token', '=', silent.token)
      .executeTakeFirstOrThrow()
    const silentEntries = entries.filter((entry: any) => entry.operation_id === silentRow.id)
    assert.ok(silentEntries.length > 0)
    assert.notEqual(await availableXof(), balanceBefore)

    // The operation's timeline says who corrected it.
    const owner = await app.db
      .selectFrom('operations')
      .select('merchant_id')
      .where('token', '=', silent.token)
      .executeTakeFirstOrThrow()
    const view = await operationView(app.context, owner.merchant_id, 'live', silent.token)
    assert.deepEqual(
      view!.timeline
        .filter((entry) => entry.what === 'corrected')
        .map((entry) => [entry.connection, entry.day]),
      [[connection, today()]],
    )
    const balanceAfterRepair = await availableXof()

    const again = await reconcile()
    assert.equal(again.status, 'completed', again.reason)
    for (const each of again.breaks) assert.equal(each.id, found.get(each.kind), `${each.kind} keeps its id`)
    assert.equal(again.breaks.find((each) => each.kind === 'status_mismatch')?.state, 'auto_resolved')
    const after = await app.db.selectFrom('ledger_entries').selectAll().execute()
    assert.equal(
      after.filter((entry: any) => entry.operation_id === silentRow.id).length,
      silentEntries.length,
    )
    assert.equal(await availableXof(), balanceAfterRepair, 'running the day again moves no money')
    // The merchant's callback of the success is written once, to be sent once.
    const events = await app.db
      .selectFrom('events')
      .select('type')
      .where('operation_id', '=', silentRow.id)
      .execute()
    assert.deepEqual(
      events.map((event) => event.type).filter((type) => type.endsWith('succeeded')),
      ['collect.succeeded'],
    )
    await assertStoreConsistent(app)
  })

  test('/metrics: open breaks by connection and kind, the last completed run, the share matched', async () => {
    const text = await (await fetch(app.metricsUrl)).text()
    const value = (name: string) =>
      Number(new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1])
    assert.equal(
      value(`sika_reconciliation_open_breaks{connection="${connection}",kind="amount_mismatch"}`),
      1,
    )
    assert.equal(
      value(`sika_reconciliation_open_breaks{connection="${connection}",kind="missing_in_sika"}`),
      1,
    )
    assert.ok(
      Math.abs(
        value(`sika_reconciliation_last_completed_run_timestamp_seconds{connection="${connection}"}`) -
          Date.now() / 1000,
      ) < 120,
    )
    const ratio = value(`sika_reconciliation_lines_matched_ratio{connection="${connection}"}`)
    assert.ok(ratio > 0 && ratio < 1, String(ratio))
  })

  test('a due run starts by itself, on one of two instances', async () => {
    const day = today()
    // A day run by hand before is run again only once it is due: made due now, as an ended day is.
    await app.db
      .updateTable('reconciliation_runs')
      .set({ status: 'due', due_at_us: Date.now() * 1000 })
      .where('day', '=', day)
      .execute()
    const before = await app.context.store.reconciliation.findRun(connection, day)
    const instances = [
      new ReconciliationScheduler(app.context, 'instance-a'),
      new ReconciliationScheduler(app.context, 'instance-b'),
    ]
    await Promise.all(instances.map((instance) => instance.runOnce()))
    const run = await app.context.store.reconciliation.findRun(connection, day)
    assert.equal(run?.status, 'completed')
    assert.equal(run!.attempts, before!.attempts + 1, 'claimed once')
    // Yesterday's run is made due an hour after the day ended (pawaPay's delay).
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)
    const made = await app.context.store.reconciliation.findRun(connection, yesterday)
    assert.equal(made?.dueAtUs, (Date.parse(`${day}T00:00:00Z`) + 3_600_000) * 1000)
  })

  test('two instances never run one day at once', async () => {
    const [first, second] = await Promise.all([reconcile('instance-a'), reconcile('instance-b')])
    const statuses = [first.status, second.status].sort()
    assert.deepEqual(statuses, ['completed', 'failed'])
    const refused = first.status === 'failed' ? first : second
    assert.match(refused.reason ?? '', /Another instance/)
  })

  test('a finance member resolves or ignores with a reason; above the review amount a second one approves', async () => {
    await control('books/breaks', { kind: 'unknown-line', amount: '150000', provider: 'MOOV_BEN' })
    const report = await reconcile()
    const small = report.breaks.find((each) => each.kind === 'amount_mismatch')!
    const large = report.breaks.find((each) => each.kind === 'missing_in_sika' && each.amount === 150_000)!
    await assert.rejects(decideBreak(app.context, small.id, 'resolved', '  ', 'awa'), /reason is required/)
    assert.deepEqual(
      await decideBreak(app.context, small.id, 'resolved', 'Operator corrected the amount', 'awa'),
      {
        state: 'resolved',
        pendingApproval: false,
      },
    )
    assert.deepEqual(await decideBreak(app.context, large.id, 'ignored', 'Treasury top-up', 'awa'), {
      state: 'open',
      pendingApproval: true,
    })
    await assert.rejects(approveBreak(app.context, large.id, 'awa'), /second finance member/)
    assert.equal(await approveBreak(app.context, large.id, 'kofi'), 'ignored')
    const history = await app.context.store.reconciliation.history(large.id)
    assert.deepEqual(
      history.map((entry) => [entry.what, entry.actor]),
      [
        ['approval_asked', 'awa'],
        ['ignored', 'kofi'],
      ],
    )
    // Found again, a decided break keeps its state.
    const again = await reconcile()
    assert.equal(again.breaks.find((each) => each.id === small.id)?.state, 'resolved')
    assert.equal(again.breaks.find((each) => each.id === large.id)?.state, 'ignored')
  })
  test('two members deciding one break at once: one decision stands, with one history row and one audit row', async () => {
    await control('books/breaks', { kind: 'unknown-line', amount: '900', provider: 'MOOV_BEN' })
    const report = await reconcile()
    const open = report.breaks.find((each) => each.amount === 900 && each.state === 'open')!
    assert.ok(open, JSON.stringify(report.breaks))
    const [first, second] = await Promise.all([
      decideBreakByHand(app.context, { kind: 'cli', label: 'awa' }, open.id, 'resolved', 'Paid by hand'),
      decideBreakByHand(app.context, { kind: 'cli', label: 'kofi' }, open.id, 'ignored', 'Test line'),
    ])
    const refused = [first, second].filter((outcome) => outcome && 'refused' in outcome)
    assert.deepEqual(refused, [{ refused: 'break_not_open' }], JSON.stringify([first, second]))
    const stood = [first, second].find((outcome) => outcome && 'state' in outcome) as { state: string }
    assert.equal((await app.context.store.reconciliation.findBreak(open.id))?.state, stood.state)
    const history = await app.context.store.reconciliation.history(open.id)
    assert.deepEqual(
      history.map((entry) => entry.what),
      [stood.state],
    )
    const audited = (await platformAuditPage(app.context, undefined)).entries.filter(
      (entry) => entry.target === open.id,
    )
    assert.deepEqual(
      audited.map((entry) => entry.action),
      [`reconciliation.break_${stood.state}`],
    )
  })
})
