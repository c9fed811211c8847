import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { after, before, test } from 'node:test'
import pg from 'pg'
import type { IssuedMerchant } from '../../src/app/merchants.ts'
import { startApp, type TestApp } from '../support/app.ts'
import { type LoadReport, runRetriedLoad } from '../support/retried-load.ts'
import { describeEachStore } from '../support/stores.ts'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts'
import { assertStoreConsistent } from '../support/verify.ts'

/**
 * Issue 8: a database that stops answering in the middle of transactions must never get
 * half-finished work committed, never have an unknown outcome acknowledged with a 200, answer
 * 503 within a few seconds, and recover by itself. The load retries every unknown outcome with the
 * same merchantReference, as a merchant's server would; at the end `sika verify` must be clean.
 */

const callbackUrl = 'http://127.0.0.1:9/callbacks'
const environment = { RATE_LIMIT_PER_SECOND: '0', SANDBOX_DELAY_MS: '300', DATABASE_STATEMENT_TIMEOUT: '2s' }
/**
 * DATABASE_STATEMENT_TIMEOUT 2 s: a statement the server cannot answer is abandoned after 3 s, a pool wait or
 * a connection attempt after 2 s. Requests queued behind a merchant's stuck transaction are
 * answered with it, so each waits out one timeout (they took up to 5 s when each started a
 * transaction of its own afterwards); the rest is margin for a loaded machine.
 */
const unavailableBoundMs = 4500
const readyBoundMs = 1000
const recoveryBoundMs = 5000

/** A mix of everything that writes: credits, holds, delayed outcomes settled by background polls, transfers. */
function requestFor(client: number, n: number) {
  const reference = `c${client}-${n}`
  const phone = `+2250700${String(client).padStart(2, '0')}${String(n % 10)}${['123', '900', '902'][n % 3]}`
  if (n % 7 === 6)
    return {
      path: '/api/v1/transfer',
      body: {
        from: { amount: 1500, channel: 'orange-money', country: 'CI', customer: { phoneNumber: phone } },
        to: { amount: 1000, channel: 'orange-money', country: 'CI', customer: { phoneNumber: phone } },
        merchantReference: reference,
        callbackUrl,
      },
    }
  return {
    path: n % 2 === 0 ? '/api/v1/collect' : '/api/v1/disbursement',
    body: {
      amount: 1000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: phone },
      merchantReference: reference,
      callbackUrl,
    },
  }
}

function assertNoViolations(report: LoadReport, what: string) {
  const statuses = Object.fromEntries(report.statuses)
  assert.deepEqual(report.violations, [], `${what}: ${JSON.stringify(statuses)}`)
  assert.equal(report.statuses.get(500) ?? 0, 0, 'no 500')
  const slowest = Math.max(0, ...report.unavailableMs)
  assert.ok(slowest <= unavailableBoundMs, `the slowest 503 took ${Math.round(slowest)} ms`)
  process.stdout.write(
    `# ${what}: ${report.acknowledged.size} acknowledged, answers ${JSON.stringify(statuses)}, slowest 503 ${Math.round(slowest)} ms\n`,
  )
}

/** The first 200 after `sinceMs`, as a delay: how long the service took to work again. */
function recoveryMs(report: LoadReport, sinceMs: number): number | undefined {
  const first = report.successAtMs.filter((at) => at >= sinceMs).sort((a, b) => a - b)[0]
  return first === undefined ? undefined : first - sinceMs
}

async function probeReady(url: string): Promise<{ status: number; elapsedMs: number }> {
  const started = performance.now()
  const response = await fetch(`${url}/ready`, { signal: AbortSignal.timeout(10_000) })
  await response.text()
  return { status: response.status, elapsedMs: performance.now() - started }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describeEachStore('a stalled database never commits half-finished work', (store) => {
  let app: TestApp
  let proxy: TcpProxy | undefined
  let merchant: IssuedMerchant
  let admin: pg.Client | undefined
  let databaseName = ''

  before(async () => {
    let target = store()
    if (target.name === 'postgres') {
      const url = new URL(target.databaseUrl)
      databaseName = url.pathname.slice(1)
      admin = new pg.Client({ connectionString: target.databaseUrl })
      // The suite's database is dropped (connections terminated) when it ends.
      admin.on('error', () => {})
      await admin.connect()
      proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) })
      url.hostname = '127.0.0.1'
      url.port = String(proxy.port)
      target = { name: 'postgres', databaseUrl: url.toString() }
    }
    app = await startApp(target, { environment, workers: 'background' })
    merchant = await app.createMerchant()
  })
  after(async () => {
    await app?.close()
    await proxy?.stop()
    await admin?.end()
  })

  /** Retried load from `clients` clients until stop(), which answers with what they saw. */
  const startLoad = (clients: number) => {
    let loading = true
    const load = runRetriedLoad({
      url: app.url,
      keys: merchant.sandbox,
      clients,
      requestFor,
      running: () => loading,
    })
    return {
      stop: () => {
        loading = false
        return load
      },
    }
  }

  test('PostgreSQL: the link frozen three times mid-transaction under retried load', {
    timeout: 120_000,
  }, async (t) => {
    if (!proxy || !admin) return t.skip('the network applies to PostgreSQL only')
    const load = startLoad(12)
    const thawedAt: number[] = []
    const readyProbes: { status: number; elapsedMs: number }[] = []
    await sleep(1500)
    for (let cycle = 0; cycle < 3; cycle += 1) {
      proxy.freeze()
      await sleep(1500)
      readyProbes.push(await probeReady(app.url))
      await sleep(3500)
      proxy.thaw()
      thawedAt.push(Date.now())
      await sleep(4000)
    }
    const report = await load.stop()
    assertNoViolations(report, 'three freezes')
    for (const probe of readyProbes) {
      assert.equal(probe.status, 503, '/ready says the database is not answering')
      assert.ok(probe.elapsedMs <= readyBoundMs, `/ready answered in ${Math.round(probe.elapsedMs)} ms`)
    }
    for (const at of thawedAt) {
      const delay = recoveryMs(report, at)
      assert.ok(delay !== undefined && delay <= recoveryBoundMs, `a 200 came ${delay} ms after the thaw`)
    }
    assert.ok((report.statuses.get(503) ?? 0) > 0, 'the freezes were felt: some requests answered 503')
    await assertDatabaseClean(app, admin, databaseName)
  })

  test('PostgreSQL: the link cut three times (connections reset, then refused) under retried load', {
    timeout: 120_000,
  }, async (t) => {
    if (!proxy || !admin) return t.skip('the network applies to PostgreSQL only')
    const load = startLoad(12)
    const restoredAt: number[] = []
    await sleep(1500)
    for (let cycle = 0; cycle < 3; cycle += 1) {
      await proxy.stop()
      await sleep(3000)
      await proxy.start()
      restoredAt.push(Date.now())
      await sleep(4000)
    }
    const report = await load.stop()
    assertNoViolations(report, 'three cuts')
    for (const at of restoredAt) {
      const delay = recoveryMs(report, at)
      assert.ok(
        delay !== undefined && delay <= recoveryBoundMs,
        `a 200 came ${delay} ms after the link came back`,
      )
    }
    assert.ok((report.statuses.get(503) ?? 0) > 0, 'the cuts were felt: some requests answered 503')
    await assertDatabaseClean(app, admin, databaseName)
    t.diagnostic(
      `three cuts: ${[...report.statuses.entries()].map(([status, count]) => `${status}: ${count}`).join(', ')}`,
    )
  })

  test('PostgreSQL: the balance row held FOR UPDATE past the timeouts', { timeout: 60_000 }, async (t) => {
    if (!proxy || !admin) return t.skip('the row lock applies to PostgreSQL only')
    const locker = new pg.Client({ connectionString: store().databaseUrl })
    locker.on('error', () => {})
    await locker.connect()
    let loading = true
    let load: Promise<LoadReport> | undefined
    try {
      await locker.query('begin')
      await locker.query(
        `select * from balances where merchant_id = $1 and mode = 'sandbox' and currency = 'XOF' for update`,
        [merchant.id],
      )
      load = runRetriedLoad({
        url: app.url,
        keys: merchant.sandbox,
        clients: 6,
        requestFor: (client, n) => requestFor(client + 20, n),
        running: () => loading,
      })
      await sleep(6000)
    } finally {
      await locker.query('rollback')
      await locker.end()
    }
    const releasedAt = Date.now()
    await sleep(3000)
    loading = false
    const report = await load
    assertNoViolations(report, 'a row held for 6 s')
    assert.ok((report.statuses.get(503) ?? 0) > 0, 'requests waiting on the lock answered 503')
    const delay = recoveryMs(report, releasedAt)
    assert.ok(
      delay !== undefined && delay <= recoveryBoundMs,
      `a 200 came ${delay} ms after the lock was released`,
    )
    await assertDatabaseClean(app, admin, databaseName)
  })

  test('SQLite: another process holding the write lock past the busy timeout', {
    timeout: 60_000,
  }, async (t) => {
    if (store().name !== 'sqlite') return t.skip('the file lock applies to SQLite only')
    // With BEGIN IMMEDIATE the write lock is taken first, so the busy timeout can only strike at
    // BEGIN, before anything is written: a 503, and nothing half-done to commit.
    const load = startLoad(6)
    await sleep(1000)
    const locker = spawn(
      process.execPath,
      [
        '-e',
        `const db = new (require('better-sqlite3'))(process.argv[1]); db.exec('begin immediate');
         process.stdout.write('locked\\n'); setTimeout(() => { db.exec('rollback'); db.close() }, 5000)`,
        store().databaseUrl,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    )
    try {
      await once(locker.stdout!, 'data')
      await once(locker, 'exit')
    } finally {
      locker.kill('SIGKILL')
    }
    const releasedAt = Date.now()
    await sleep(3000)
    const report = await load.stop()
    assertNoViolations(report, 'the write lock held for 5 s')
    assert.ok((report.statuses.get(503) ?? 0) > 0, 'writes that could not get the lock answered 503')
    const delay = recoveryMs(report, releasedAt)
    assert.ok(
      delay !== undefined && delay <= recoveryBoundMs,
      `a 200 came ${delay} ms after the lock was released`,
    )
    await waitForQuiet()
    await assertStoreConsistent(app)
  })
})

/** Background work (delayed sandbox outcomes) runs on; verify reads one snapshot, so it need not stop. */
async function waitForQuiet() {
  await sleep(500)
}

async function assertDatabaseClean(app: TestApp, admin: pg.Client, databaseName: string) {
  await waitForQuiet()
  await assertStoreConsistent(app)
  const warnings = app.logs.filter((line) => line.includes('already a transaction in progress'))
  assert.deepEqual(warnings, [], 'PostgreSQL never warned that a transaction was already in progress')
  const { rows } = await admin.query(
    `select count(*)::int as stuck from pg_stat_activity
      where datname = $1 and state like 'idle in transaction%' and application_name = 'sika'
        and state_change < now() - interval '1 second'`,
    [databaseName],
  )
  assert.equal(rows[0].stuck, 0, 'no session of ours is left idle inside a transaction')
}
