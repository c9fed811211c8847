import assert from 'node:assert/strict'
import type { ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { after, before, test } from 'node:test'
import { runLeaseMs } from '../../src/app/reconciliation/run.ts'
import { startPawapaySimulator } from '../../src/simulators/pawapay/pawapay-simulator.ts'
import type { RunningSimulator } from '../../src/simulators/simulator.ts'
import { type ApiClient, apiClient, testSecretsKey } from '../support/app.ts'
import { type CliResult, runSikaIn } from '../support/cli.ts'
import {
  createMerchantWithCli,
  type GroupedService,
  openStoreReader,
  type StoreReader,
  startGroupedService,
  stopAllGroupedServices,
  writeOperatorsFile,
} from '../support/live-process.ts'
import { freePort, spawnSika, stopGroup } from '../support/process.ts'
import { describeEachStore } from '../support/stores.ts'
import { waitFor } from '../support/wait.ts'

/**
 * CONTRACT.md, Reconciliation: a run killed with SIGKILL in its middle, then run again, gives the
 * result a run never killed gives. `sika reconcile` is killed while it waits for pawaPay's
 * asynchronous statement, its run leased to it; asked again at once, the day is refused as running
 * elsewhere (never two runs of one day); once the dead run's lease has passed, the day runs whole:
 * the payment pawaPay succeeded without a notification is repaired once, the unknown line is a
 * break that moves no money, and a run after it keeps every break's id.
 */

// The day the test's operations are made, read once: a run that crosses midnight still covers it.
const today = new Date().toISOString().slice(0, 10)
const day = () => today

describeEachStore('SIGKILL in the middle of a reconciliation run', (store) => {
  let simulator: RunningSimulator
  let operators: ReturnType<typeof writeOperatorsFile>
  let settings: Record<string, string>
  let connection: string
  let service: GroupedService
  let client: ApiClient
  let reader: StoreReader
  let port: number

  before(async () => {
    port = await freePort()
    const notifications = `http://127.0.0.1:${port}/providers/pawapay/notifications`
    simulator = await startPawapaySimulator({
      settleDelayMs: 50,
      // Long enough for the run to be killed while it waits for the statement.
      statementDelayMs: 4000,
      depositCallbackUrl: notifications,
      payoutCallbackUrl: notifications,
      refundCallbackUrl: notifications,
    })
    operators = writeOperatorsFile([{ simulator, channel: 'moov-money', countries: ['BJ'] }])
    connection = JSON.parse(readFileSync(operators.file, 'utf8')).connections[0].id
    settings = {
      DATABASE_URL: store().databaseUrl,
      OPERATORS_FILE: operators.file,
      SECRETS_KEY: testSecretsKey,
      RATE_LIMIT_PER_SECOND: '0',
    }
    const keys = (await createMerchantWithCli(store().databaseUrl, 'Reconciliation crash merchant')).live
    service = await startGroupedService(settings, port)
    client = apiClient(service.url, keys)
    reader = await openStoreReader(store())
  })
  after(async () => {
    await reader?.close()
    await stopAllGroupedServices()
    await simulator?.close()
    operators?.remove()
  })

  const control = async (path: string, body: unknown) => {
    const answer = await fetch(`${simulator.url}/_simulator/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    assert.ok(answer.ok, `${path}: ${answer.status} ${await answer.clone().text()}`)
    return answer.json()
  }
  const statementsAsked = async () => {
    const requests = (await (await fetch(`${simulator.url}/_simulator/requests`)).json()) as {
      method: string
      url: string
    }[]
    return requests.filter((one) => one.method === 'POST' && one.url.startsWith('/v2/statements')).length
  }
  const reconcile = async (): Promise<CliResult & { report: any }> => {
    const result = await runSikaIn(
      undefined,
      ['reconcile', '--connection', connection, '--date', day(), '--json'],
      settings,
      120_000,
    )
    return { ...result, report: result.stdout.trim() ? JSON.parse(result.stdout) : undefined }
  }

  async function collect(reference: string, ending: string, settled: boolean) {
    const answer = await client.post('/api/v1/collect', {
      amount: 5000,
      channel: 'moov-money',
      country: 'BJ',
      customer: { phoneNumber: `+2290197000${ending}` },
      merchantReference: reference,
      callbackUrl: 'https://merchant.example/callback',
    })
    assert.equal(answer.status, 200, answer.text)
    const token = answer.body.data.collect.token as string
    if (settled)
      await waitFor(
        `${reference} succeeded`,
        async () => (await reader.operation(reference))?.status === 'succeeded',
      )
    const written = await reader.operation(reference)
    return {
      token,
      operatorReference: (written!.sides[0] as { operatorReference: string }).operatorReference,
    }
  }

  test('killed while it waits for the statement, the day runs whole once the lease has passed', async () => {
    for (let i = 0; i < 4; i++) await collect(`crash-${i}`, '120', true)
    // 104: pending forever at pawaPay with no callback; then succeeded there, silently.
    const silent = await collect('crash-silent', '104', false)
    const available = async () =>
      (await client.get('/api/v1/balance')).body.data.balances.find((one: any) => one.currency === 'XOF')
        .available as number
    const availableBefore = await available()
    // The service stops first: its own polling would otherwise find the silent success before
    // the reconciliation does.
    await service.stop()
    await control('books/breaks', { kind: 'silent-success', payment: silent.operatorReference })
    await control('books/breaks', { kind: 'unknown-line', amount: '700', provider: 'MOOV_BEN' })

    const asked = await statementsAsked()
    const killed = spawnRun()
    await waitFor('the killed run to ask for its statement', async () => (await statementsAsked()) > asked)
    const killedAtMs = Date.now()
    await stopGroup(killed, 'SIGKILL')
    assert.equal((await reader.operation('crash-silent'))?.status, 'pending', 'nothing repaired yet')

    const refused = await reconcile()
    assert.equal(refused.code, 1, refused.stderr)
    assert.equal(refused.report.status, 'failed')
    assert.match(refused.report.reason, /Another instance is running this day/)

    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, killedAtMs + runLeaseMs + 1000 - Date.now())),
    )
    const whole = await reconcile()
    assert.equal(whole.code, 0, whole.stderr)
    assert.equal(whole.report.status, 'completed', whole.report.reason)
    const kinds = whole.report.breaks.map((one: any) => [one.kind, one.state]).sort()
    assert.deepEqual(kinds, [
      ['missing_in_sika', 'open'],
      ['status_mismatch', 'auto_resolved'],
    ])
    assert.equal((await reader.operation('crash-silent'))?.status, 'succeeded')
    const repaired = whole.report.breaks.find((one: any) => one.kind === 'status_mismatch')
    assert.equal(repaired.token, silent.token)
    // The repair credited the silent payment once; the unknown line moved nothing.
    service = await startGroupedService(settings, port)
    const credited = (await available()) - availableBefore
    const silentRecord = (await client.get(`/api/v1/collect/${silent.token}`)).body.data.collect
    assert.equal(silentRecord.status, 'succeeded')
    assert.ok(credited > 0 && credited <= 5000, `credited ${credited}`)

    const again = await reconcile()
    assert.equal(again.code, 0, again.stderr)
    assert.deepEqual(
      again.report.breaks.map((one: any) => one.id).sort(),
      whole.report.breaks.map((one: any) => one.id).sort(),
      'every break keeps its id',
    )
    assert.equal((await available()) - availableBefore, credited, 'no second credit')
  })

  /** `sika reconcile` in a process group of its own, so that SIGKILL reaches all of it. */
  function spawnRun(): ChildProcess {
    const child = spawnSika(['reconcile', '--connection', connection, '--date', day(), '--json'], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...settings },
    })
    child.stdout.resume()
    child.stderr.resume()
    return child
  }
})
