import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { rollUpOperatorHours, rollUpUnlessRecent } from '../../src/app/console/operator-hours-roll-up.ts'
import { readOperatorOverview } from '../../src/app/console/operator-overview.ts'
import {
  dayUs,
  durationBucketsMs,
  hourUs,
  startOfDayUs,
  startOfHourUs,
} from '../../src/domain/operator-hours.ts'
import { type ApiClient, manualClock, startApp, type TestApp } from '../support/app.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * CONTRACT.md, Platform console (overview): per operator connection (channel and country), the
 * last 24 hours and 30 days (operations, success rate, median and 95th percentile time to a final
 * status), the operations pending longer than 15 minutes, the callbacks waiting, and each of the
 * 30 days. Live collects go to the MTN MoMo simulator (a real server) whose test numbers decide
 * their outcomes; the clock is moved by hand, so days pass in the test.
 */

const callbackUrl = 'https://merchant.example/callback'
const realNowUs = Date.now() * 1000
/** Three days ago, ten minutes into an hour: the first operations' day. */
const startUs = startOfHourUs(realNowUs - 3 * dayUs) + 10 * 60_000_000

describeEachStore('console: operator overview', (store) => {
  let app: TestApp
  let live: ApiClient
  const clock = manualClock(startUs)
  let sequence = 0
  before(async () => {
    app = await startApp(store(), { liveOperators: true, clock })
    live = app.client((await app.createMerchant('Overview')).live)
  })
  after(() => app.close())

  async function collect(phoneNumber: string): Promise<string> {
    const answer = await live.post('/api/v1/collect', {
      amount: 5000,
      channel: 'mtn-momo',
      country: 'CI',
      customer: { phoneNumber },
      merchantReference: `overview-${sequence++}`,
      callbackUrl,
    })
    assert.equal(answer.status, 200, answer.text)
    return answer.body.data.collect.token
  }

  /** Moves the clock 3 s at a time, running due work, until each operation has ended. */
  async function settle(tokens: readonly string[]) {
    for (let step = 0; step < 200; step++) {
      const statuses = await Promise.all(
        tokens.map(async (token) => (await live.get(`/api/v1/collect/${token}`)).body.data.collect.status),
      )
      if (statuses.every((status) => status !== 'pending')) return statuses
      clock.advance(3000)
      await app.workers.runDue()
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    throw new Error('the collects did not settle')
  }

  test('each connection’s windows, days, late operations and waiting callbacks', async () => {
    assert.deepEqual(await settle([await collect('0700000001'), await collect('0700000101')]), [
      'succeeded',
      'failed',
    ])
    clock.advance(startOfHourUs(realNowUs) / 1000 - startUs / 1000 + 5 * 60_000)
    const todayUs = clock.nowUs()
    const succeeded = await collect('0700000002')
    await collect('0700000104')
    assert.deepEqual(await settle([succeeded]), ['succeeded'])
    clock.advance(20 * 60_000)

    const overview = await readOperatorOverview(app.context)
    const mtn = overview.connections.find((row) => row.channel === 'mtn-momo' && row.country === 'CI')!
    assert.ok(mtn.connectionId, 'served by a connection of OPERATORS_FILE')
    assert.deepEqual(
      { ...mtn.last30Days, medianToFinal: undefined, p95ToFinal: undefined },
      {
        operations: 4,
        ended: 3,
        succeeded: 2,
        successRate: 2 / 3,
        medianToFinal: undefined,
        p95ToFinal: undefined,
      },
    )
    assert.deepEqual(
      {
        operations: mtn.last24Hours.operations,
        ended: mtn.last24Hours.ended,
        successRate: mtn.last24Hours.successRate,
      },
      { operations: 2, ended: 1, successRate: 1 },
    )
    // Settled within a few 3 s steps of the clock: in the buckets up to 30 s, never longer.
    for (const quantile of [mtn.last30Days.medianToFinal, mtn.last30Days.p95ToFinal]) {
      assert.ok(quantile && !quantile.longer && quantile.atMostMs <= 30_000, JSON.stringify(quantile))
      assert.ok(durationBucketsMs.includes(quantile.atMostMs as (typeof durationBucketsMs)[number]))
    }
    assert.equal(mtn.pendingOver15Minutes, 1)
    const waiting = await app.db
      .selectFrom('events')
      .innerJoin('operations', 'operations.id', 'events.operation_id')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('events.delivery_status', '=', 'pending')
      .where('operations.mode', '=', 'live')
      .executeTakeFirstOrThrow()
    assert.equal(mtn.callbacksWaiting, Number(waiting.count))
    assert.ok(mtn.callbacksWaiting > 0, 'the merchant’s endpoint never answers: its callbacks wait')

    assert.equal(mtn.days.length, 30)
    assert.equal(mtn.days.at(-1)!.dayUs, startOfDayUs(todayUs))
    const firstDay = mtn.days.find((day) => day.dayUs === startOfDayUs(startUs))!
    assert.deepEqual(
      { operations: firstDay.operations, successRate: firstDay.successRate },
      { operations: 2, successRate: 0.5 },
    )
    assert.equal(
      mtn.days.reduce((total, day) => total + day.operations, 0),
      4,
    )

    const quiet = overview.connections.find((row) => row.channel === 'orange-money' && row.country === 'CI')!
    assert.deepEqual(
      {
        operations: quiet.last30Days.operations,
        successRate: quiet.last30Days.successRate,
        late: quiet.pendingOver15Minutes,
      },
      { operations: 0, successRate: null, late: 0 },
    )
  })

  test('the roll-up counts again only the hours that can still change, and never writes in a collect', async () => {
    const marks = await app.context.store.operatorHours.marks()
    assert.ok(marks)
    assert.ok(marks.finalBeforeUs <= startOfHourUs(clock.nowUs()) - hourUs, 'the last hour is counted again')
    const rows = await app.db
      .selectFrom('operator_hours')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow()
    const token = await collect('0700000003')
    assert.deepEqual(await settle([token]), ['succeeded'])
    const unchanged = await app.db
      .selectFrom('operator_hours')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow()
    assert.equal(Number(unchanged.count), Number(rows.count), 'a collect writes no roll-up row')
    clock.advance(3 * 60_000)
    const overview = await readOperatorOverview(app.context)
    const mtn = overview.connections.find((row) => row.channel === 'mtn-momo' && row.country === 'CI')!
    assert.equal(mtn.last30Days.operations, 5)
    assert.equal(mtn.last24Hours.operations, 3)
  })

  test("the instances share each minute's roll-up: one that comes within the minute counts nothing again", async () => {
    await rollUpOperatorHours(app.context)
    const counted = await app.context.store.operatorHours.marks()
    assert.ok(counted)
    clock.advance(30_000)
    assert.equal(await rollUpUnlessRecent(app.context, 55_000), false, 'another instance rolled up 30 s ago')
    assert.deepEqual(await app.context.store.operatorHours.marks(), counted)
    clock.advance(30_000)
    assert.equal(await rollUpUnlessRecent(app.context, 55_000), true)
    const rolledAtUs = (await app.context.store.operatorHours.marks())?.rolledAtUs ?? 0
    assert.ok(rolledAtUs >= counted.rolledAtUs + 60_000_000, 'counted again a minute later')
  })
})
