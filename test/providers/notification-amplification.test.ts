import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startMtnMomoSimulator } from '../../src/simulators/mtn-momo/mtn-momo-simulator.ts'
import type { RunningSimulator } from '../../src/simulators/simulator.ts'
import { startWaveSimulator } from '../../src/simulators/wave/wave-simulator.ts'
import type { ApiClient, TestApp } from '../support/app.ts'
import { type LiveApp, startLiveApp } from '../support/live.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * Issue 41, finding 3: an operator's unsigned notification and a customer's return from the
 * operator's page only ask Sika to check a side's status. Anyone can send them, as often as they
 * like: each side gets one status check at a time and at most one a second, duplicates joining the
 * one in flight, so a flood never becomes a flood of calls to the operator.
 */

const webhookSecret = `wave_sn_WHS_${'n'.repeat(43)}`
let sequence = 0

describeEachStore('notifications and checkout returns never amplify toward the operators', (store) => {
  let mtn: RunningSimulator
  let wave: RunningSimulator
  let running: LiveApp
  let app: TestApp
  let live: ApiClient

  before(async () => {
    running = await startLiveApp(store(), async (publicBaseUrl) => {
      mtn = await startMtnMomoSimulator({ settleDelayMs: 100 })
      wave = await startWaveSimulator({
        settleDelayMs: 100,
        webhookUrl: `${publicBaseUrl}/providers/wave/notifications`,
        webhookSecret,
      })
      return [
        { simulator: mtn, channel: 'mtn-momo', countries: ['CI'] },
        { simulator: wave, channel: 'wave', countries: ['SN'] },
      ]
    })
    ;({ app, live } = running)
  })
  after(() => running?.close())

  /** A collect pending for ever at its operator (104): every check of it finds it pending. */
  async function pendingCollect(channel: string, country: string, phoneNumber: string) {
    const response = await live.post('/api/v1/collect', {
      amount: 5000,
      channel,
      country,
      customer: { phoneNumber },
      merchantReference: `flood-${sequence++}`,
      callbackUrl: 'https://merchant.example/callback',
    })
    assert.equal(response.status, 200, response.text)
    return response.body.data.collect
  }

  /** `count` requests, 50 at a time (a flood's count is what matters, not its connections). */
  async function flood(count: number, send: () => Promise<Response>) {
    const started = Date.now()
    const statuses = new Set<number>()
    let sent = 0
    const sender = async () => {
      while (sent < count) {
        sent++
        const answer = await send()
        statuses.add(answer.status)
        await answer.arrayBuffer()
      }
    }
    await Promise.all(Array.from({ length: 50 }, sender))
    return { statuses, elapsedMs: Date.now() - started }
  }

  test('1,000 MTN notifications for one side: a status check or two, not a thousand', async () => {
    const record = await pendingCollect('mtn-momo', 'CI', '+2250500000104')
    const statusChecks = () =>
      mtn.requests.filter(
        (request) => request.method === 'GET' && request.url.startsWith('/collection/v1_0/requesttopay/'),
      ).length
    const before = statusChecks()
    const url = `${app.url}/providers/mtn-momo/notifications?token=${record.token}&role=main`
    const { statuses, elapsedMs } = await flood(1000, () =>
      fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' }),
    )
    const checks = statusChecks() - before
    console.log(`# 1,000 MTN notifications in ${elapsedMs} ms: ${checks} status checks (before: 1,002)`)
    assert.deepEqual([...statuses], [200])
    assert.ok(checks >= 1, 'the side was checked')
    assert.ok(checks <= 2 + elapsedMs / 1000, `${checks} checks in ${elapsedMs} ms: at most one a second`)
  })

  test('500 returns from the Wave page for one side: a status check or two, not five hundred', async () => {
    const record = await pendingCollect('wave', 'SN', '+221770000104')
    const lookups = () =>
      wave.requests.filter(
        (request) => request.method === 'GET' && request.url.startsWith('/v1/checkout/sessions'),
      ).length
    const before = lookups()
    const { elapsedMs } = await flood(500, () =>
      fetch(`${app.url}/checkout/${record.token}/return`, { redirect: 'manual' }),
    )
    const checks = lookups() - before
    console.log(`# 500 checkout returns in ${elapsedMs} ms: ${checks} status checks (before: 500)`)
    assert.ok(checks >= 1)
    assert.ok(checks <= 2 + elapsedMs / 1000, `${checks} checks in ${elapsedMs} ms`)
  })

  test('the notification answer says nothing of the operation it names', async () => {
    const record = await pendingCollect('mtn-momo', 'CI', '+2250500000104')
    const answer = await fetch(
      `${app.url}/providers/mtn-momo/notifications?token=${record.token}&role=main`,
      {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      },
    )
    assert.equal(answer.status, 200)
    assert.deepEqual(await answer.json(), { received: true })
  })
})
