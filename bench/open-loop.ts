/**
 * An open-loop load: requests leave at a fixed rate whatever the server's pace, as real clients
 * do, so overload shows as it would in production (a closed loop like wrk slows down with the
 * server instead). Latency is measured from when a request was due, so waiting to be sent counts.
 * Reads its settings from BENCH_* variables; prints one BENCH_JSON line.
 */
import { readFileSync } from 'node:fs'
import { Pool } from 'undici'

const env = (name: string): string => {
  const value = process.env[name]
  if (value === undefined) throw new Error(`${name} is required`)
  return value
}
const baseUrl = env('BENCH_URL')
const seconds = Number(env('BENCH_SECONDS'))
const rate = Number(env('BENCH_RATE'))
const nonce = env('BENCH_NONCE')
const lines = readFileSync(env('BENCH_REQUESTS'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => {
    const [method, path, body] = line.split('\t')
    return { method: method as 'GET' | 'POST', path: path!, body: body || undefined }
  })
const headers = { 'api-key': env('BENCH_API_KEY'), 'secret-key': env('BENCH_SECRET_KEY') }

const pool = new Pool(baseUrl, { connections: 256, pipelining: 1, headersTimeout: 30_000 })
const statuses: Record<string, number> = {}
const allMs: number[] = []
const admittedMs: number[] = []
let shedWithoutRetryAfter = 0
let unanswered = 0
let sent = 0

async function one(dueAt: number): Promise<void> {
  const line = lines[sent % lines.length]!
  sent += 1
  const body = line.body?.replaceAll('{ref}', `${nonce}-${sent}`)
  try {
    const response = await pool.request({
      method: line.method,
      path: line.path,
      headers: body ? { ...headers, 'content-type': 'application/json' } : headers,
      body,
    })
    await response.body.dump()
    const ms = performance.now() - dueAt
    statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1
    allMs.push(ms)
    if (response.statusCode < 300) admittedMs.push(ms)
    if ((response.statusCode === 503 || response.statusCode === 429) && !response.headers['retry-after'])
      shedWithoutRetryAfter += 1
  } catch {
    unanswered += 1
  }
}

const percentile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0
}

const start = performance.now()
const inFlight = new Set<Promise<void>>()
let due = 0
while (performance.now() - start < seconds * 1000) {
  const shouldHaveSent = Math.floor(((performance.now() - start) / 1000) * rate)
  for (; due < shouldHaveSent; due++) {
    const dueAt = start + (due / rate) * 1000
    const request = one(dueAt).finally(() => inFlight.delete(request))
    inFlight.add(request)
  }
  await new Promise((resolve) => setTimeout(resolve, 2))
}
await Promise.all(inFlight)
const elapsed = (performance.now() - start) / 1000
await pool.close()
const answered = allMs.length
process.stdout.write(
  `BENCH_JSON ${JSON.stringify({
    requests: answered,
    seconds: elapsed,
    perSecond: answered / elapsed,
    p50Ms: percentile(allMs, 0.5),
    p99Ms: percentile(allMs, 0.99),
    admittedP99Ms: percentile(admittedMs, 0.99),
    statuses,
    unanswered,
    shedWithoutRetryAfter,
  })}\n`,
)
