import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { canListen, demoCredentials, freePort } from '../../test/support/process.ts'
import type { Keys } from './load.ts'

export const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url))
/** The services the bench starts seal their webhook secrets with this key. */
export const benchSecretsKey = '0f'.repeat(32)

interface ServiceProcess {
  readonly url: string
  /** Where the service's /metrics listens (METRICS_PORT), apart from its API. */
  readonly metricsUrl: string
  readonly child: ChildProcess
  output(): string
  kill(signal: NodeJS.Signals): Promise<void>
}

/** Every Sika the bench started and has not stopped: none outlives the bench, even interrupted. */
const running = new Set<number>()
process.once('exit', () => {
  for (const pid of running) {
    try {
      process.kill(-pid, 'SIGKILL')
    } catch {}
  }
})
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130))

/**
 * Which Sika to start: this repository with this Node by default, or another checkout (an older
 * commit, for an A/B run: bench/ab.ts) with the Node it runs on.
 */
export interface Checkout {
  root: string
  node: string
}

export const thisCheckout: Checkout = { root: repositoryRoot, node: process.execPath }

/**
 * `sika serve` in its own process group, ready once /health answers. Only stdout's first start
 * banner is kept: logs at warn, so nothing grows with the load.
 */
async function startService(
  environment: Record<string, string>,
  checkout: Checkout = thisCheckout,
): Promise<ServiceProcess> {
  // A port found free can be taken by another process before Sika listens on it (tests started
  // beside the bench pick ports in the same range): Sika then exits at once, and starts again on others.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServiceOn(await freePort(), await freePort(), environment, checkout)
    } catch (error) {
      if (!(error instanceof PortTaken) || attempt === 3) throw error
    }
  }
}

class PortTaken extends Error {}

async function startServiceOn(
  port: number,
  metricsPort: number,
  environment: Record<string, string>,
  checkout: Checkout,
): Promise<ServiceProcess> {
  const url = `http://127.0.0.1:${port}`
  // BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles every Sika process the bench starts.
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []
  const child = spawn(checkout.node, [...nodeArgs, 'bin/sika.mjs', 'serve'], {
    cwd: checkout.root,
    detached: true,
    env: {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      PUBLIC_BASE_URL: url,
      SECRETS_KEY: benchSecretsKey,
      ...environment,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  running.add(child.pid!)
  child.once('exit', () => running.delete(child.pid!))
  let stdout = ''
  child.stdout?.on('data', (chunk) => {
    if (stdout.length < 100_000) stdout += chunk
  })
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) {
      const taken = !(await canListen(port)) || !(await canListen(metricsPort))
      throw new (taken ? PortTaken : Error)(`sika serve exited with ${child.exitCode}:\n${stdout}`)
    }
    if (Date.now() > deadline) throw new Error(`sika serve did not answer /health in 60 s:\n${stdout}`)
    const healthy = await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    )
    if (healthy) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return {
    url,
    metricsUrl: await metricsUrlOf(url, metricsPort),
    child,
    output: () => stdout,
    kill: async (signal) => {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = once(child, 'exit')
      process.kill(-child.pid!, signal)
      await exited
    },
  }
}

/**
 * Where the service's /metrics answers: on METRICS_PORT, or for an older checkout that serves it
 * beside the API (an A/B run's other side), on the API's port.
 */
async function metricsUrlOf(url: string, metricsPort: number): Promise<string> {
  const apart = `http://127.0.0.1:${metricsPort}/metrics`
  for (let attempt = 0; attempt < 20; attempt++) {
    if (
      await fetch(apart).then(
        (r) => r.ok,
        () => false,
      )
    )
      return apart
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return `${url}/metrics`
}

/** A running `sika serve`, as an operator starts it, with the demo merchant's sandbox keys. */
export interface Sika {
  readonly service: ServiceProcess
  readonly keys: Keys
  readonly merchantId: string
  stop(): Promise<void>
}

/**
 * Requests are logged at warn only (the baseline logs nothing either); the per-key rate limit is
 * on but far above the load, so its cost is measured without refusing anything.
 */
export async function startSika(
  databaseUrl: string,
  extra: Record<string, string> = {},
  keys?: { keys: Keys; merchantId: string },
  checkout: Checkout = thisCheckout,
): Promise<Sika> {
  const service = await startService(
    {
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_SECOND: '1000000',
      ...extra,
    },
    checkout,
  )
  const known = keys ?? firstStartKeys(await firstStartBanner(service))
  return {
    service,
    keys: known.keys,
    merchantId: known.merchantId,
    stop: () => service.kill('SIGTERM'),
  }
}

/**
 * The first start prints its demo merchant once it listens, so /health may answer before the
 * banner is out: the banner's last line (its curl example) says it is complete.
 */
async function firstStartBanner(service: ServiceProcess): Promise<string> {
  const deadline = Date.now() + 10_000
  while (!/curl -s \S+ -H 'api-key: [^']+' -H 'secret-key: [^']+'/.test(service.output())) {
    if (Date.now() > deadline) break
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return service.output()
}

function firstStartKeys(output: string): { keys: Keys; merchantId: string } {
  const demo = demoCredentials(output)
  return { keys: { apiKey: demo.apiKey, secretKey: demo.secretKey }, merchantId: demo.merchantId }
}

// biome-ignore lint/suspicious/noExplicitAny: the bench reads whatever record it asked for
export async function api<T = any>(sika: Sika, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${sika.service.url}${path}`, {
    method,
    headers: {
      'api-key': sika.keys.apiKey,
      'secret-key': sika.keys.secretKey,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const json = (await response.json()) as T
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`)
  return json
}

/** Resident memory of a process, now, in MB (Linux). */
export function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return match ? Number(match[1]) / 1024 : Number.NaN
}

/** Samples resident memory every 200 ms until stopped; resolves with the peak. */
export function watchRss(pid: number): { stop(): number } {
  let peak = rssMb(pid)
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMb(pid))
  }, 200)
  return {
    stop: () => {
      clearInterval(timer)
      return Math.max(peak, rssMb(pid))
    },
  }
}

/**
 * prom-client's monitorEventLoopDelay interval (its default precision). Node records the time
 * between two firings of that timer, so a loop that is never late reads 10 ms, not 0: an idle
 * Node 20 process reads p50 10.1 ms and p99 11.3 ms here.
 */
export const eventLoopResolutionMs = 10

/**
 * The event loop's delay p99 since the previous scrape, in ms: how late the timer fired, its
 * interval taken off. prom-client resets its histogram at every scrape, so a scrape before a
 * scenario and one after bracket it.
 */
export async function eventLoopP99Ms(sika: Sika): Promise<number> {
  const text = await (await fetch(sika.service.metricsUrl)).text()
  const match = /^nodejs_eventloop_lag_p99_seconds (\S+)$/m.exec(text)
  return match ? Math.max(0, Number(match[1]) * 1000 - eventLoopResolutionMs) : Number.NaN
}

/**
 * Waits, at most `withinMs`, until the callbacks made so far are delivered (the outbox's due events
 * read from /metrics), so that a scenario measures its own work, not the deliveries of the writes
 * before it. Returns the backlog left (0 unless the wait ran out).
 */
export async function callbacksDrained(sika: Sika, withinMs = 120_000): Promise<number> {
  const deadline = Date.now() + withinMs
  for (;;) {
    const text = await (await fetch(sika.service.metricsUrl)).text()
    const match = /^sika_outbox_due_events (\S+)$/m.exec(text)
    const due = match ? Number(match[1]) : 0
    if (due === 0 || Date.now() > deadline) return due
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}
