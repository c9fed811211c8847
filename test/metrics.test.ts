import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { IssuedMerchant } from '../src/app/merchants.ts'
import { operationKindNames } from '../src/domain/kinds.ts'
import { renderIntervalMs } from '../src/observability/metrics.ts'
import { startMtnMomoSimulator } from '../src/simulators/mtn-momo/mtn-momo-simulator.ts'
import { type ApiResponse, startApp, type TestApp } from './support/app.ts'
import { assertErrorEnvelope } from './support/envelope.ts'
import { describeEachStore } from './support/stores.ts'
import { sleep } from './support/wait.ts'

/** One sample of the text exposition: `name{label="value",...} number`. */
interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

function parseExposition(text: string): Sample[] {
  const samples: Sample[] = []
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    assert.ok(match, `a well-formed sample line: ${line}`)
    const labels: Record<string, string> = {}
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g))
      labels[key!] = value!
    samples.push({ name: match[1]!, labels, value: Number(match[3]) })
  }
  return samples
}

/** The value of the one sample of `name` whose labels include `labels`; fails when there is none. */
function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter(
    (sample) =>
      sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  )
  assert.ok(found.length > 0, `a sample ${name} ${JSON.stringify(labels)}`)
  return found.reduce((sum, sample) => sum + sample.value, 0)
}

/** GET /metrics on the instance's metrics listener (apart from its API's port). */
async function scrape(app: TestApp, headers: Record<string, string> = {}) {
  const response = await fetch(app.metricsUrl, { headers })
  const text = await response.text()
  return { response, text, samples: response.status === 200 ? parseExposition(text) : [] }
}

/**
 * A scrape that sees everything done before it: the text is rendered at most every 250 ms, so it
 * waits out the rendering an earlier scrape may have left.
 */
async function freshScrape(app: TestApp, headers: Record<string, string> = {}) {
  await sleep(renderIntervalMs + 50)
  return scrape(app, headers)
}

/** A scrape as an ApiResponse, for the envelope checks of its refusals. */
async function scrapeAnswer(app: TestApp, headers: Record<string, string> = {}): Promise<ApiResponse> {
  const { response, text } = await scrape(app, headers)
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) }
}

function collect(merchantReference: string, phoneNumber: string, channel = 'orange-money') {
  return {
    amount: 1000,
    channel,
    country: 'CI',
    customer: { phoneNumber },
    merchantReference,
    callbackUrl: 'https://merchant.example/callbacks',
  }
}

/** A TCP port nothing listens on: a call there is refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise((resolve) => server.close(resolve))
  assert.ok(address && typeof address !== 'string')
  return address.port
}

const metricsToken = 'scrape-token-5f1d2c'

describeEachStore('GET /metrics', (store) => {
  let app: TestApp
  /** A second instance on the same database, with METRICS_TOKEN and an operator that refuses. */
  let guarded: TestApp
  let merchant: IssuedMerchant
  let folder: string
  let closeSimulator: () => Promise<void>
  const sandboxCollects = 3

  before(async () => {
    app = await startApp(store(), { liveOperators: true })
    // An MTN connection whose base URL refuses every call: operator errors, by adapter.
    const simulator = await startMtnMomoSimulator({ settleDelayMs: 100 })
    closeSimulator = () => simulator.close()
    folder = mkdtempSync(join(tmpdir(), 'sika-metrics-'))
    const operatorsFile = join(folder, 'operators.json')
    const refusing = {
      ...simulator.connection('mtn-momo', ['CI']),
      baseUrl: `http://127.0.0.1:${await closedPort()}`,
    }
    writeFileSync(operatorsFile, JSON.stringify({ connections: [refusing] }))
    guarded = await startApp(store(), {
      environment: { METRICS_TOKEN: metricsToken, OPERATORS_FILE: operatorsFile, RATE_LIMIT_PER_SECOND: '2' },
    })
    merchant = await app.createMerchant()
    const client = app.client(merchant.sandbox)
    for (let index = 0; index < sandboxCollects; index += 1) {
      const created = await client.post('/api/v1/collect', collect(`metrics-${index}`, '2250700000001'))
      assert.equal(created.status, 200, created.text)
      assert.equal(created.body.data.collect.status, 'succeeded')
    }
    // Pending until SANDBOX_DELAY_MS: it leaves scheduled work behind.
    const delayed = await client.post('/api/v1/collect', collect('metrics-delayed', '2250700000900'))
    assert.equal(delayed.status, 200, delayed.text)
  })
  after(async () => {
    await app.close()
    await guarded.close()
    await closeSimulator()
    rmSync(folder, { recursive: true, force: true })
  })

  test('answers the Prometheus text format without any api key', async () => {
    const { response, text } = await scrape(app)
    assert.equal(response.status, 200, text)
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/)
    assert.match(text, /^# HELP sika_http_requests_total /m)
    assert.match(text, /^# TYPE sika_http_request_duration_seconds histogram$/m)
  })

  test('counts requests by route pattern and status, with latency histograms', async () => {
    const client = app.client(merchant.sandbox)
    const listed = await client.get('/api/v1/collect')
    const token: string = listed.body.data.collects[0].token
    const details = await client.get(`/api/v1/collect/${token}`)
    assert.equal(details.status, 200, details.text)
    await fetch(`${app.url}/nowhere/at/all`)
    const { samples, text } = await freshScrape(app)
    const posted = { method: 'POST', route: '/api/v1/collect', status_code: '200' }
    assert.ok(sampleValue(samples, 'sika_http_requests_total', posted) >= sandboxCollects + 1)
    assert.ok(sampleValue(samples, 'sika_http_request_duration_seconds_count', posted) >= sandboxCollects + 1)
    assert.equal(
      sampleValue(samples, 'sika_http_request_duration_seconds_bucket', { ...posted, le: '+Inf' }),
      sampleValue(samples, 'sika_http_request_duration_seconds_count', posted),
    )
    assert.ok(
      sampleValue(samples, 'sika_http_request_duration_seconds_bucket', { ...posted, le: '0.005' }) >= 0,
    )
    assert.ok(sampleValue(samples, 'sika_http_request_duration_seconds_sum', posted) > 0)
    assert.ok(
      sampleValue(samples, 'sika_http_requests_total', {
        method: 'GET',
        route: '/api/v1/collect/:token',
        status_code: '200',
      }) >= 1,
    )
    assert.ok(
      sampleValue(samples, 'sika_http_requests_total', {
        method: 'GET',
        route: 'unmatched',
        status_code: '404',
      }) >= 1,
    )
    // The pattern, never the URL: no token and no unknown path becomes a label.
    assert.doesNotMatch(text, /route="\/nowhere/)
    assert.ok(!text.includes(token), 'no operation token in any label')
  })

  test('counts operations by kind, mode and status', async () => {
    const { samples } = await scrape(app)
    const sandbox = { kind: 'collect', mode: 'sandbox' }
    assert.equal(
      sampleValue(samples, 'sika_operation_statuses_total', { ...sandbox, status: 'pending' }),
      sandboxCollects + 1,
    )
    assert.equal(
      sampleValue(samples, 'sika_operation_statuses_total', { ...sandbox, status: 'succeeded' }),
      sandboxCollects,
    )
    // Every kind, mode and status has its series from the start.
    for (const kind of operationKindNames)
      assert.equal(
        sampleValue(samples, 'sika_operation_statuses_total', { kind, mode: 'live', status: 'failed' }),
        0,
      )
  })

  test('shows the outbox and scheduled-work backlogs', async () => {
    // Workers are manual: every event waits, and the delayed collect's work is open.
    const { samples } = await scrape(app)
    const events = 2 * sandboxCollects + 1
    assert.equal(sampleValue(samples, 'sika_outbox_undelivered_events'), events)
    assert.equal(sampleValue(samples, 'sika_outbox_due_events'), events)
    assert.ok(sampleValue(samples, 'sika_outbox_oldest_undelivered_age_seconds') > 0)
    assert.ok(sampleValue(samples, 'sika_scheduled_work_open', { kind: 'expire' }) >= 1)
    // Nothing is due yet: a submission's backstop waits 30 s, and the clock has not moved.
    assert.equal(sampleValue(samples, 'sika_scheduled_work_due', { kind: 'submit' }), 0)
    assert.equal(sampleValue(samples, 'sika_scheduled_work_oldest_due_age_seconds'), 0)
    assert.equal(sampleValue(samples, 'sika_store_up'), 1)
    assert.equal(sampleValue(samples, 'sika_store_info', { store: store().name }), 1)
  })

  test('shows the database connections and the event loop', async () => {
    const { samples } = await scrape(app)
    const open = sampleValue(samples, 'sika_db_pool_connections', { state: 'open' })
    assert.ok(open >= 1)
    assert.equal(
      sampleValue(samples, 'sika_db_pool_connections', { state: 'busy' }) +
        sampleValue(samples, 'sika_db_pool_connections', { state: 'idle' }),
      open,
    )
    assert.equal(sampleValue(samples, 'sika_db_pool_max_connections'), store().name === 'postgres' ? 20 : 1)
    if (store().name === 'postgres')
      assert.equal(sampleValue(samples, 'sika_db_pool_connections', { state: 'waiting' }), 0)
    for (const name of ['nodejs_eventloop_lag_seconds', 'nodejs_eventloop_lag_p99_seconds']) {
      const lagSeconds = sampleValue(samples, name)
      assert.ok(Number.isFinite(lagSeconds) && lagSeconds >= 0 && lagSeconds < 60, `${name} ${lagSeconds}`)
    }
    assert.ok(sampleValue(samples, 'process_cpu_seconds_total') > 0)
  })

  test('times operator calls by adapter, and counts those that got no answer', async () => {
    const live = await app
      .client(merchant.live)
      .post('/api/v1/collect', collect('metrics-live', '2250700000001', 'mtn-momo'))
    assert.equal(live.status, 200, live.text)
    const { samples } = await freshScrape(app)
    assert.ok(
      sampleValue(samples, 'sika_operator_call_duration_seconds_count', {
        adapter: 'mtn-momo',
        outcome: '2xx',
      }) >= 1,
    )
    assert.equal(
      sampleValue(samples, 'sika_operator_call_errors_total', { adapter: 'mtn-momo', reason: 'no_answer' }),
      0,
    )

    const guardedMerchant = await guarded.createMerchant()
    const refused = await guarded
      .client(guardedMerchant.live)
      .post('/api/v1/collect', collect('metrics-refused', '2250700000001', 'mtn-momo'))
    assert.equal(refused.status, 200, refused.text)
    const afterRefusal = await freshScrape(guarded, { authorization: `Bearer ${metricsToken}` })
    assert.ok(
      sampleValue(afterRefusal.samples, 'sika_operator_call_errors_total', {
        adapter: 'mtn-momo',
        reason: 'no_answer',
      }) >= 1,
    )
    assert.ok(
      sampleValue(afterRefusal.samples, 'sika_operator_call_duration_seconds_count', {
        adapter: 'mtn-momo',
        outcome: 'no_answer',
      }) >= 1,
    )
  })

  test('with METRICS_TOKEN: 401 in the envelope without the bearer token, 200 with it', async () => {
    const anonymous = await scrapeAnswer(guarded)
    assertErrorEnvelope(anonymous, 401, 'missing_credentials')
    assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Bearer/)
    const wrong = await scrapeAnswer(guarded, { authorization: 'Bearer nope' })
    assertErrorEnvelope(wrong, 401, 'invalid_credentials')
    const basic = await scrapeAnswer(guarded, { authorization: `Basic ${btoa(`x:${metricsToken}`)}` })
    assertErrorEnvelope(basic, 401, 'missing_credentials')
    // Merchant keys are not a way in.
    const keys = await scrapeAnswer(guarded, {
      'api-key': merchant.sandbox.apiKey,
      'secret-key': merchant.sandbox.secretKey,
    })
    assertErrorEnvelope(keys, 401, 'missing_credentials')
    const { response, samples } = await freshScrape(guarded, { authorization: `Bearer ${metricsToken}` })
    assert.equal(response.status, 200)
    assert.ok(
      sampleValue(samples, 'sika_http_requests_total', { route: '/metrics', status_code: '401' }) >= 4,
    )
  })

  test('is not rate limited, and each instance keeps its own registry', async () => {
    // RATE_LIMIT_PER_SECOND=2 on this instance: ten scrapes in a row all answer.
    for (let index = 0; index < 10; index += 1) {
      const { response } = await scrape(guarded, { authorization: `Bearer ${metricsToken}` })
      assert.equal(response.status, 200)
      assert.equal(response.headers.get('x-ratelimit-limit'), null)
    }
    const { samples } = await scrape(guarded, { authorization: `Bearer ${metricsToken}` })
    // The collects were made on the other instance: this one counted none of them.
    assert.equal(
      sampleValue(samples, 'sika_operation_statuses_total', {
        kind: 'collect',
        mode: 'sandbox',
        status: 'succeeded',
      }),
      0,
    )
    assert.ok(
      !samples.some(
        (sample) =>
          sample.name === 'sika_http_requests_total' &&
          sample.labels.route === '/api/v1/collect' &&
          sample.labels.method === 'GET',
      ),
      'the other instance\u2019s list requests are not counted here',
    )
    // The store's gauges read the shared database: the same backlog on both instances.
    assert.ok(sampleValue(samples, 'sika_outbox_undelivered_events') >= 2 * sandboxCollects + 1)
  })

  test('the API’s port does not serve /metrics, and its OpenAPI document does not list it', async () => {
    for (const instance of [app, guarded]) {
      const answer = await instance.client({}).get('/metrics')
      assertErrorEnvelope(answer, 404, 'not_found')
      const document = (await (await fetch(`${instance.url}/openapi.json`)).json()) as Record<string, any>
      assert.equal(document.paths['/metrics'], undefined)
    }
    assert.match(app.metricsUrl, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/, 'on the loopback by default')
  })

  // Last: its collects would change the counts the tests above read.
  test('counts grouped commits and the writes they held: concurrent initiations share them', async () => {
    const before = (await scrape(app)).samples
    const client = app.client((await app.createMerchant()).sandbox)
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        client.post('/api/v1/collect', collect(`grouped-${index}`, '2250700000001')),
      ),
    )
    assert.deepEqual(new Set(answers.map((answer) => answer.status)), new Set([200]))
    const after = (await freshScrape(app)).samples
    const grown = (name: string) => sampleValue(after, name) - sampleValue(before, name)
    const commits = grown('sika_grouped_commits_total')
    const writes = grown('sika_grouped_commit_writes_total')
    assert.ok(writes >= 20, `${writes} writes counted for 20 initiations`)
    assert.ok(commits >= 1 && commits < writes, `${writes} writes in ${commits} commits: none were grouped`)
  })
})
