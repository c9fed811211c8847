import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startApp, type TestApp } from './support/app.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * CONTRACT.md, Reconciliation: a member's decision on a break stands. A run that no longer finds
 * the break closes it as auto_resolved only while it is still open: a member who decided it
 * between the run's read and its write keeps the decision, and the break's history holds that
 * decision alone. On PostgreSQL the run reads the break open while the decision is uncommitted,
 * then waits for its row; on SQLite the run's transaction waits for the decision's.
 */
describeEachStore('a run that no longer finds a break, racing a member who decides it', (target) => {
  let app: TestApp

  before(async () => {
    app = await startApp(target())
  })
  after(() => app.close())

  test('the member’s decision stands, with one history row; the run closes nothing', async () => {
    const { reconciliation } = app.context.store
    const connection = 'race-conn'
    const day = '2026-01-05'
    const foundAtUs = app.context.clock.nowUs() - 60_000_000
    await reconciliation.recordBreaks(
      connection,
      day,
      [
        {
          kind: 'missing_in_sika',
          reference: 'race-line',
          operationId: null,
          token: null,
          role: null,
          operatorReference: 'race-line',
          amountMinor: 700,
          currency: 'XOF',
          detail: 'a line Sika has no operation for',
          lines: '[]',
        },
      ],
      foundAtUs,
    )
    const [found] = await reconciliation.listBreaks({ connectionId: connection, day })
    assert.ok(found)

    let release!: () => void
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    const decidedAtUs = app.context.clock.nowUs()
    const decision = app.context.store.transaction(async (tx) => {
      const changed = await tx.reconciliation.updateBreak(
        found.id,
        { state: 'resolved', reason: 'Paid by hand', closedAtUs: decidedAtUs },
        { atUs: decidedAtUs, what: 'resolved', actor: 'awa', detail: 'Paid by hand' },
      )
      await released
      return changed
    })
    // The decision holds its row (PostgreSQL) or the writer (SQLite) when the run starts.
    await new Promise((resolve) => setTimeout(resolve, 100))
    const run = app.context.store.transaction((tx) =>
      tx.reconciliation.closeNotFound(connection, day, decidedAtUs + 1, JSON.stringify({ repaired: false })),
    )
    await new Promise((resolve) => setTimeout(resolve, 200))
    release()

    assert.equal(await decision, true)
    assert.equal(await run, 0, 'the run closed no break')
    assert.equal((await reconciliation.findBreak(found.id))?.state, 'resolved')
    const history = await reconciliation.history(found.id)
    assert.deepEqual(
      history.map((entry) => [entry.what, entry.actor]),
      [['resolved', 'awa']],
    )
  })
})
