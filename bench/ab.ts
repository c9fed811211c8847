/**
 * npm run bench:ab -- --other PATH: this checkout (A) against another (B, e.g. an older commit in
 * a worktree of its own, with its own node_modules), or several (--other again: C, ...), on the
 * same machine in one run, their turns alternated (A B, then B A; with three, each order in turn)
 * so that a machine whose speed drifts weighs on each alike. Each round, store and checkout starts
 * on a fresh store: POST collect (50 clients, callbacks delivered as in `npm run bench`), the same
 * on an instance that delivers none (API only: the write path alone), then GET details of tokens
 * spread over what it wrote. Prints each round's figures (requests a second, and
 * Sika's CPU time per request), each checkout's ratio to the last one named, and the medians.
 *
 *   --other PATH        another checkout (required; repeatable, the last is the reference)
 *   --other-node PATH   the Node the others run on, one for each --other in order (default: the
 *                       machine's `node` on PATH, as an older checkout may need its own Node)
 *   --rounds N          default 4; --seconds N default 8; --warmup N default 3
 *   --stores sqlite,postgres (PostgreSQL at BENCH_POSTGRES_URL, as in `npm run bench`)
 *   --scenarios collect,api-only,details (the default: all three)
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { receiver } from './lib/callbacks.ts'
import { type LoadResult, runWrk, writeRequests } from './lib/load.ts'
import { collectBody } from './lib/scenarios.ts'
import { api, type Checkout, callbacksDrained, type Sika, startSika, thisCheckout } from './lib/sika.ts'

const scenarioNames = {
  collect: 'POST collect',
  'api-only': 'POST collect, API only',
  details: 'GET details',
}
type Scenario = keyof typeof scenarioNames

const { values } = parseArgs({
  options: {
    other: { type: 'string', multiple: true },
    'other-node': { type: 'string', multiple: true },
    rounds: { type: 'string', default: '4' },
    seconds: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    stores: { type: 'string', default: 'sqlite,postgres' },
    scenarios: { type: 'string', default: 'collect,api-only,details' },
  },
})
if (!values.other?.length) refuse('--other PATH names the checkout to compare this one with')
const machineNode = () => spawnSync('which', ['node'], { encoding: 'utf8' }).stdout.trim()
const sides = ['A', ...values.other!.map((_, i) => String.fromCharCode(66 + i))]
const checkouts: Record<string, Checkout> = { A: thisCheckout }
values.other!.forEach((path, i) => {
  checkouts[sides[i + 1]!] = { root: resolve(path), node: values['other-node']?.[i] ?? machineNode() }
})
const reference = sides.at(-1)!
const rounds = Number(values.rounds)
const seconds = Number(values.seconds)
const warmup = Number(values.warmup)
const connections = Number(values.connections)
const stores = values.stores.split(',') as ('sqlite' | 'postgres')[]
const scenarios = values.scenarios.split(',') as Scenario[]
for (const scenario of scenarios) if (!(scenario in scenarioNames)) refuse(`no scenario ${scenario}`)
const adminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

/** Round 1 in the order given, round 2 the reverse, then each rotation of it and its reverse. */
function orderOf(round: number): string[] {
  const shift = Math.floor((round - 1) / 2) % sides.length
  const rotated = [...sides.slice(shift), ...sides.slice(0, shift)]
  return round % 2 === 1 ? rotated : rotated.reverse()
}

function refuse(problem: string): never {
  process.stderr.write(`bench:ab: ${problem}\n(the options are listed at the top of bench/ab.ts)\n`)
  process.exit(2)
}

const log = (text: string) => process.stderr.write(`bench:ab: ${text}\n`)
const psql = (url: string, command: string) =>
  execFileSync('psql', [url, '-qc', command], { stdio: 'ignore' })
let runs = 0
const nonce = () => `ab${process.pid}x${runs++}x${Date.now()}`

/** A scenario's load, and the CPU time Sika's process spent on it, per request. */
type Measured = LoadResult & { cpuUsPerRequest: number }

type Figures = Partial<Record<Scenario, Measured>>

const folder = mkdtempSync(join(tmpdir(), 'sika-ab-'))
const callbacks = await receiver(false)
const results: { round: number; store: string; side: string; figures: Figures }[] = []
try {
  for (let round = 1; round <= rounds; round++)
    for (const store of stores)
      for (const side of orderOf(round)) {
        const checkout = checkouts[side]!
        log(`round ${round}, ${store}, ${side} (${checkout.root})`)
        const figures = await measureOne(checkout, store, `${round}${side}`)
        for (const scenario of scenarios)
          log(
            `  ${scenario} ${figures[scenario]!.perSecond.toFixed(0)}/s, ${figures[scenario]!.cpuUsPerRequest.toFixed(0)} µs CPU a request`,
          )
        results.push({ round, store, side, figures })
      }
  process.stdout.write(report())
} finally {
  await callbacks.close()
  rmSync(folder, { recursive: true, force: true })
}

/**
 * One checkout on a fresh store: its collects with their callbacks delivered, then on an instance
 * that delivers none (`WORKERS=off`, as the bench's API only: the write path alone), then its
 * details; each scenario asked, after its warm-up.
 */
async function measureOne(checkout: Checkout, store: 'sqlite' | 'postgres', tag: string): Promise<Figures> {
  const database = `sika_ab_${process.pid}_${tag.toLowerCase()}`
  const databaseUrl =
    store === 'sqlite' ? join(folder, `${tag}.db`) : adminUrl.replace(/\/[^/]*$/, `/${database}`)
  if (store === 'postgres') psql(adminUrl, `create database ${database}`)
  // As in `npm run bench`: PostgreSQL here runs without autovacuum, so it is vacuumed before each measurement.
  const tidy = store === 'postgres' ? () => psql(databaseUrl, 'vacuum (analyze)') : () => {}
  const figures: Figures = {}
  let sika: Sika | undefined
  try {
    sika = await startSika(databaseUrl, {}, undefined, checkout)
    const keys = { keys: sika.keys, merchantId: sika.merchantId }
    const collectFile = writeRequests(folder, `collect-${tag}`, [
      { method: 'POST', path: '/api/v1/collect', body: collectBody('123', callbacks.url) },
    ])
    const load = (on: Sika, requestsFile: string, forSeconds: number) =>
      runWrk({
        baseUrl: on.service.url,
        requestsFile,
        seconds: forSeconds,
        connections,
        keys: on.keys,
        nonce: nonce(),
      })
    const warm = async (on: Sika, requestsFile: string) => {
      if (warmup > 0) await load(on, requestsFile, warmup)
    }
    const running = sika
    await warm(running, collectFile)
    if (scenarios.includes('collect'))
      figures.collect = await measured(running, tidy, () => load(running, collectFile, seconds))
    if (scenarios.includes('api-only')) {
      await callbacksDrained(running)
      await running.stop()
      sika = undefined
      const apiOnly = await startSika(databaseUrl, { WORKERS: 'off' }, keys, checkout)
      sika = apiOnly
      await warm(apiOnly, collectFile)
      figures['api-only'] = await measured(apiOnly, tidy, () => load(apiOnly, collectFile, seconds), false)
      await apiOnly.stop()
      sika = undefined
      if (scenarios.includes('details')) sika = await startSika(databaseUrl, {}, keys, checkout)
    }
    if (scenarios.includes('details') && sika) {
      const reading = sika
      const detailsFile = writeRequests(
        folder,
        `details-${tag}`,
        (await sampleTokens(reading)).map((token) => ({
          method: 'GET' as const,
          path: `/api/v1/collect/${token}`,
        })),
      )
      await warm(reading, detailsFile)
      figures.details = await measured(reading, tidy, () => load(reading, detailsFile, seconds))
    }
    return figures
  } finally {
    await sika?.stop()
    if (store === 'postgres') psql(adminUrl, `drop database if exists ${database}`)
  }
}

async function measured(
  sika: Sika,
  tidy: () => void,
  run: () => Promise<LoadResult>,
  delivering = true,
): Promise<Measured> {
  // The callbacks of the writes before are delivered first, by an instance that delivers.
  const left = delivering ? await callbacksDrained(sika) : 0
  if (left > 0) log(`${left} callbacks still due after 2 minutes; measuring beside them`)
  tidy()
  const pid = sika.service.child.pid!
  const cpuBefore = cpuSeconds(pid)
  const load = await run()
  const result = {
    ...load,
    cpuUsPerRequest: ((cpuSeconds(pid) - cpuBefore) * 1e6) / Math.max(1, load.requests),
  }
  const failed = Object.entries(result.statuses).filter(([status]) => !status.startsWith('2'))
  if (failed.length > 0) log(`  answers other than 2xx: ${JSON.stringify(Object.fromEntries(failed))}`)
  return result
}

/** 1,000 tokens spread over every page of the list, read as a merchant would. */
async function sampleTokens(sika: Sika): Promise<string[]> {
  const total = (await api(sika, 'GET', '/api/v1/collect')).meta.pagination.total as number
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
 * User and system CPU time a process has used, in seconds (Linux): on a machine shared with other
 * work, a request's CPU cost moves less than the requests a second the machine allows.
 */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /s, '')
    .split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

function median(numbers: number[]): number {
  const sorted = [...numbers].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

function report(): string {
  const lines = [
    ...sides.map((side) => `${side}: ${checkouts[side]!.root} (${checkouts[side]!.node})`),
    `${rounds} rounds, ${seconds} s measured after ${warmup} s of warm-up, ${connections} connections.`,
    `req/s: requests answered a second; CPU: Sika's process's CPU time per request, in µs; ratios to ${reference}.`,
    '',
  ]
  const others = sides.filter((side) => side !== reference)
  const head = [
    'store',
    'scenario',
    'round',
    ...sides.map((side) => `${side} req/s`),
    ...others.map((side) => `${side}/${reference}`),
    ...sides.map((side) => `${side} CPU`),
    ...others.map((side) => `${side}/${reference} CPU`),
  ]
  lines.push(`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i < 3 ? '---' : '---:')).join('|')}|`)
  for (const store of stores)
    for (const scenario of scenarios) {
      const of = (side: string) =>
        results
          .filter((result) => result.store === store && result.side === side)
          .map((result) => result.figures[scenario]!)
      const name = scenarioNames[scenario]
      const rate = (side: string) => of(side).map((m) => m.perSecond)
      const cpu = (side: string) => of(side).map((m) => m.cpuUsPerRequest)
      const ratio = (values: (side: string) => number[], side: string) =>
        values(side).map((value, i) => value / values(reference)[i]!)
      const row = (label: string, pick: (values: number[]) => number, bold: boolean) => {
        const cell = (value: number, digits: number) =>
          bold ? `**${value.toFixed(digits)}**` : value.toFixed(digits)
        return `| ${[
          store,
          name,
          label,
          ...sides.map((side) => cell(pick(rate(side)), 0)),
          ...others.map((side) => cell(pick(ratio(rate, side)), 3)),
          ...sides.map((side) => cell(pick(cpu(side)), 0)),
          ...others.map((side) => cell(pick(ratio(cpu, side)), 3)),
        ].join(' | ')} |`
      }
      for (let round = 0; round < rounds; round++)
        lines.push(row(String(round + 1), (values) => values[round]!, false))
      lines.push(row('**median**', median, true))
    }
  return `${lines.join('\n')}\n`
}
