import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { after, before, test } from 'node:test'
import { promisify } from 'node:util'
import { sql } from 'kysely'
import { Agent, fetch } from 'undici'
import type { IssuedMerchant } from '../src/app/merchants.ts'
import { startApp, type TestApp } from './support/app.ts'
import { startService } from './support/process.ts'
import { describeEachStore } from './support/stores.ts'
import { sleep } from './support/wait.ts'

/**
 * CONTRACT.md, Limits: /metrics costs no database query per scrape. Its store gauges are read at
 * most once every 5 s, however many scrape, so 32 scrapers in a loop do not slow another
 * merchant's request; and it is not on the API's port: it listens on METRICS_HOST:METRICS_PORT
 * (127.0.0.1 by default), behind METRICS_TOKEN when one is set.
 */

const run = promisify(execFile)
const backlogEvents = 50_000
const scrapers = 32

/** A callback backlog as a busy instance has one: pending events, each a real row. */
async function seedBacklog(app: TestApp): Promise<void> {
  const template = await app.db.selectFrom('events').selectAll().limit(1).executeTakeFirstOrThrow()
  // In batches: each statement stays within the store's statement timeout.
  const batch = 10_000
  for (let from = 0; from < backlogEvents; from += batch) {
    await sql`
      with recursive n(i) as (
        select cast(${from + 1} as integer) union all select i + 1 from n where i < ${from + batch}
      )
      insert into events (id, merchant_id, mode, position, operation_id, type, payload, callback_url,
        created_at_us, delivery_status, attempts, next_attempt_at_us)
      select 'evt_backlog_' || i, ${template.merchant_id}, ${template.mode},
        cast(${template.position} as bigint) + 1000000 + i,
        ${template.operation_id}, ${template.type}, '{}', ${template.callback_url},
        cast(${template.created_at_us} as bigint), 'pending', 0, cast(${template.created_at_us} as bigint)
      from n`.execute(app.db)
  }
}

/** Latencies of one request after another, in ms, for `durationMs`. */
async function latencies(send: () => Promise<void>, durationMs: number): Promise<number[]> {
  const took: number[] = []
  const started = performance.now()
  while (performance.now() - started < durationMs) {
    const before = performance.now()
    await send()
    took.push(performance.now() - before)
  }
  return took
}

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!
}

/** `scrapers` loops asking `url` for `durationMs` in a process of their own; resolves to the answers they got. */
async function startScrapers(url: string, durationMs: number): Promise<number> {
  const script = `
    const deadline = Date.now() + ${durationMs}
    let scrapes = 0
    const loop = async () => {
      while (Date.now() < deadline) {
        const response = await fetch(${JSON.stringify(url)})
        await response.arrayBuffer()
        scrapes += 1
      }
    }
    Promise.all(Array.from({ length: ${scrapers} }, loop)).then(() => console.log(scrapes))`
  const { stdout } = await run(process.execPath, ['-e', script], { timeout: durationMs + 20_000 })
  return Number(stdout.trim())
}

const figures = (values: readonly number[]) =>
  `p50 ${percentile(values, 0.5).toFixed(1)} ms, p99 ${percentile(values, 0.99).toFixed(1)} ms, max ${Math.max(...values).toFixed(1)} ms (${values.length} requests)`

describeEachStore('/metrics: what a scrape costs', (store) => {
  let app: TestApp
  let merchant: IssuedMerchant
  let storeReads = 0
  const agent = new Agent({ connections: scrapers + 4 })
  before(async () => {
    app = await startApp(store())
    merchant = await app.createMerchant('Busy merchant')
    const collected = await app.client(merchant.sandbox).post('/api/v1/collect', {
      amount: 1000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: '2250700000001' },
      merchantReference: 'backlog-template',
      callbackUrl: 'http://127.0.0.1:9/never-called',
    })
    assert.equal(collected.status, 200, collected.text)
    await seedBacklog(app)
    // Every read of the backlog the metrics make, counted where the store is asked.
    const { monitoring } = app.context.store
    const backlog = monitoring.backlog.bind(monitoring)
    monitoring.backlog = (nowUs) => {
      storeReads += 1
      return backlog(nowUs)
    }
  })
  after(async () => {
    await app.close()
    await agent.close()
  })

  const scrape = async () => {
    const response = await fetch(app.metricsUrl, { dispatcher: agent })
    assert.equal(response.status, 200)
    await response.arrayBuffer()
  }

  test('N scrapes read the store at most once per 5 s; the gauges still show the backlog', async (t) => {
    const readsBefore = storeReads
    const started = performance.now()
    let scrapes = 0
    while (performance.now() - started < 3000) {
      await Promise.all(Array.from({ length: 20 }, scrape))
      scrapes += 20
    }
    const elapsedMs = performance.now() - started
    const reads = storeReads - readsBefore
    t.diagnostic(`${scrapes} scrapes in ${(elapsedMs / 1000).toFixed(1)} s read the store ${reads} times`)
    assert.ok(reads <= Math.ceil(elapsedMs / 5000), `${reads} store reads for ${scrapes} scrapes`)
    const text = await (await fetch(app.metricsUrl, { dispatcher: agent })).text()
    const undelivered = Number(/^sika_outbox_undelivered_events (\d+)$/m.exec(text)?.[1])
    assert.ok(undelivered >= backlogEvents, `the gauge shows the backlog: ${undelivered}`)
    const counted = Number(/^sika_metrics_store_reads_total (\d+)$/m.exec(text)?.[1])
    assert.equal(counted, storeReads, 'the metrics count their own store reads')
    // 5 s after the last read, the next scrape reads the store again: the gauges keep up.
    await sleep(Math.max(0, 5000 - (performance.now() - started)) + 600)
    const readsThen = storeReads
    await scrape()
    assert.equal(storeReads, readsThen + 1, 'read again once 5 s have passed')
  })

  test(`${scrapers} scrapers in a loop do not slow another merchant’s request`, async (t) => {
    // The service in a process of its own, as deployed, over the same store and its backlog; the
    // scrapers in another, so that neither's work is counted in the other's latency.
    const service = await startService({
      DATABASE_URL: store().databaseUrl,
      WORKERS: 'off',
      RATE_LIMIT_PER_SECOND: '0',
    })
    try {
      const balanceOnService = async () => {
        const response = await fetch(`${service.url}/api/v1/balance`, {
          dispatcher: agent,
          headers: { 'api-key': merchant.sandbox.apiKey, 'secret-key': merchant.sandbox.secretKey },
        })
        assert.equal(response.status, 200)
        await response.arrayBuffer()
      }
      /** The balance reads' latencies while `scrapers` loops GET `url` from another process. */
      const beside = async (url: string) => {
        const polling = startScrapers(url, 3500)
        await sleep(300)
        const took = await latencies(balanceOnService, 3000)
        return { took, requests: await polling }
      }
      await latencies(balanceOnService, 300)
      const alone = await latencies(balanceOnService, 2000)
      // The floor: as many loops asking /health, the cheapest answer the service gives.
      const probes = await beside(`${service.url}/health`)
      const scrapes = await beside(service.metricsUrl)
      t.diagnostic(`${store().name}, a balance read alone: ${figures(alone)}`)
      t.diagnostic(
        `${store().name}, beside ${scrapers} loops asking /health (${probes.requests} in 3.5 s): ${figures(probes.took)}`,
      )
      t.diagnostic(
        `${store().name}, beside ${scrapers} scrapers (${scrapes.requests} scrapes in 3.5 s, ${backlogEvents} events in the backlog): ${figures(scrapes.took)}`,
      )
      assert.ok(scrapes.requests >= scrapers, `the scrapers scraped (${scrapes.requests})`)
      // Generous, for a busy machine: a store read per scrape took the p50 to a second.
      const bound = 3 * percentile(probes.took, 0.5) + 25
      assert.ok(
        percentile(scrapes.took, 0.5) <= bound,
        `p50 ${percentile(scrapes.took, 0.5).toFixed(1)} ms beside scrapers, bound ${bound.toFixed(1)} ms`,
      )
    } finally {
      await service.kill('SIGTERM')
    }
  })

  test('the API’s port answers /metrics 404; the metrics listener is on the loopback', async () => {
    const onApi = await fetch(`${app.url}/metrics`, { dispatcher: agent })
    assert.equal(onApi.status, 404)
    assert.equal(((await onApi.json()) as { code: string }).code, 'not_found')
    assert.equal(new URL(app.metricsUrl).hostname, '127.0.0.1')
  })
})
