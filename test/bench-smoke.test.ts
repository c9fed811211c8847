import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { postgresAvailable } from './support/stores.ts'

const repositoryRoot = fileURLToPath(new URL('..', import.meta.url))
const wrkInstalled = spawnSync('wrk', ['--version']).error === undefined

/**
 * `npm run bench` never runs inside npm test; this smoke run, with tiny stores and durations,
 * makes sure it keeps working: every scenario on every store produces a row of answered requests.
 * The figures themselves mean nothing at this size (BENCHMARKS.md holds a full run).
 */
test('npm run bench -- --smoke prints every scenario for every store', {
  timeout: 600_000,
  skip: wrkInstalled ? false : 'wrk is not installed (apt-get install -y wrk; .ci/run does it)',
}, () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--smoke'], {
    cwd: repositoryRoot,
    encoding: 'utf8',
    timeout: 540_000,
    killSignal: 'SIGKILL',
  })
  assert.equal(run.status, 0, `bench exited ${run.status}:\n${run.stderr}\n${run.stdout}`)
  const report = run.stdout
  const stores = postgresAvailable ? ['sqlite', 'postgres'] : ['sqlite']
  for (const store of stores) {
    for (const scenario of [
      'details',
      'list first page',
      'filtered deep page',
      'POST collect',
      'POST collect, API only',
      'POST disbursement',
      'mix 80/20',
    ]) {
      const row = report.split('\n').find((line) => line.startsWith(`| ${store} | 300 | ${scenario} |`))
      assert.ok(row, `no row for ${store} ${scenario}:\n${report}`)
      const perSecond = Number(row.split('|')[4]!.replaceAll(',', ''))
      assert.ok(perSecond > 0, row)
    }
  }
  for (const heading of [
    "## Baselines (same run, measured after each store's rows; each store's ratios use its own)",
    '## Scaling',
    '## Overload (open loop)',
    '## Callbacks and soak',
  ])
    assert.ok(report.includes(heading), heading)
  assert.match(
    report,
    /raw better-sqlite3, one collect's writes per durable commit \| [\d,]+\/s .* \| [\d,]+\/s/,
  )
  assert.match(report, /\| baseline \| after the sqlite rows \| after the postgres rows \|/)
  assert.match(report, /bare Fastify, the same record/)
  assert.match(report, /each after 0 s of the same load unmeasured/, 'the warm-up is stated')
  // Each scenario of the mechanisms' table once: a collect, a drain and overload on SQLite; details on PostgreSQL.
  assert.match(
    report,
    /\| sqlite \| group commit \| POST collect \| [\d,]+\/s .*\| [\d,]+\/s .*\| [\d.]+× \|/,
  )
  assert.match(report, /\| sqlite \| grouped writes \| callbacks drain \| [\d,]+\/s/)
  assert.match(report, /\| sqlite \| admission \| mix at 2x its saturating rate \| p99 [\d,.]+ ms, 503/)
  if (postgresAvailable) assert.match(report, /\| postgres \| read batches \| details \| [\d,]+\/s/)
  assert.match(report, /\| sqlite \|.*RSS every 0\.2 s: \d+(, \d+)* MB \|/, 'the soak samples its RSS')
  // The merchant controls' checks, as a share of each store's API-only collect.
  assert.match(
    report,
    /## Merchant controls on a collect\n.*: [\d,]+ ns for a collect, [\d,]+ ns for a payout/,
  )
  assert.match(report, /\| sqlite \| 100 \| [\d,]+ \| [\d,.]+ \| [\d.]+ % \(within 3 %\) \|/)
})

test('npm run bench refuses bad options at once, saying what it takes', () => {
  for (const [args, says] of [
    [['--seconds', 'abc'], /--seconds takes a whole number of at least 1; got "abc"/],
    [['--stores', 'mysql'], /--stores takes sqlite, postgres or both/],
    [['--scales', '10000,lots'], /--scales takes a whole number of at least 1; got "lots"/],
    [['--soak=-5'], /--soak takes a whole number of at least 0; got "-5"/],
    [['--warmup', 'soon'], /--warmup takes a whole number of at least 0; got "soon"/],
    [['--mechanisms', 'sometimes'], /--mechanisms takes with, only or none; got "sometimes"/],
    [['--bogus'], /Unknown option '--bogus'/],
  ] as const) {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', ...args], {
      cwd: repositoryRoot,
      encoding: 'utf8',
      timeout: 60_000,
    })
    assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`)
    assert.match(run.stderr, says)
    assert.equal(run.stdout, '', 'nothing was measured')
  }
})
