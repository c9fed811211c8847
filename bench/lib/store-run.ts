import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { seedCopiesOfOperation } from '../../src/store/bulk-seed.ts'
import { parseDatabaseLocation } from '../../src/store/database-location.ts'
import { openStore } from '../../src/store/store.ts'
import { openLoopFloor } from './baselines.ts'
import { measureCallbacks, receiver } from './callbacks.ts'
import { type Keys, type LoadResult, runOpenLoop, runWrk, writeRequests } from './load.ts'
import { measureMechanisms } from './mechanisms.ts'
import type { OverloadFigures, ScenarioRow, SoakFigures, StoreReport } from './report.ts'
import { apiOnlyScenario, collectBody, type ScenarioName, scenarioRequests } from './scenarios.ts'
import {
  api,
  benchSecretsKey,
  callbacksDrained,
  eventLoopP99Ms,
  repositoryRoot,
  rssMb,
  type Sika,
  startSika,
  watchRss,
} from './sika.ts'

export interface RunOptions {
  seconds: number
  /** Unmeasured load before each measured one, so V8's compiled code, not its first runs, is measured. */
  warmupSeconds: number
  connections: number
  scales: number[]
  soakSeconds: number
  callbackOperations: number
  /** How many times the drain alone and the drain beside a dead endpoint alternate. */
  callbackPairs: number
  adminUrl: string
  /** Each speed mechanism on and off (mechanisms.ts): after the rest ('with'), alone ('only'), or not at all. */
  mechanisms: 'with' | 'only' | 'none'
  /** ABBA rounds of each mechanism's on and off: 2 in a run of record, 1 in the smoke run. */
  mechanismRounds: number
}

const log = (text: string) => process.stderr.write(`bench: ${text}\n`)
let runs = 0
const nonce = () => `r${process.pid}x${runs++}x${Date.now()}`

export function postgresReachable(adminUrl: string): boolean {
  try {
    psql(adminUrl, 'select 1')
    return true
  } catch {
    return false
  }
}

function psql(url: string, command: string): void {
  execFileSync('psql', [url, '-qc', command], { stdio: 'ignore' })
}

/** One store, fresh: every scale's scenarios, callbacks, overload and the soak. */
export async function benchStore(
  store: 'sqlite' | 'postgres',
  folder: string,
  options: RunOptions,
): Promise<StoreReport> {
  const databaseName = `sika_bench_${process.pid}`
  const databaseUrl =
    store === 'sqlite' ? join(folder, 'sika.db') : options.adminUrl.replace(/\/[^/]*$/, `/${databaseName}`)
  if (store === 'postgres') {
    psql(options.adminUrl, `drop database if exists ${databaseName}`)
    psql(options.adminUrl, `create database ${databaseName}`)
  }
  let sika = await startSika(databaseUrl)
  const callbacks = await receiver(false)
  // PostgreSQL is vacuumed before each measurement (below, and benchScale's note on why).
  const tidy = store === 'postgres' ? () => psql(databaseUrl, 'vacuum (analyze)') : () => {}
  try {
    const templates = await prepareMerchant(sika, callbacks.url)
    const merchants = [sika.keys, ...(await createMerchants(databaseUrl, 9))]
    const report: StoreReport = { store, scales: [], recordFile: join(folder, 'record.json') }
    writeFileSync(
      report.recordFile,
      JSON.stringify(await api(sika, 'GET', `/api/v1/collect/${templates.failed}`)),
    )
    let seeded = 0
    const scales = options.mechanisms === 'only' ? [] : options.scales
    if (options.mechanisms === 'only') {
      await sika.stop()
      seeded = await seedTo(databaseUrl, templates, options.scales[0]!, seeded)
      sika = await startSika(databaseUrl, {}, sika)
    }
    for (const scale of scales) {
      log(`${store}: seeding to ${scale.toLocaleString('en')} operations`)
      await sika.stop()
      seeded = await seedTo(databaseUrl, templates, scale, seeded)
      sika = await startSika(databaseUrl, {}, sika)
      const measuredScale = await benchScale(
        sika,
        { store, databaseUrl, tidy },
        folder,
        scale,
        options,
        callbacks.url,
        merchants,
      )
      sika = measuredScale.sika
      report.scales.push(measuredScale.figures)
    }
    if (options.mechanisms !== 'none') {
      const measuredMechanisms = await measureMechanisms(sika, store, {
        databaseUrl,
        folder,
        seconds: options.seconds,
        warmupSeconds: options.warmupSeconds,
        connections: options.connections,
        tokens: await sampleTokens(sika, (await api(sika, 'GET', '/api/v1/collect')).meta.pagination.total),
        callbackReceiver: callbacks,
        callbackOperations: options.callbackOperations,
        rounds: options.mechanismRounds,
        sample: options.mechanismRounds < 2,
        tidy,
        nonce,
        log,
      })
      sika = measuredMechanisms.sika
      report.mechanisms = measuredMechanisms.rows
    }
    if (options.mechanisms === 'only') return report
    log(`${store}: callbacks`)
    // This machine's PostgreSQL runs with autovacuum off (its CI configuration), so every event
    // the scenarios delivered (claimed, recorded: three updates each) left dead rows in the
    // outbox's due index, and each claim read them: drains of 5,000 operations in a row on one
    // database fell 1,621 → 893 → 506 → 251/s. Vacuumed before each drain, as autovacuum would have.
    const drained = await measureCallbacks(sika, databaseUrl, callbacks, options, tidy)
    sika = drained.sika
    report.callbacks = drained.figures
    // The soak runs on SQLite only: five minutes per store would double the run.
    if (options.soakSeconds > 0 && store === 'sqlite')
      report.soak = await soak(sika, folder, options, callbacks.url)
    return report
  } finally {
    await sika.stop()
    await callbacks.close()
    if (store === 'postgres') psql(options.adminUrl, `drop database if exists ${databaseName}`)
  }
}

interface Templates {
  failed: string
  error: string
}

/** Two final operations without ledger effects to copy, and a balance for the disbursements. */
async function prepareMerchant(sika: Sika, callbackUrl: string): Promise<Templates> {
  const create = async (ending: string) =>
    (
      await api(sika, 'POST', '/api/v1/collect', {
        ...collectBody(ending, callbackUrl),
        merchantReference: `template-${ending}`,
      })
    ).data.collect.token as string
  for (let i = 0; i < 20; i++) {
    await api(sika, 'POST', '/api/v1/recharge', {
      amount: 50_000_000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: '+2250700000001' },
      merchantReference: `funding-${i}`,
      callbackUrl,
    })
  }
  return { failed: await create('901'), error: await create('904') }
}

/** Adds copies until the store holds `scale` collects; half failed, half error. */
async function seedTo(
  databaseUrl: string,
  templates: Templates,
  scale: number,
  seeded: number,
): Promise<number> {
  const store = openStore(parseDatabaseLocation(databaseUrl), { timeoutMs: 600_000 })
  try {
    const missing = Math.max(0, scale - seeded)
    const half = Math.floor(missing / 2)
    await seedCopiesOfOperation(store, templates.failed, half, seeded)
    await seedCopiesOfOperation(store, templates.error, missing - half, seeded + half)
    return seeded + missing
  } finally {
    await store.close()
  }
}

/** Tokens spread over the whole list, read through the API as a merchant would. */
async function sampleTokens(sika: Sika, total: number): Promise<string[]> {
  const pages = Math.max(1, Math.floor(total / 100))
  const tokens: string[] = []
  for (let i = 0; i < 10; i++) {
    const page = 1 + Math.floor((i * pages) / 10)
    const body = await api(sika, 'GET', `/api/v1/collect?perPage=100&page=${page}`)
    tokens.push(...(body.data.collects as { token: string }[]).map((record) => record.token))
  }
  return tokens
}

/**
 * `tidy` runs before each measurement, once the writes before it are delivered. This machine's
 * PostgreSQL runs with autovacuum off (its CI configuration); PostgreSQL as deployed vacuums and
 * analyzes a table once a tenth of it has changed, checking every minute. Without it the outbox,
 * which the scenarios fill from nothing, has no statistics at all: the callbacks' claim was planned
 * as a hash join over every event (11 ms at 11,650 events, against 0.8 ms once analyzed), and one
 * merchant's collects ran 1,139-1,213/s against 1,238-1,315/s with the table analyzed.
 */
async function benchScale(
  started: Sika,
  { store, databaseUrl, tidy }: { store: string; databaseUrl: string; tidy: () => void },
  folder: string,
  scale: number,
  options: RunOptions,
  callbackUrl: string,
  merchants: Keys[],
): Promise<{ sika: Sika; figures: { scale: number; rows: ScenarioRow[]; overload: OverloadFigures } }> {
  let sika = started
  const total = (await api(sika, 'GET', '/api/v1/collect')).meta.pagination.total as number
  const failed = (await api(sika, 'GET', '/api/v1/collect?status=failed')).meta.pagination.total as number
  const requests = scenarioRequests(await sampleTokens(sika, total), total, failed, callbackUrl)
  const rows: ScenarioRow[] = []
  for (const [name, lines] of Object.entries(requests) as [ScenarioName, typeof requests.details][]) {
    const requestsFile = writeRequests(folder, name.replaceAll(/\W+/g, '-'), lines)
    log(`${store} at ${scale.toLocaleString('en')}: ${name}`)
    const apiOnly = name === apiOnlyScenario
    if (apiOnly) {
      // The callbacks of the writes before are delivered first: no instance would deliver them now.
      await drained(sika)
      await sika.stop()
      sika = await startSika(databaseUrl, { WORKERS: 'off' }, sika)
    }
    const load = (seconds: number) =>
      name === 'POST collect, 10 merchants'
        ? loadAcrossMerchants(merchants, { baseUrl: sika.service.url, requestsFile, seconds, options })
        : runWrk({
            baseUrl: sika.service.url,
            requestsFile,
            seconds,
            connections: name === 'POST collect, 1 client' ? 1 : options.connections,
            keys: sika.keys,
            nonce: nonce(),
          })
    if (options.warmupSeconds > 0) await load(options.warmupSeconds)
    rows.push(await measured(sika, name, () => load(options.seconds), tidy, !apiOnly))
    if (apiOnly) {
      await sika.stop()
      sika = await startSika(databaseUrl, {}, sika)
    }
  }
  const mixRate = rows.find((row) => row.scenario === 'mix 80/20')!.load.perSecond
  tidy()
  const overload = await measureOverload(
    sika,
    writeRequests(folder, 'overload', requests['mix 80/20']),
    mixRate,
    options,
    { folder, recordFile: join(folder, 'record.json') },
  )
  return { sika, figures: { scale, rows, overload } }
}

/** The callbacks of the writes before, delivered first (said in the log when they could not be). */
async function drained(sika: Sika): Promise<void> {
  const left = await callbacksDrained(sika)
  if (left > 0) log(`${left} callbacks still due after 2 minutes; measuring beside them`)
}

/**
 * One wrk per merchant, the connections shared out, run together; their figures added up. The
 * percentiles cannot be merged exactly: p50 is the generators' p50s weighted by their requests,
 * p99 the highest of their p99s.
 */
async function loadAcrossMerchants(
  merchants: Keys[],
  load: { baseUrl: string; requestsFile: string; seconds: number; options: RunOptions },
): Promise<LoadResult> {
  const connections = Math.max(1, Math.floor(load.options.connections / merchants.length))
  const results = await Promise.all(
    merchants.map((keys) => runWrk({ ...load, connections, keys, nonce: nonce() })),
  )
  const requests = results.reduce((sum, result) => sum + result.requests, 0)
  const statuses: Record<string, number> = {}
  for (const result of results)
    for (const [status, count] of Object.entries(result.statuses))
      statuses[status] = (statuses[status] ?? 0) + count
  return {
    requests,
    seconds: Math.max(...results.map((result) => result.seconds)),
    perSecond: results.reduce((sum, result) => sum + result.perSecond, 0),
    p50Ms: results.reduce((sum, result) => sum + result.p50Ms * result.requests, 0) / Math.max(1, requests),
    p99Ms: Math.max(...results.map((result) => result.p99Ms)),
    statuses,
    unanswered: results.reduce((sum, result) => sum + result.unanswered, 0),
  }
}

/** More merchants, created as an operator would (`sika merchant create --json`), with their sandbox keys. */
async function createMerchants(databaseUrl: string, count: number): Promise<Keys[]> {
  const keys: Keys[] = []
  for (let index = 1; index <= count; index++) {
    const output = execFileSync(
      process.execPath,
      ['bin/sika.mjs', 'merchant', 'create', '--name', `Bench merchant ${index}`, '--json'],
      {
        cwd: repositoryRoot,
        encoding: 'utf8',
        env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl, SECRETS_KEY: benchSecretsKey },
      },
    )
    const issued = JSON.parse(output) as { sandbox: Keys }
    keys.push({ apiKey: issued.sandbox.apiKey, secretKey: issued.sandbox.secretKey })
  }
  return keys
}

async function measured(
  sika: Sika,
  scenario: string,
  run: () => Promise<LoadResult>,
  tidy = () => {},
  delivering = true,
): Promise<ScenarioRow> {
  if (delivering) await drained(sika)
  tidy()
  await eventLoopP99Ms(sika)
  const rss = watchRss(sika.service.child.pid!)
  const load = await run()
  const peakRssMb = rss.stop()
  return { scenario, load, peakRssMb, eventLoopP99Ms: await eventLoopP99Ms(sika) }
}

/** The mix at half its saturating rate (the unloaded reference), then at twice it. */
async function measureOverload(
  sika: Sika,
  requestsFile: string,
  saturatingRate: number,
  options: RunOptions,
  reference: { folder: string; recordFile: string },
): Promise<OverloadFigures> {
  const { folder, recordFile } = reference
  const at = (factor: number) =>
    runOpenLoop({
      baseUrl: sika.service.url,
      requestsFile,
      seconds: options.seconds,
      perSecond: saturatingRate * factor,
      keys: sika.keys,
      nonce: nonce(),
    })
  log('overload: the mix at 0.5x, then 2x, its saturating rate')
  await drained(sika)
  const unloaded = await at(0.5)
  await drained(sika)
  const rss = watchRss(sika.service.child.pid!)
  const overloaded = await at(2)
  const peakRssMb = rss.stop()
  log('overload: the open loop alone at 0.5x and 2x, against bare Fastify')
  const floor = (factor: number) =>
    openLoopFloor(folder, recordFile, saturatingRate * factor, options.seconds)
  const generator = { unloaded: await floor(0.5), overloaded: await floor(2) }
  return { saturatingRate, unloaded, overloaded, peakRssMb, generator }
}

async function soak(
  sika: Sika,
  folder: string,
  options: RunOptions,
  callbackUrl: string,
): Promise<SoakFigures> {
  log(`soak: the mix for ${options.soakSeconds} s`)
  const total = (await api(sika, 'GET', '/api/v1/collect')).meta.pagination.total as number
  const failed = 0
  const requestsFile = writeRequests(
    folder,
    'soak',
    scenarioRequests(await sampleTokens(sika, total), total, failed, callbackUrl)['mix 80/20'],
  )
  const pid = sika.service.child.pid!
  // The heap takes its working size under this load in about half a minute (sampled every 5 s after
  // a 10 s warm-up: 202 → 227 MB in 25 s, then 227-232 MB for 3.5 minutes), so the soak follows a
  // fifth of its length, at most a minute, of the same load.
  await runWrk({
    baseUrl: sika.service.url,
    requestsFile,
    seconds: Math.max(1, Math.min(60, Math.round(options.soakSeconds / 5))),
    connections: options.connections,
    keys: sika.keys,
    nonce: nonce(),
  })
  // "The start" is read a few seconds into the soak's own load: read in the gap after the warm-up,
  // with no request in flight, it was 18-19 MB under every reading taken under the load (run of
  // 2026-11-25 21:27: 218 MB, then 236-240 MB every 30 s), so start → end measured idle against busy.
  let startRssMb = 0
  const rssSeriesMb: number[] = []
  const row = await measured(sika, 'soak', async () => {
    const starting = setTimeout(
      () => {
        startRssMb = rssMb(pid)
      },
      Math.min(5000, (options.soakSeconds * 1000) / 20),
    )
    const sampling = setInterval(() => rssSeriesMb.push(rssMb(pid)), (options.soakSeconds * 1000) / 10)
    try {
      return await runWrk({
        baseUrl: sika.service.url,
        requestsFile,
        seconds: options.soakSeconds,
        connections: options.connections,
        keys: sika.keys,
        nonce: nonce(),
      })
    } finally {
      clearTimeout(starting)
      clearInterval(sampling)
    }
  })
  return { seconds: options.soakSeconds, startRssMb, rssSeriesMb, endRssMb: rssMb(pid), row }
}
