import assert from 'node:assert/strict'
import { createConnection } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { type ErrorCode, errorRegistry } from '../src/errors.ts'
import { startOrangeMoneySimulator } from '../src/simulators/orange-money/orange-money-simulator.ts'
import type { RunningSimulator } from '../src/simulators/simulator.ts'
import { startApp, type TestApp } from './support/app.ts'
import { assertErrorEnvelope } from './support/envelope.ts'
import { type LiveApp, settledRecord, startLiveApp } from './support/live.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * CONTRACT.md, Errors: every error a route can answer is in its response schema, so it leaves in
 * the envelope, never as a 500 from a schema that strips it. The walk below starts from the
 * registry: each code names the routes that can answer it, and each of those routes must document
 * it under its status in the OpenAPI document the server publishes.
 */

type JsonObject = Record<string, any>

interface ApiOperation {
  method: string
  path: string
  operation: JsonObject
}

const hasParameters = (route: ApiOperation) => route.path.includes('{')
const takesBody = (route: ApiOperation) => route.method === 'post'
const hasQuery = (route: ApiOperation) =>
  (route.operation.parameters ?? []).some((parameter: JsonObject) => parameter.in === 'query')
const initiates = (route: ApiOperation) =>
  Boolean(route.operation.requestBody?.content?.['application/json']?.schema?.properties?.merchantReference)
const refunds = (route: ApiOperation) => initiates(route) && hasParameters(route)
const everyRoute = () => true
const cancels = (route: ApiOperation) => route.path.endsWith('/cancel')

/**
 * Which /api/v1 routes can answer each code of the registry: a new code fails to compile until it
 * is placed here. Node's parser (400 bad_request, 408, 431), the key checks, the limits and the
 * store stand before every route; a 405 is the answer for a method no route takes.
 */
const answeredBy = {
  invalid_json: takesBody,
  bad_request: everyRoute,
  missing_credentials: everyRoute,
  invalid_credentials: everyRoute,
  merchant_suspended: everyRoute,
  // The platform paused the merchant's payouts: its disbursements, withdraws, transfers and batches.
  payouts_paused: (route: ApiOperation) =>
    initiates(route) &&
    ['/api/v1/disbursement', '/api/v1/withdraw', '/api/v1/transfer', '/api/v1/payout-batch'].includes(
      route.path,
    ),
  not_found: hasParameters,
  method_not_allowed: () => false,
  request_timeout: everyRoute,
  duplicate_merchant_reference: initiates,
  refund_exceeds_collected: refunds,
  not_cancelable: cancels,
  payload_too_large: takesBody,
  unsupported_media_type: takesBody,
  validation_failed: (route: ApiOperation) => takesBody(route) || hasQuery(route),
  insufficient_balance: initiates,
  // A live refund pays the customer back through the collect's channel, which may not pay out.
  channel_unavailable: initiates,
  amount_out_of_range: initiates,
  not_refundable: refunds,
  // Past the merchant's maxAmount, or a payout past its dailyPayoutLimit.
  limit_exceeded: initiates,
  // Closing a link that already takes no payments (expired or completed).
  link_unavailable: (route: ApiOperation) => route.path === '/api/v1/payment-link/{token}/close',
  rate_limited: everyRoute,
  headers_too_large: everyRoute,
  internal_error: everyRoute,
  unavailable: everyRoute,
} as const satisfies Record<ErrorCode, (route: ApiOperation) => boolean>

function apiOperations(document: JsonObject): ApiOperation[] {
  return Object.entries(document.paths as JsonObject)
    .filter(([path]) => path.startsWith('/api/v1/'))
    .flatMap(([path, item]) =>
      ['get', 'post', 'put', 'patch', 'delete']
        .filter((method) => item[method])
        .map((method) => ({ method, path, operation: item[method] as JsonObject })),
    )
}

/** The codes an operation documents under a status (its error schema's `code`, a union of constants). */
function documentedCodes(operation: JsonObject, status: number): string[] {
  const schema = operation.responses?.[String(status)]?.content?.['application/json']?.schema
  const code = schema?.properties?.code
  if (!code) return []
  const branches: JsonObject[] = code.anyOf ?? [code]
  return branches.flatMap((branch) => (branch.const !== undefined ? [branch.const] : (branch.enum ?? [])))
}

describe('the error registry against the routes’ response schemas', () => {
  let app: TestApp
  let document: JsonObject
  before(async () => {
    app = await startApp({ name: 'sqlite', databaseUrl: ':memory:' })
    document = (await (await fetch(`${app.url}/openapi.json`)).json()) as JsonObject
  })
  after(() => app.close())

  test('every code of the registry is documented, under its status, by every route that can answer it', (t) => {
    const routes = apiOperations(document)
    assert.ok(routes.length >= 20, `${routes.length} API operations in the document`)
    const missing: string[] = []
    let checked = 0
    for (const [code, answers] of Object.entries(answeredBy) as [
      ErrorCode,
      (route: ApiOperation) => boolean,
    ][])
      for (const route of routes.filter(answers)) {
        checked += 1
        const { status } = errorRegistry[code]
        if (!documentedCodes(route.operation, status).includes(code))
          missing.push(`${route.method.toUpperCase()} ${route.path}: ${status} ${code}`)
      }
    assert.deepEqual(missing, [], 'codes a route can answer but does not document')
    t.diagnostic(`${checked} (route, code) pairs walked, none missing`)
  })

  test('every code a route documents is the registry’s, under the registry’s status', () => {
    const wrong: string[] = []
    for (const route of apiOperations(document))
      for (const status of Object.keys(route.operation.responses ?? {}).map(Number))
        for (const code of documentedCodes(route.operation, status)) {
          const entry = errorRegistry[code as ErrorCode] as { status: number } | undefined
          if (entry?.status !== status)
            wrong.push(`${route.method.toUpperCase()} ${route.path}: ${status} ${code}`)
        }
    assert.deepEqual(wrong, [])
  })

  test('what Node’s parser refuses answers the registry’s codes in the envelope', async () => {
    const { port } = new URL(app.url)
    const exchange = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = createConnection(Number(port), '127.0.0.1')
        let answer = ''
        socket.on('data', (chunk) => {
          answer += chunk
        })
        socket.on('end', () => resolve(answer))
        socket.on('close', () => resolve(answer))
        socket.on('error', reject)
        socket.write(request)
      })
    const malformed = await exchange('GET /health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n')
    const oversized = await exchange(
      `GET /health HTTP/1.1\r\nHost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`,
    )
    for (const [answer, code] of [
      [malformed, 'bad_request'],
      [oversized, 'headers_too_large'],
    ] as const) {
      const { status, message } = errorRegistry[code]
      assert.match(answer, new RegExp(`^HTTP/1.1 ${status} `))
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))
      assert.equal(body.code, code)
      assert.equal(body.statusCode, status)
      assert.equal(body.message, message)
    }
  })
})

describeEachStore('a refund the operator cannot pay out answers its 422, not a 500', (store) => {
  let orange: RunningSimulator
  let running: LiveApp
  before(async () => {
    running = await startLiveApp(store(), async () => {
      orange = await startOrangeMoneySimulator({ settleDelayMs: 100 })
      return [{ simulator: orange, channel: 'orange-money', countries: ['CI'] }]
    })
  })
  after(() => running?.close())

  test('a succeeded live Orange Money collect: its refund is 422 channel_unavailable in the envelope', async (t) => {
    const created = await running.live.post('/api/v1/collect', {
      amount: 5000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: '0700000123' },
      merchantReference: 'orange-refund-1',
      callbackUrl: 'https://merchant.example/callback',
    })
    assert.equal(created.status, 200, created.text)
    const { token } = created.body.data.collect
    const paid = await fetch(`${orange.url}/_simulator/payments/${token}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ msisdn: '0700000123' }),
    })
    assert.ok(paid.ok, await paid.text())
    assert.equal((await settledRecord(running, 'collect', token)).status, 'succeeded')

    // apiClient holds the answer against the route's documented 422 as well.
    const refund = await running.live.post(`/api/v1/collect/${token}/refund`, {
      merchantReference: 'orange-refund-1-back',
    })
    assertErrorEnvelope(refund, 422, 'channel_unavailable')
    assert.deepEqual(
      (refund.body.errors as JsonObject[]).map((error) => [error.field, error.code]),
      [['channel', 'channel_unavailable']],
    )
    t.diagnostic(`refund of a live Orange Money collect: ${refund.status} ${refund.body.code}`)
    const refunds = await running.live.get('/api/v1/refund')
    assert.equal(refunds.body.meta.pagination.total, 0, 'nothing was created')
  })
})
