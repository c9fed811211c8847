/**
 * npm run bench: Sika on SQLite and on PostgreSQL (when it answers), each on a fresh store, seeded,
 * under load from separate processes on 127.0.0.1 (wrk, and an open loop for overload), beside
 * baselines measured in the same run. Prints one Markdown report (BENCHMARKS.md holds one).
 *
 *   npm run bench                      the full run (about 35 minutes)
 *   npm run bench -- --smoke           tiny durations and stores: proves the bench still works
 *   npm run bench -- --stores sqlite --scales 10000 --seconds 5 --soak 0
 *   --warmup N: seconds of unmeasured load before each measured scenario (default 3)
 *   --mechanisms with|only|none: each speed mechanism on and off after the rest (default), alone, or not
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { bareFastify, dropPgbench, initialisePgbench, pgbench, rawSqlite } from './lib/baselines.ts'
import { measureControlsCost } from './lib/controls-cost.ts'
import { type Baselines, renderReport, type StoreReport } from './lib/report.ts'
import { benchStore, postgresReachable, type RunOptions } from './lib/store-run.ts'

const { values } = (() => {
  try {
    return parseArgs({
      options: {
        smoke: { type: 'boolean', default: false },
        seconds: { type: 'string' },
        warmup: { type: 'string' },
        connections: { type: 'string' },
        stores: { type: 'string' },
        scales: { type: 'string' },
        soak: { type: 'string' },
        out: { type: 'string' },
        mechanisms: { type: 'string' },
      },
    })
  } catch (error) {
    return refuse((error as Error).message)
  }
})()
const smoke = values.smoke === true
const adminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const options: RunOptions = {
  seconds: whole('--seconds', values.seconds ?? (smoke ? '1' : '10'), 1),
  warmupSeconds: whole('--warmup', values.warmup ?? (smoke ? '0' : '3'), 0),
  connections: whole('--connections', values.connections ?? (smoke ? '8' : '50'), 1),
  scales: (values.scales ?? (smoke ? '100,300' : '10000,1000000'))
    .split(',')
    .map((scale) => whole('--scales', scale, 1)),
  soakSeconds: whole('--soak', values.soak ?? (smoke ? '2' : '300'), 0),
  // 10,000 events: long enough that the draining instance's first seconds (its code not yet
  // optimised) are not most of the measurement.
  callbackOperations: smoke ? 20 : 5000,
  callbackPairs: smoke ? 1 : 3,
  adminUrl,
  mechanisms: mechanismsOption(values.mechanisms ?? 'with'),
  mechanismRounds: smoke ? 1 : 2,
}
const wanted = (values.stores ?? 'sqlite,postgres').split(',')
for (const store of wanted)
  if (store !== 'sqlite' && store !== 'postgres')
    refuse(`--stores takes sqlite, postgres or both, comma-separated; got "${store}"`)

/** Bad options stop the bench before it starts anything, with what to write instead. */
function refuse(problem: string): never {
  process.stderr.write(`bench: ${problem}\n(the options are listed at the top of bench/run.ts)\n`)
  process.exit(2)
}

function mechanismsOption(text: string): RunOptions['mechanisms'] {
  if (text === 'with' || text === 'only' || text === 'none') return text
  return refuse(`--mechanisms takes with, only or none; got "${text}"`)
}

function whole(option: string, text: string, least: number): number {
  const value = Number(text)
  if (!Number.isInteger(value) || value < least)
    refuse(`${option} takes a whole number of at least ${least}; got "${text}"`)
  return value
}
// Every scenario's load comes from wrk: without it the bench would fail minutes in, at its first scenario.
if (spawnSync('wrk', ['--version']).error)
  refuse("wrk is not installed: apt-get install -y wrk (Debian's package; .ci/run installs it)")
const folder = mkdtempSync(join(tmpdir(), 'sika-bench-'))

try {
  const withPostgres = wanted.includes('postgres') && postgresReachable(adminUrl)
  const stores: StoreReport[] = []
  let recordFile: string | undefined
  for (const store of wanted) {
    if (store === 'postgres' && !withPostgres) {
      process.stderr.write('bench: PostgreSQL does not answer; its rows are skipped\n')
      continue
    }
    const report = await benchStore(store as 'sqlite' | 'postgres', folder, options)
    recordFile ??= report.recordFile
    // Measured again after each store's rows, and each store's ratios taken against its own: on
    // a shared machine the same baseline moved by a third between the start and the end of a run.
    report.baselines = await measureBaselines(recordFile, withPostgres)
    stores.push(report)
  }
  log("merchant controls: an initiation's checks, timed in this process")
  const controls = await measureControlsCost(smoke ? 20_000 : 2_000_000)
  const text = renderReport({
    options,
    stores,
    generator: 'wrk 4.1 (2 threads), open loop for overload',
    controls,
  })
  process.stdout.write(text)
  if (values.out) writeFileSync(values.out, text)
} finally {
  rmSync(folder, { recursive: true, force: true })
}

async function measureBaselines(recordFile: string | undefined, withPostgres: boolean): Promise<Baselines> {
  log('baselines: raw SQLite, bare Fastify, pgbench')
  const baselines: Baselines = {
    sqliteSingle: await rawSqlite(folder, options.seconds, 1),
    sqliteBatched: await rawSqlite(folder, options.seconds, 50),
    fastify: recordFile
      ? await bareFastify(folder, recordFile, options.seconds, options.connections, options.warmupSeconds)
      : undefined,
  }
  if (withPostgres) {
    try {
      initialisePgbench(adminUrl, 10)
      baselines.pgbenchTpcb = pgbench(adminUrl, options.seconds, options.connections, false)
      baselines.pgbenchSelect = pgbench(adminUrl, options.seconds, options.connections, true)
      initialisePgbench(adminUrl, 1)
      baselines.pgbenchTpcbOneBranch = pgbench(adminUrl, options.seconds, options.connections, false)
    } finally {
      dropPgbench(adminUrl)
    }
  }
  return baselines
}

function log(text: string): void {
  process.stderr.write(`bench: ${text}\n`)
}
