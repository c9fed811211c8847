import { cpus, totalmem } from 'node:os'
import type { PgbenchResult, SqliteBaseline } from './baselines.ts'
import { callbackConcurrency } from './callbacks.ts'
import type { ControlsCost } from './controls-cost.ts'
import type { LoadResult } from './load.ts'
import type { MechanismRow } from './mechanisms.ts'
import { mechanismLines } from './mechanisms-report.ts'
import { apiOnlyScenario } from './scenarios.ts'
import { eventLoopResolutionMs } from './sika.ts'
import type { RunOptions } from './store-run.ts'

export interface ScenarioRow {
  scenario: string
  load: LoadResult
  peakRssMb: number
  eventLoopP99Ms: number
}

export interface OverloadFigures {
  saturatingRate: number
  unloaded: LoadResult & { admittedP99Ms: number }
  overloaded: LoadResult & { admittedP99Ms: number; shedWithoutRetryAfter: number }
  peakRssMb: number
  /** The same open loop at the same rates against bare Fastify: the generator's own p99. */
  generator: { unloaded: LoadResult; overloaded: LoadResult }
}

export interface DrainFigures {
  deliveries: number
  expected: number
  seconds: number
  perSecond: number
}

/** Drains alone and beside a dead endpoint, alternated: `alone[i]` ran just before `besideDead[i]`. */
export interface CallbackFigures {
  alone: DrainFigures[]
  besideDead: DrainFigures[]
}

export interface SoakFigures {
  seconds: number
  startRssMb: number
  /** Sampled every tenth of the soak: a leak climbs throughout, a heap taking its size levels off. */
  rssSeriesMb: number[]
  endRssMb: number
  row: ScenarioRow
}

export interface StoreReport {
  store: 'sqlite' | 'postgres'
  recordFile: string
  scales: { scale: number; rows: ScenarioRow[]; overload: OverloadFigures }[]
  callbacks?: CallbackFigures
  soak?: SoakFigures
  /** Each speed mechanism on and off, on its own scenario. */
  mechanisms?: MechanismRow[]
  /** Measured right after this store's run; its rows' ratios are taken against these. */
  baselines?: Baselines
}

export interface Baselines {
  sqliteSingle: SqliteBaseline
  sqliteBatched: SqliteBaseline
  fastify?: LoadResult
  /** Scale 10: ten branch rows that every transaction's update spreads over, as ten merchants' counters. */
  pgbenchTpcb?: PgbenchResult
  pgbenchSelect?: PgbenchResult
  /** Scale 1: one branch row that every transaction updates, as one merchant's initiations do its counters. */
  pgbenchTpcbOneBranch?: PgbenchResult
}

const n = (value: number, digits = 0) =>
  Number.isFinite(value)
    ? value.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '-'
const pct = (value: number) => (Number.isFinite(value) ? `${n(value * 100, 1)} %` : '-')
const errors = (load: LoadResult) =>
  Object.entries(load.statuses)
    .filter(([status]) => Number(status) >= 300)
    .reduce((sum, [, count]) => sum + count, load.unanswered)
const isRead = (scenario: string) => scenario === 'details' || scenario.includes('page')
const isWrite = (scenario: string) => scenario.startsWith('POST')

/** The baseline a scenario is held against, and the ratio of requests/s. */
function against(store: string, row: ScenarioRow, b: Baselines): [string, number] {
  const rate = row.load.perSecond
  if (isRead(row.scenario)) {
    if (store === 'postgres' && b.pgbenchSelect)
      return ['pgbench select-only', rate / b.pgbenchSelect.transactionsPerSecond]
    return b.fastify ? ['bare Fastify', rate / b.fastify.perSecond] : ['-', Number.NaN]
  }
  if (isWrite(row.scenario)) {
    if (store === 'postgres') {
      const manyMerchants = row.scenario.includes('merchants')
      const tpcb = manyMerchants ? b.pgbenchTpcb : b.pgbenchTpcbOneBranch
      if (tpcb)
        return [
          `pgbench TPC-B, ${manyMerchants ? '10 branches' : '1 branch'}`,
          rate / tpcb.transactionsPerSecond,
        ]
    }
    return ['raw SQLite, 1 op/commit', rate / b.sqliteSingle.operationsPerSecond]
  }
  return b.fastify ? ['bare Fastify', rate / b.fastify.perSecond] : ['-', Number.NaN]
}

function scenarioTable(stores: StoreReport[]): string[] {
  const lines = [
    '| store | operations | scenario | req/s | p50 ms | p99 ms | errors | peak RSS MB | loop delay p99 ms | baseline | ratio |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|---|---:|',
  ]
  for (const report of stores)
    for (const { scale, rows } of report.scales)
      for (const row of rows) {
        const [name, ratio] = report.baselines
          ? against(report.store, row, report.baselines)
          : ['-', Number.NaN]
        lines.push(
          `| ${report.store} | ${n(scale)} | ${row.scenario} | ${n(row.load.perSecond)} | ${n(row.load.p50Ms, 2)} | ${n(row.load.p99Ms, 2)} | ${errors(row.load)} | ${n(row.peakRssMb)} | ${n(row.eventLoopP99Ms, 1)} | ${name} | ${pct(ratio)} |`,
        )
      }
  return lines
}

function scalingTable(stores: StoreReport[]): string[] {
  const lines = [
    '| store | scenario | p50 small → large | p99 small → large | p50 ×, p99 × |',
    '|---|---|---|---|---|',
  ]
  for (const report of stores) {
    const small = report.scales[0]
    const large = report.scales.at(-1)
    if (!small || !large || small === large) continue
    for (const row of small.rows) {
      const other = large.rows.find((candidate) => candidate.scenario === row.scenario)
      if (!other) continue
      lines.push(
        `| ${report.store} | ${row.scenario} | ${n(row.load.p50Ms, 2)} → ${n(other.load.p50Ms, 2)} ms | ${n(row.load.p99Ms, 2)} → ${n(other.load.p99Ms, 2)} ms | ${n(other.load.p50Ms / row.load.p50Ms, 2)}, ${n(other.load.p99Ms / row.load.p99Ms, 2)} |`,
      )
    }
  }
  return lines
}

function overloadTable(stores: StoreReport[]): string[] {
  const lines = [
    '| store | operations | saturating mix req/s | offered at 2× | answers by status | other 5xx | shed without Retry-After | admitted p99 at 0.5× → at 2× | × | the open loop alone (bare Fastify) p99 at 0.5× → at 2× |',
    '|---|---:|---:|---:|---|---:|---:|---|---:|---|',
  ]
  for (const report of stores)
    for (const { scale, overload } of report.scales) {
      const o = overload.overloaded
      const statuses = Object.entries(o.statuses)
        .map(([status, count]) => `${status}: ${count}`)
        .join(', ')
      const other5xx = Object.entries(o.statuses)
        .filter(([s]) => Number(s) >= 500 && s !== '503')
        .reduce((sum, [, c]) => sum + c, 0)
      lines.push(
        `| ${report.store} | ${n(scale)} | ${n(overload.saturatingRate)} | ${n(overload.saturatingRate * 2)} | ${statuses}; unanswered ${o.unanswered} | ${other5xx} | ${o.shedWithoutRetryAfter} | ${n(overload.unloaded.admittedP99Ms, 1)} → ${n(o.admittedP99Ms, 1)} ms | ${n(o.admittedP99Ms / overload.unloaded.admittedP99Ms, 2)} | ${n(overload.generator.unloaded.p99Ms, 1)} → ${n(overload.generator.overloaded.p99Ms, 1)} ms |`,
      )
    }
  return lines
}

function callbackAndSoakLines(stores: StoreReport[]): string[] {
  const lines = [
    "| store | callbacks alone | beside a dead endpoint | each pair's change, and the means' | soak | RSS start (under its load) → end | growth |",
    '|---|---|---|---|---|---|---:|',
  ]
  for (const report of stores) {
    const c = report.callbacks
    const s = report.soak
    const soak = s
      ? `${s.seconds} s of the mix, ${n(s.row.load.perSecond)} req/s, p99 ${n(s.row.load.p99Ms, 1)} ms, errors ${errors(s.row.load)}; RSS every ${n(s.seconds / 10, s.seconds < 10 ? 1 : 0)} s: ${s.rssSeriesMb.map((mb) => n(mb)).join(', ')} MB`
      : '-'
    lines.push(
      `| ${report.store} | ${drains(c?.alone)} | ${drains(c?.besideDead)} | ${c ? pairChanges(c) : '-'} | ${soak} | ${s ? `${n(s.startRssMb)} → ${n(s.endRssMb)} MB` : '-'} | ${s ? pct(s.endRssMb / s.startRssMb - 1) : '-'} |`,
    )
  }
  return lines
}

/** Each drain's rate, in the order they ran, then what they delivered of what was due and how long it took. */
function drains(figures: DrainFigures[] | undefined): string {
  if (!figures || figures.length === 0) return '-'
  const rates = figures.map((d) => n(d.perSecond)).join(' / ')
  const delivered = figures.map((d) => `${d.deliveries} of ${d.expected} in ${n(d.seconds, 2)} s`).join('; ')
  return `${rates}/s, mean ${n(mean(figures))}/s (${delivered})`
}

function pairChanges(c: CallbackFigures): string {
  const pairs = c.besideDead.map((beside, i) => signed(beside.perSecond / c.alone[i]!.perSecond - 1))
  return `${pairs.join(', ')}; means ${signed(mean(c.besideDead) / mean(c.alone) - 1)}`
}

const mean = (figures: DrainFigures[]) =>
  figures.reduce((sum, d) => sum + d.perSecond, 0) / Math.max(1, figures.length)
const signed = (change: number) => (change >= 0 ? `+${pct(change)}` : pct(change))

/** One row per baseline, one column per measurement (after each store's rows). */
function baselineLines(stores: StoreReport[], connections: number): string[] {
  const measured = stores.filter((report) => report.baselines)
  const row = (name: string, cell: (b: Baselines) => string | undefined) => {
    const cells = measured.map((report) => cell(report.baselines!) ?? '-')
    return cells.every((text) => text === '-') ? [] : [`| ${name} | ${cells.join(' | ')} |`]
  }
  const latency = (rate: string, detail: string) => `${rate} (${detail})`
  return [
    `| baseline | ${measured.map((report) => `after the ${report.store} rows`).join(' | ')} |`,
    `|---|${measured.map(() => '---:').join('|')}|`,
    ...row("raw better-sqlite3, one collect's writes per durable commit", (b) =>
      latency(
        `${n(b.sqliteSingle.operationsPerSecond)}/s`,
        `commit p50 ${n(b.sqliteSingle.commitP50Us / 1000, 2)} ms, p99 ${n(b.sqliteSingle.commitP99Us / 1000, 2)} ms`,
      ),
    ),
    ...row('raw better-sqlite3, 50 per commit', (b) =>
      latency(
        `${n(b.sqliteBatched.operationsPerSecond)}/s`,
        `commit p99 ${n(b.sqliteBatched.commitP99Us / 1000, 2)} ms`,
      ),
    ),
    ...row(
      `bare Fastify, the same record, wrk ${connections} connections`,
      (b) =>
        b.fastify &&
        latency(
          `${n(b.fastify.perSecond)} req/s`,
          `p50 ${n(b.fastify.p50Ms, 2)} ms, p99 ${n(b.fastify.p99Ms, 2)} ms`,
        ),
    ),
    ...row(`pgbench TPC-B-like, scale 10 (10 branches), ${connections} clients`, (b) => tps(b.pgbenchTpcb)),
    ...row(`pgbench TPC-B-like, scale 1 (1 branch), ${connections} clients`, (b) =>
      tps(b.pgbenchTpcbOneBranch),
    ),
    ...row(`pgbench select-only, ${connections} clients`, (b) => tps(b.pgbenchSelect)),
  ]
}

function tps(result: PgbenchResult | undefined): string | undefined {
  return result && `${n(result.transactionsPerSecond)} TPS (average ${n(result.latencyAverageMs, 2)} ms)`
}

/**
 * The merchant controls' checks against a collect: their time per request, measured in this
 * process, as a share of the time a collect takes at each store's POST collect rate (API only: the
 * write path alone), which is what one instance's event loop spends per collect. The bound is 3 %.
 */
function controlsLines(stores: StoreReport[], cost: ControlsCost | undefined): string[] {
  if (!cost) return []
  const lines = [
    '## Merchant controls on a collect',
    `An initiation's checks of the platform's controls, read with the credential (no query of their own): ${n(cost.collectNs)} ns for a collect, ${n(cost.payoutNs)} ns for a payout (its pause and daily limit as well), timed in the bench's process. Their share of a collect at each store's API-only rate, where one instance's loop spends 1/rate per request; the bound is 3 %.`,
    '',
    "| store | operations | API-only req/s | µs a collect | the checks' share |",
    '|---|---:|---:|---:|---:|',
  ]
  for (const report of stores)
    for (const { scale, rows } of report.scales) {
      const row = rows.find((candidate) => candidate.scenario === apiOnlyScenario)
      if (!row) continue
      const share = (cost.collectNs / 1000) * (row.load.perSecond / 1e6)
      lines.push(
        `| ${report.store} | ${n(scale)} | ${n(row.load.perSecond)} | ${n(1e6 / row.load.perSecond, 1)} | ${pct(share)} ${share <= 0.03 ? '(within 3 %)' : '(**above 3 %**)'} |`,
      )
    }
  return [...lines, '']
}

export function renderReport(input: {
  options: RunOptions
  stores: StoreReport[]
  generator: string
  controls?: ControlsCost
}): string {
  const { options, stores } = input
  const cpu = cpus()
  return [
    `# Bench run ${new Date().toISOString()}`,
    '',
    `Machine: ${cpu.length} × ${cpu[0]?.model ?? '?'}, ${n(totalmem() / 2 ** 30)} GiB, Node ${process.version}. Load: ${input.generator}, ${options.connections} connections, ${options.seconds} s per scenario, each after ${options.warmupSeconds} s of the same load unmeasured (bare Fastify too). Loop delay: prom-client's monitorEventLoopDelay p99 less its ${eventLoopResolutionMs} ms timer interval.`,
    '',
    "## Baselines (same run, measured after each store's rows; each store's ratios use its own)",
    ...baselineLines(stores, options.connections),
    '',
    '## Scenarios',
    ...scenarioTable(stores),
    '',
    '## Scaling (smallest → largest store)',
    ...scalingTable(stores),
    '',
    '## Overload (open loop)',
    ...overloadTable(stores),
    '',
    '## Callbacks and soak',
    `Callbacks: events made with no instance delivering, then drained by one instance with CALLBACK_CONCURRENCY=${callbackConcurrency} (${Math.ceil(Number(callbackConcurrency) / 4)} in flight to one endpoint); the second drain makes the same operations for the live endpoint and half as many again, every third, for an endpoint that never answers. The two alternate, ${options.callbackPairs === 1 ? 'once' : `${options.callbackPairs} times`} on each store, with a new dead endpoint each time.`,
    '',
    ...callbackAndSoakLines(stores),
    '',
    ...controlsLines(stores, input.controls),
    ...mechanismLines(stores),
  ].join('\n')
}
