import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { after, before, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { IssuedMerchant, KeyPair } from '../src/app/merchants.ts'
import { startApp } from './support/app.ts'
import { type ServiceProcess, startService } from './support/process.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * Issue 50, finding 6: one merchant's 1,000-item payout batches slowed the others, even refused
 * ones. About 16 refused batches a second took another merchant's answers on SQLite from p50 5 ms
 * to 324 ms (on PostgreSQL from 12 ms to 3,187 ms, and some 503s); three batches accepted at once
 * gave another merchant a p99 of 1,532 ms. A batch that will be refused is refused cheaply, and a
 * batch's acceptance and dispatch take turns with other merchants' requests: the other merchant's
 * answers stay within a bound of what they are without the batches, and none is a 503.
 *
 * The service runs as `sika serve` in a process of its own; the batches are built and sent by a
 * third process, so this one measures only the other merchant's answers.
 */

const loadScript = fileURLToPath(new URL('./support/batch-load.mjs', import.meta.url))
const run = promisify(execFile)
const refusedPerSecond = Number(process.env.REFUSED_BATCHES_PER_SECOND ?? 16)
const refusedForMs = Number(process.env.REFUSED_BATCHES_FOR_MS ?? 5_000)
const acceptedAtOnce = 3

/**
 * The bound on the other merchant's p95 while the batches run: 400 ms, or five times its p95
 * without them, on a machine already that slow without them (other tests running beside this
 * one on two cores, and the batches' own load: 16 bodies of 2 MiB a second). Before, it was 0.95
 * to 2.3 s; after, 50 to 250 ms on this machine at a load of 6 to 8 (its p99, printed, a single
 * request or two of a few dozen, follows the machine more than the batches).
 */
const p95BoundMs = (quietP95Ms: number) => Math.max(400, 5 * quietP95Ms)

const percentile = (sorted: readonly number[], fraction: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN

function summary(latenciesMs: readonly number[]) {
  const sorted = [...latenciesMs].sort((a, b) => a - b)
  return {
    count: sorted.length,
    p50: Math.round(percentile(sorted, 0.5)),
    p95: Math.round(percentile(sorted, 0.95)),
    p99: Math.round(percentile(sorted, 0.99)),
    max: Math.round(sorted.at(-1) ?? Number.NaN),
  }
}

const headersOf = (keys: KeyPair) => ({ 'api-key': keys.apiKey, 'secret-key': keys.secretKey })

interface LoadResult {
  statuses: Record<string, number>
  durationsMs: number[]
}

describeEachStore('payout batches cost their merchant, not the others', (store) => {
  let service: ServiceProcess
  let batcher: IssuedMerchant
  let other: IssuedMerchant
  let sequence = 0

  before(async () => {
    const seeding = await startApp(store())
    try {
      batcher = await seeding.createMerchant('Sends payout batches')
      other = await seeding.createMerchant('Reads and collects')
    } finally {
      await seeding.close()
    }
    service = await startService({ DATABASE_URL: store().databaseUrl, RATE_LIMIT_PER_SECOND: '0' })
  })
  after(async () => {
    await service?.kill('SIGKILL')
  })

  /** The other merchant's request: a balance read, or a sandbox collect (a write), in turn. */
  async function otherRequestMs(): Promise<{ ms: number; status: number }> {
    sequence += 1
    const started = performance.now()
    const response =
      sequence % 2 === 0
        ? await fetch(`${service.url}/api/v1/balance`, { headers: headersOf(other.sandbox) })
        : await fetch(`${service.url}/api/v1/collect`, {
            method: 'POST',
            headers: { ...headersOf(other.sandbox), 'content-type': 'application/json' },
            body: JSON.stringify({
              amount: 5000,
              channel: 'orange-money',
              country: 'CI',
              customer: { phoneNumber: '2250700000123' },
              callbackUrl: 'http://127.0.0.1:9/callback',
              merchantReference: `other-${process.pid}-${sequence}`,
            }),
          })
    await response.text()
    return { ms: performance.now() - started, status: response.status }
  }

  /** One request after another, 10 ms apart, while `going()`, or `count` of them. */
  async function otherLatencies(going: () => boolean, count = Number.POSITIVE_INFINITY) {
    const latenciesMs: number[] = []
    const statuses: Record<number, number> = {}
    while (going() && latenciesMs.length < count) {
      const { ms, status } = await otherRequestMs()
      latenciesMs.push(ms)
      statuses[status] = (statuses[status] ?? 0) + 1
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    return { latenciesMs, statuses }
  }

  async function duringLoad(options: Record<string, unknown>) {
    for (let warm = 0; warm < 20; warm++) await otherRequestMs()
    const quiet = summary((await otherLatencies(() => true, 150)).latenciesMs)
    let loading = true
    const keys = batcher.sandbox
    const load = run(
      process.execPath,
      [
        loadScript,
        service.url,
        JSON.stringify({
          apiKey: keys.apiKey,
          secretKey: keys.secretKey,
          referencePrefix: 'load',
          ...options,
        }),
      ],
      { maxBuffer: 1 << 20 },
    ).finally(() => {
      loading = false
    })
    const during = await otherLatencies(() => loading)
    const result = JSON.parse((await load).stdout) as LoadResult
    return { quiet, during: { ...summary(during.latenciesMs), statuses: during.statuses }, result }
  }

  test(`${refusedPerSecond} refused 1,000-item batches a second: the other merchant is not slowed`, {
    timeout: 60_000,
  }, async (t) => {
    // 1,000 items of 5,000 XOF: 5,000,000 and fees, beyond the 1,000,000 a sandbox merchant starts
    // with; each item with 1,800 characters of metadata, so that each body is nearly 2 MiB.
    const { quiet, during, result } = await duringLoad({
      items: 1000,
      amount: 5000,
      metadataKeys: 4,
      perSecond: refusedPerSecond,
      durationMs: refusedForMs,
    })
    const batchMs = summary(result.durationsMs)
    t.diagnostic(
      `${store().name}: batches answered ${JSON.stringify(result.statuses)} (p50 ${batchMs.p50} ms, p99 ${batchMs.p99} ms); ` +
        `the other merchant over ${during.count} requests: p50 ${during.p50} ms, p95 ${during.p95} ms, p99 ${during.p99} ms, max ${during.max} ms, ` +
        `answered ${JSON.stringify(during.statuses)} (without batches: p50 ${quiet.p50} ms, p95 ${quiet.p95} ms, p99 ${quiet.p99} ms)`,
    )
    // Refused for the balance, or, past the merchant's line of batches, told to slow down.
    assert.ok(
      Object.keys(result.statuses).every((status) => status === '422' || status === '429'),
      JSON.stringify(result.statuses),
    )
    assert.ok((result.statuses['422'] ?? 0) > 0, 'batches refused for the balance')
    assert.deepEqual(Object.keys(during.statuses).sort(), ['200'], 'the other merchant: 200 only')
    const boundMs = p95BoundMs(quiet.p95)
    assert.ok(during.p95 < boundMs, `the other merchant's p95 ${during.p95} ms (bound ${boundMs} ms)`)
  })

  test(`${acceptedAtOnce} accepted 1,000-item batches at once: the other merchant is not slowed`, {
    timeout: 90_000,
  }, async (t) => {
    // 1,000 items of 100 XOF, each batch about 100,000 with fees: three fit the balance.
    const started = performance.now()
    const { quiet, during, result } = await duringLoad({ items: 1000, amount: 100, atOnce: acceptedAtOnce })
    const acceptedMs = performance.now() - started
    const batchMs = summary(result.durationsMs)
    t.diagnostic(
      `${store().name}: batches answered ${JSON.stringify(result.statuses)} in ${result.durationsMs.join(', ')} ms; ` +
        `the other merchant over ${during.count} requests: p50 ${during.p50} ms, p95 ${during.p95} ms, p99 ${during.p99} ms, max ${during.max} ms, ` +
        `answered ${JSON.stringify(during.statuses)} (without batches: p50 ${quiet.p50} ms, p95 ${quiet.p95} ms, p99 ${quiet.p99} ms)`,
    )
    assert.deepEqual(result.statuses, { 200: acceptedAtOnce }, 'every batch accepted')
    assert.ok(batchMs.max < 20_000, `accepted in ${batchMs.max} ms (${acceptedMs} ms with the quiet reads)`)
    assert.deepEqual(Object.keys(during.statuses).sort(), ['200'], 'the other merchant: 200 only')
    const boundMs = p95BoundMs(quiet.p95)
    assert.ok(during.p95 < boundMs, `the other merchant's p95 ${during.p95} ms (bound ${boundMs} ms)`)
  })
})
