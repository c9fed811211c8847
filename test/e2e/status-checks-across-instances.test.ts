import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import {
  type RunningMtnMomoSimulator,
  startMtnMomoSimulator,
} from '../../src/simulators/mtn-momo/mtn-momo-simulator.ts'
import { apiClient } from '../support/app.ts'
import { runSika } from '../support/cli.ts'
import {
  createMerchantWithCli,
  type GroupedService,
  startGroupedService,
  stopAllGroupedServices,
  writeOperatorsFile,
} from '../support/live-process.ts'
import { freePort } from '../support/process.ts'
import { describeEachStore } from '../support/stores.ts'
import { sleep } from '../support/wait.ts'

/**
 * CONTRACT.md, Limits: "An operator notification that Sika must confirm (MTN, Orange) costs at
 * most one status check per side per second across the deployment, however many arrive." Two
 * `sika serve` processes on one store, their scheduled polls running as in production; 500
 * unsigned notifications for one live collect that MTN keeps pending, sent to both over 10 s.
 * Every status request MTN receives for that payment from the initiation to a second after the
 * flood is counted, Sika's own polls included.
 */

const floodCount = 500
const floodMs = 10_000
/** What MTN's simulator keeps pending for ever (SOURCES.md: test numbers). */
const pendingPhone = '2250500000104'

describeEachStore('500 MTN notifications over 10 s to two instances', (store) =>
  describe('one pending live collect', () => {
    let mtn: RunningMtnMomoSimulator
    let operators: ReturnType<typeof writeOperatorsFile> | undefined
    const services: GroupedService[] = []

    before(async () => {
      mtn = await startMtnMomoSimulator({ settleDelayMs: 100 })
      operators = writeOperatorsFile([{ simulator: mtn, channel: 'mtn-momo', countries: ['CI'] }])
      for (let index = 0; index < 2; index++) {
        const port = await freePort()
        const environment = {
          DATABASE_URL: store().databaseUrl,
          OPERATORS_FILE: operators.file,
          PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
          RATE_LIMIT_PER_SECOND: '0',
        }
        services.push(await startGroupedService(environment, port))
      }
    })

    after(async () => {
      await stopAllGroupedServices()
      await mtn?.close()
      operators?.remove()
    })

    test('at most one status check a second for the side, Sika’s polling included', async () => {
      const keys = (await createMerchantWithCli(store().databaseUrl, 'Flooded merchant')).live
      const initiatedAtMs = Date.now()
      const response = await apiClient(services[0]!.url, keys).post('/api/v1/collect', {
        amount: 5000,
        channel: 'mtn-momo',
        country: 'CI',
        customer: { phoneNumber: pendingPhone },
        merchantReference: 'flooded-collect',
        callbackUrl: 'https://merchant.example/callback',
      })
      assert.equal(response.status, 200, response.text)
      const { token } = response.body.data.collect
      const reference = mtn
        .transactions()
        .find((transaction) => transaction.status === 'PENDING')?.referenceId
      assert.ok(reference, 'MTN holds the payment, pending')

      const statuses = new Map<number, number>()
      const startedAtMs = Date.now()
      await Promise.all(
        Array.from({ length: floodCount }, async (_, index) => {
          await sleep((index * floodMs) / floodCount)
          const service = services[index % services.length]!
          const answer = await fetch(
            `${service.url}/providers/mtn-momo/notifications?token=${token}&role=main`,
            { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' },
          )
          await answer.arrayBuffer()
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
        }),
      )
      const floodEndedAtMs = Date.now()
      // A check asked for at the end of the flood may wait out the second before it.
      await sleep(1500)
      const checks = mtn.requests.filter(
        (request) => request.method === 'GET' && request.url === `/collection/v1_0/requesttopay/${reference}`,
      )
      const windowMs = Date.now() - initiatedAtMs
      const gapsMs = checks.slice(1).map((check, index) => check.receivedAtMs - checks[index]!.receivedAtMs)
      console.log(
        `# ${floodCount} notifications in ${floodEndedAtMs - startedAtMs} ms (${store().name}): ` +
          `${checks.length} status checks in the ${windowMs} ms since the initiation; ` +
          `gaps ${gapsMs.join(', ')} ms`,
      )
      assert.deepEqual([...statuses.entries()], [[200, floodCount]])
      assert.ok(checks.length >= 5, `the side was checked while it was asked about (${checks.length})`)
      assert.ok(checks.length <= 15, `${checks.length} status checks in ${windowMs} ms: at most 15`)
      // The turns are a second apart; each gap is measured at MTN, after each check's own way
      // there, which a loaded machine may stretch or shorten by tens of milliseconds.
      assert.ok(
        gapsMs.every((gapMs) => gapMs >= 750),
        `one check a second across both instances: gaps ${gapsMs.join(', ')} ms`,
      )
      const verified = await runSika(store().databaseUrl, ['verify'])
      assert.equal(verified.code, 0, `sika verify:\n${verified.stdout}${verified.stderr}`)
    })
  }),
)
