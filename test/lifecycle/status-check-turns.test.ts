import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startMtnMomoSimulator } from '../../src/simulators/mtn-momo/mtn-momo-simulator.ts'
import type { RunningSimulator } from '../../src/simulators/simulator.ts'
import type { ApiClient, TestApp } from '../support/app.ts'
import { type LiveApp, operatorReferenceOf, startLiveApp } from '../support/live.ts'
import { describeEachStore } from '../support/stores.ts'
import { sleep } from '../support/wait.ts'

/**
 * CONTRACT.md, Limits and Operators: a live side's status is asked of its operator at most once a
 * second across the deployment, whatever asks, Sika's own polls included; pending operator
 * requests are polled with a backoff until they end or expire. A check someone asked for (an
 * unsigned notification) adds nothing to the side's polls, and a poll due while another check has
 * just asked waits out that check's second rather than asking again.
 */

let sequence = 0

describeEachStore('a live side’s status checks and its polls share one budget', (store) => {
  let mtn: RunningSimulator
  let running: LiveApp
  let app: TestApp
  let live: ApiClient

  before(async () => {
    running = await startLiveApp(store(), async () => {
      mtn = await startMtnMomoSimulator({ settleDelayMs: 100 })
      return [{ simulator: mtn, channel: 'mtn-momo', countries: ['CI'] }]
    })
    ;({ app, live } = running)
  })
  after(() => running?.close())

  /** A collect MTN keeps pending for ever (104): every check of it finds it pending. */
  async function pendingCollect() {
    const response = await live.post('/api/v1/collect', {
      amount: 5000,
      channel: 'mtn-momo',
      country: 'CI',
      customer: { phoneNumber: '2250500000104' },
      merchantReference: `turns-${sequence++}`,
      callbackUrl: 'https://merchant.example/callback',
    })
    assert.equal(response.status, 200, response.text)
    const { token } = response.body.data.collect
    const operation = await app.db
      .selectFrom('operations')
      .select('id')
      .where('token', '=', token)
      .executeTakeFirstOrThrow()
    return { token, id: operation.id, reference: await operatorReferenceOf(app, token) }
  }

  const statusChecks = (reference: string) =>
    mtn.requests.filter(
      (request) => request.method === 'GET' && request.url === `/collection/v1_0/requesttopay/${reference}`,
    ).length

  const notify = async (token: string) => {
    const answer = await fetch(`${app.url}/providers/mtn-momo/notifications?token=${token}&role=main`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    assert.equal(answer.status, 200)
  }

  const polls = (operationId: number) =>
    app.db
      .selectFrom('scheduled_work')
      .select(['id', 'due_at_us', 'done_at_us', 'attempts'])
      .where('operation_id', '=', operationId)
      .where('kind', '=', 'poll')
      .orderBy('id')
      .execute()

  test('three notifications a second apart: three status checks, and still one poll scheduled', async () => {
    const { token, id, reference } = await pendingCollect()
    assert.equal((await polls(id)).length, 1, 'the submission scheduled the side’s poll')
    for (let notification = 0; notification < 3; notification++) {
      await notify(token)
      await sleep(1050)
    }
    assert.equal(statusChecks(reference), 3, 'each notification was checked')
    const scheduled = await polls(id)
    console.log(`# polls scheduled after 3 checks: ${scheduled.length} (before: 4)`)
    assert.equal(scheduled.length, 1, 'a check someone asked for adds no poll')
  })

  test('a poll due within a second of another check waits out that second, then asks once', async () => {
    const { token, id, reference } = await pendingCollect()
    const [poll] = await polls(id)
    assert.ok(poll)
    await sleep(Math.max(0, poll.due_at_us / 1000 - Date.now()) + 20)
    await notify(token)
    const checkedAtUs = (
      await app.db
        .selectFrom('operator_references')
        .select('status_checked_at_us')
        .where('reference', '=', reference)
        .executeTakeFirstOrThrow()
    ).status_checked_at_us!
    assert.equal(statusChecks(reference), 1)

    await app.workers.runDue()
    assert.equal(statusChecks(reference), 1, 'the poll did not ask within the notification’s second')
    const [postponed, ...others] = await polls(id)
    assert.deepEqual(others, [], 'no poll was added')
    assert.equal(postponed!.done_at_us, null)
    assert.equal(Number(postponed!.due_at_us), Number(checkedAtUs) + 1_000_000, 'due again after that second')
    assert.equal(postponed!.attempts, 0, 'a postponed poll has not been attempted')

    await sleep(Math.max(0, Number(postponed!.due_at_us) / 1000 - Date.now()) + 20)
    await app.workers.runDue()
    assert.equal(statusChecks(reference), 2, 'then the poll asked')
    const after = await polls(id)
    assert.notEqual(after[0]!.done_at_us, null, 'the poll is done')
    assert.equal(after.filter((row) => row.done_at_us === null).length, 1, 'and scheduled the next one')
  })
})
