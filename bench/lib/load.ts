import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = fileURLToPath(new URL('..', import.meta.url))

/** What one load run measured, from the generator's side. */
export interface LoadResult {
  requests: number
  seconds: number
  perSecond: number
  p50Ms: number
  p99Ms: number
  /** Answers by HTTP status. */
  statuses: Record<string, number>
  /** Socket errors and timeouts: requests that got no answer at all. */
  unanswered: number
}

export interface Keys {
  apiKey: string
  secretKey: string
}

/** One request per line: METHOD, path, and a body where "{ref}" becomes a distinct reference. */
export interface RequestLine {
  method: 'GET' | 'POST'
  path: string
  body?: unknown
}

export function writeRequests(folder: string, name: string, lines: RequestLine[]): string {
  const file = join(folder, `${name}.requests`)
  const text = lines.map((line) =>
    [line.method, line.path, line.body === undefined ? '' : JSON.stringify(line.body)].join('\t'),
  )
  writeFileSync(file, `${text.join('\n')}\n`)
  return file
}

/** Runs with a single process group, so nothing it starts outlives the run. */
function runToEnd(command: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk) => {
      out += chunk
    })
    child.stderr.on('data', (chunk) => {
      err += chunk
    })
    child.on('error', reject)
    // 'close', not 'exit': a process can exit before its output has been read from the pipe, and
    // on a loaded machine a generator's whole report then arrived after the exit (CI, once).
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${command} exited ${code}: ${err || out}`)),
    )
  })
}

export function benchJson<T>(output: string): T {
  const line = output.split('\n').find((text) => text.startsWith('BENCH_JSON '))
  if (!line) throw new Error(`no BENCH_JSON line in:\n${output}`)
  return JSON.parse(line.slice('BENCH_JSON '.length)) as T
}

interface WrkJson {
  requests: number
  durationUs: number
  p50Us: number
  p99Us: number
  socketErrors: number
  timeouts: number
  statuses: Record<string, number>
}

/** wrk, a closed loop: `connections` connections, each sending its next request when answered. */
export async function runWrk(options: {
  baseUrl: string
  requestsFile: string
  seconds: number
  connections: number
  keys?: Keys
  nonce: string
}): Promise<LoadResult> {
  const output = await runToEnd(
    'wrk',
    [
      `-t${Math.min(2, options.connections)}`,
      `-c${options.connections}`,
      `-d${options.seconds}s`,
      '--timeout',
      '10s',
      '-s',
      join(here, 'wrk.lua'),
      options.baseUrl,
    ],
    {
      BENCH_REQUESTS: options.requestsFile,
      BENCH_API_KEY: options.keys?.apiKey ?? '',
      BENCH_SECRET_KEY: options.keys?.secretKey ?? '',
      BENCH_NONCE: options.nonce,
    },
  )
  const json = benchJson<WrkJson>(output)
  const seconds = json.durationUs / 1e6
  return {
    requests: json.requests,
    seconds,
    perSecond: json.requests / seconds,
    p50Ms: json.p50Us / 1000,
    p99Ms: json.p99Us / 1000,
    statuses: json.statuses,
    unanswered: json.socketErrors + json.timeouts,
  }
}

/** An open loop: requests sent at a fixed rate whatever the answers' pace (bench/open-loop.ts). */
export async function runOpenLoop(options: {
  baseUrl: string
  requestsFile: string
  seconds: number
  perSecond: number
  keys: Keys
  nonce: string
}): Promise<LoadResult & { admittedP99Ms: number; shedWithoutRetryAfter: number }> {
  const output = await runToEnd(process.execPath, ['--import', 'tsx', join(here, 'open-loop.ts')], {
    BENCH_URL: options.baseUrl,
    BENCH_REQUESTS: options.requestsFile,
    BENCH_SECONDS: String(options.seconds),
    BENCH_RATE: String(Math.round(options.perSecond)),
    BENCH_API_KEY: options.keys.apiKey,
    BENCH_SECRET_KEY: options.keys.secretKey,
    BENCH_NONCE: options.nonce,
  })
  return benchJson(output)
}
