import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import fc from 'fast-check'
import { Pool } from 'undici'
import { verifyStore } from '../src/app/verify-store.ts'
import { startApp, type TestApp } from './support/app.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * Issue 12: hostile input generated with fast-check against the real server, on both stores.
 * Every request below is wrong on purpose (each carries at least one fault that makes it
 * invalid), so every answer must be a 4xx in the contract's envelope with its requestId, never a
 * 5xx or a hang, and no row of any table may change. HOSTILE_REQUESTS sets the count per store
 * (npm test: 5,000 per store, 10,000 in all; npm run torture: 50,000 per store).
 */

const requestsPerStore = Number(process.env.HOSTILE_REQUESTS ?? 5_000)
const answerWithinMs = 10_000

interface HostileRequest {
  method: string
  path: string
  headers: Record<string, string>
  body?: string
}

const NUL = '\u0000'
const oddText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(NUL, '\ud800', '\udc00', 'a\ud83dz', `x${NUL}y`, '\u202e\u0301', '\ufeff', '😀'.repeat(40)),
)
/** Text that is never a valid value where it goes: it carries a NUL, an unpaired surrogate or an over-length. */
/** What a URL can carry of it: a surrogate alone would be sent as U+FFFD, a valid character. */
const poisonedQueryText = fc.oneof(
  fc.string({ maxLength: 10 }).map((text) => `${text}${NUL}`),
  fc.string({ minLength: 3000, maxLength: 3100 }),
)
const poisonedText = fc.oneof(
  fc
    .tuple(fc.string({ maxLength: 10 }), fc.constantFrom(NUL, '\ud800', '\udfff'))
    .map(([text, bad]) => text + bad),
  fc.string({ minLength: 3000, maxLength: 3100 }),
)
const oddNumberText = fc.constantFrom(
  '1e999',
  '-1e999',
  '1e-320',
  '-0',
  '-1',
  '0',
  '0.0000001',
  '1e308',
  '123456789012345678901234567890',
  '10.5e-1',
)
const wrongTypedValue = fc.oneof(
  fc.constantFrom('"1000"', 'true', 'null', '[]', '{}', '[1000]', '{"$gt":0}'),
  oddNumberText,
)

const initiationPaths = ['collect', 'disbursement', 'withdraw', 'recharge', 'transfer'] as const
const listPaths = [
  'collect',
  'disbursement',
  'withdraw',
  'recharge',
  'transfer',
  'refund',
  'transactions',
  'events',
]

let reference = 0
function baseBody(path: string): Record<string, unknown> {
  const side = {
    amount: 1000,
    channel: 'orange-money',
    country: 'CI',
    customer: { phoneNumber: '0700000000' },
  }
  const common = { merchantReference: `hostile-${reference++}`, callbackUrl: 'https://merchant.example/cb' }
  return path === 'transfer' ? { from: side, to: { ...side }, ...common } : { ...side, ...common }
}

/** One fault that makes a body invalid, applied to its JSON text. */
const bodyFault: fc.Arbitrary<(json: string) => string> = fc.oneof(
  wrongTypedValue.map((value) => (json: string) => json.replace(/"amount":1000/, `"amount":${value}`)),
  fc
    .string({ minLength: 1, maxLength: 20 })
    .map((key) => (json: string) => `{${JSON.stringify(`x_${key}`)}:1,${json.slice(1)}`),
  fc
    .constantFrom('__proto__', 'constructor', 'prototype')
    .map((key) => (json: string) => `{"${key}":{"polluted":true},${json.slice(1)}`),
  poisonedText.map(
    (text) => (json: string) =>
      json.replace(/"merchantReference":"[^"]*"/, `"merchantReference":${JSON.stringify(text)}`),
  ),
  poisonedText.map(
    (text) => (json: string) => json.replace(/"channel":"[^"]*"/, `"channel":${JSON.stringify(text)}`),
  ),
  fc.constant((json: string) => json.replace(/"amount":1000/, '"amount":1000,"amount":2000')),
  fc
    .integer({ min: 2, max: 20_000 })
    .map(
      (depth) => (json: string) => `{"metadata":${'['.repeat(depth)}${']'.repeat(depth)},${json.slice(1)}`,
    ),
  fc.constantFrom('merchantReference', 'callbackUrl').map((field) => (json: string) => {
    try {
      const parsed = JSON.parse(json)
      delete parsed[field]
      return JSON.stringify(parsed)
    } catch {
      return json // an earlier fault already broke it
    }
  }),
  oddText.map((text) => (json: string) => `${json.slice(0, -1)},"customer":${JSON.stringify(text)}}`),
  fc.constant((json: string) => json.slice(0, -1)),
  fc.constant((json: string) => `${json}${json}`),
  fc.constant((json: string) => json.replace('{', `{"pad":"${'x'.repeat(70_000)}",`)),
)

function initiation(keys: Record<string, string>): fc.Arbitrary<HostileRequest> {
  return fc
    .tuple(fc.constantFrom(...initiationPaths), fc.array(bodyFault, { minLength: 1, maxLength: 3 }))
    .map(([path, faults]) => ({
      method: 'POST',
      path: `/api/v1/${path}`,
      headers: { ...keys, 'content-type': 'application/json' },
      body: faults.reduce((json, fault) => fault(json), JSON.stringify(baseBody(path))),
    }))
}

/** A list query with at least one value no list takes. */
function listQuery(keys: Record<string, string>): fc.Arbitrary<HostileRequest> {
  const fault = fc.oneof(
    fc.tuple(
      fc.constantFrom('merchantReference', 'channel', 'phoneNumber', 'type', 'country'),
      poisonedQueryText,
    ),
    fc.tuple(fc.constant('page'), fc.constantFrom('0', '-1', '1e999', 'abc', '9'.repeat(30), '1.5')),
    fc.tuple(fc.constant('perPage'), fc.constantFrom('0', '-1', '101', 'abc', '1.5')),
    fc.tuple(
      fc.constantFrom('status', 'from', 'to', 'format'),
      oddText.filter((text) => text.length > 0),
    ),
    fc.tuple(
      fc.string({ minLength: 1, maxLength: 12 }).map((key) => `x_${key}`),
      oddText,
    ),
  )
  return fc.tuple(fc.constantFrom(...listPaths), fault).map(([path, [key, value]]) => {
    const query = new URLSearchParams({ [key]: value }).toString()
    return { method: 'GET', path: `/api/v1/${path}?${query}`, headers: keys }
  })
}

/** Paths that lead nowhere, methods a path does not take, and traversal. */
function strayPath(keys: Record<string, string>): fc.Arbitrary<HostileRequest> {
  const segment = fc.oneof(
    fc.constantFrom(
      '..',
      '%2e%2e',
      '....//',
      './',
      '%00',
      '%ff',
      '%',
      '%c0%ae',
      '\\..\\',
      'collect',
      'docs',
      'static',
    ),
    fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 12 }).map(encodeURIComponent),
  )
  return (
    fc
      .tuple(
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
        fc.constantFrom('/api/v1/', '/docs/static/', '/checkout/', '/providers/', '/api/v1/collect/', '/'),
        fc.array(segment, { minLength: 1, maxLength: 4 }),
      )
      .map(([method, prefix, segments]) => ({
        method,
        path: `${prefix}${segments.join('/')}`,
        headers: keys,
      }))
      // A stray path can land on a real one by chance (GET /api/v1/collect): those are not hostile.
      .filter(
        (request) =>
          !/^\/(health|ready|metrics|openapi\.json|docs)\/?$/.test(request.path) &&
          !/^\/api\/v1\/(collect|disbursement|withdraw|recharge|transfer|refund|transactions|events|channels|balance)\/?$/.test(
            request.path,
          ),
      )
  )
}

/** Credentials and content types that are wrong. */
function headerAbuse(keys: Record<string, string>): fc.Arbitrary<HostileRequest> {
  const printable = fc.string({ unit: 'grapheme-ascii', maxLength: 80 })
  return fc.oneof(
    fc.tuple(printable, printable).map(([apiKey, secretKey]) => ({
      method: 'GET',
      path: '/api/v1/balance',
      headers: { 'api-key': `pk_${apiKey}`, 'secret-key': secretKey },
    })),
    fc.constant({ method: 'GET', path: '/api/v1/channels', headers: {} }),
    fc
      .constantFrom(
        'text/plain',
        'application/xml',
        'multipart/form-data; boundary=x',
        'application/x-www-form-urlencoded',
        'application/json; charset=latin1',
      )
      .map((contentType) => ({
        method: 'POST',
        path: '/api/v1/collect',
        headers: { ...keys, 'content-type': contentType },
        body: 'amount=1000&channel=orange-money',
      })),
    fc.json({ maxDepth: 4 }).map((json) => ({
      method: 'POST',
      path: '/api/v1/disbursement',
      headers: { ...keys, 'content-type': 'application/json' },
      body: json,
    })),
  )
}

const tables = [
  'operations',
  'ledger_entries',
  'events',
  'event_attempts',
  'scheduled_work',
  'balances',
  'counters',
  'operator_references',
] as const

async function rowCounts(app: TestApp): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const table of tables) {
    const row = await app.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow()
    counts[table] = Number(row.count)
  }
  return counts
}

describeEachStore('hostile input, generated', (store) => {
  let app: TestApp
  let pool: Pool
  let keys: Record<string, string>
  before(async () => {
    app = await startApp(store(), { environment: { RATE_LIMIT_PER_SECOND: '0' } })
    const merchant = await app.createMerchant()
    keys = { 'api-key': merchant.sandbox.apiKey, 'secret-key': merchant.sandbox.secretKey }
    pool = new Pool(app.url, { connections: 4, pipelining: 1 })
  })
  after(async () => {
    await pool?.close()
    await app?.close()
  })

  test(`${requestsPerStore} hostile requests: each a 4xx in the envelope, within ${answerWithinMs / 1000} s, and no row changes`, async (t) => {
    const before = await rowCounts(app)
    const statuses = new Map<number, number>()
    const hostile = fc.oneof(
      { weight: 4, arbitrary: initiation(keys) },
      { weight: 3, arbitrary: listQuery(keys) },
      { weight: 2, arbitrary: strayPath(keys) },
      { weight: 1, arbitrary: headerAbuse(keys) },
    )
    await fc.assert(
      fc.asyncProperty(hostile, async (request) => {
        const response = await pool.request({
          method: request.method as 'GET',
          path: request.path,
          headers: request.headers,
          body: request.body,
          headersTimeout: answerWithinMs,
          bodyTimeout: answerWithinMs,
        })
        const text = await response.body.text()
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1)
        const detail = `${request.method} ${request.path.slice(0, 200)} ${(request.body ?? '').slice(0, 400)} → ${response.statusCode} ${text.slice(0, 300)}`
        assert.ok(response.statusCode >= 400 && response.statusCode < 500, detail)
        // The customer's checkout pages answer a browser: their 404 is a page, not JSON.
        if (
          request.path.startsWith('/checkout/') &&
          /^text\/html/.test(String(response.headers['content-type']))
        )
          return
        const body = JSON.parse(text)
        assert.equal(body.success, false, detail)
        assert.equal(body.statusCode, response.statusCode, detail)
        assert.equal(typeof body.code, 'string', detail)
        assert.equal(typeof body.message, 'string', detail)
        assert.equal(body.requestId, response.headers['x-request-id'], detail)
      }),
      {
        numRuns: requestsPerStore,
        endOnFailure: true,
        // A counterexample can be a 64 KiB body: the assertion's own message says what matters.
        includeErrorInReport: true,
        reporter: (details) => {
          if (details.failed)
            throw new Error(
              `seed ${details.seed}, path ${details.counterexamplePath}: ${String(details.errorInstance).slice(0, 2000)}`,
            )
        },
      },
    )
    assert.deepEqual(await rowCounts(app), before, 'no rejected request changed a row')
    const report = await verifyStore(app.context)
    assert.deepEqual(report.inconsistencies, [])
    const figures = [...statuses.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status}: ${count}`)
    t.diagnostic(`hostile input [${store().name}]: ${requestsPerStore} requests, ${figures.join(', ')}`)
  })
})
