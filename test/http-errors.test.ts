import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import BetterSqlite3 from 'better-sqlite3'
import { sql } from 'kysely'
import type { IssuedMerchant } from '../src/app/merchants.ts'
import { errorRegistry } from '../src/errors.ts'
import { type ApiResponse, startApp, type TestApp } from './support/app.ts'
import { assertErrorEnvelope } from './support/envelope.ts'
import { describeEachStore } from './support/stores.ts'
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.ts'

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

function collectBody(merchantReference: string) {
  return {
    amount: 1000,
    channel: 'orange-money',
    country: 'CI',
    customer: { phoneNumber: '2250700000001' },
    merchantReference,
    callbackUrl: 'https://merchant.example/callbacks',
  }
}

/** A JSON body of exactly `bytes` bytes. */
function jsonBodyOfSize(bytes: number): string {
  const frame = '{"padding":""}'
  const body = `{"padding":"${'a'.repeat(bytes - frame.length)}"}`
  assert.equal(Buffer.byteLength(body), bytes)
  return body
}

/** Polls until `check` passes, for at most `timeoutMs`: recovery need not be instant, but it must come. */
async function eventually(check: () => Promise<void>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      return await check()
    } catch (error) {
      if (Date.now() > deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}

/** A database that does not answer must not hold a client's request for longer than this. */
const partitionAnswerMs = 15_000

/** The response, or a failure naming the bound, if it does not come within `timeoutMs`. */
async function answerWithin(response: Promise<ApiResponse>, timeoutMs: number): Promise<ApiResponse> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)
  })
  try {
    return await Promise.race([response, timeout])
  } finally {
    clearTimeout(timer)
  }
}

describeEachStore('HTTP errors, request ids and logs', (store) => {
  let app: TestApp
  let merchant: IssuedMerchant
  before(async () => {
    // The most verbose level: a secret that reaches any log line at all would show here.
    app = await startApp(store(), { environment: { LOG_LEVEL: 'trace' } })
    merchant = await app.createMerchant()
  })
  after(() => app.close())

  test('/health answers 200, and /ready answers 200 while the store is up', async () => {
    const anonymous = app.client({})
    const health = await anonymous.get('/health')
    assert.equal(health.status, 200, health.text)
    const ready = await anonymous.get('/ready')
    assert.equal(ready.status, 200, ready.text)
  })

  test('400 invalid_json: a body sent as application/json that is not JSON', async () => {
    const client = app.client(merchant.sandbox)
    const bodies = ['{"amount":', '{', 'not json', "{'amount': 1000}", '{"amount": 1000,}', '']
    for (const contentType of ['application/json', 'application/json; charset=utf-8']) {
      for (const body of bodies) {
        const response = await client.request('POST', '/api/v1/collect', {
          body,
          headers: { 'content-type': contentType },
        })
        assert.equal(response.status, 400, `${contentType} ${JSON.stringify(body)}: ${response.text}`)
        assertErrorEnvelope(response, 400, 'invalid_json')
        if (body === '')
          assert.match(response.body.message, /body is empty/, 'says the body was empty, not malformed')
      }
    }
  })

  test('400 invalid_json says where the parser stopped, as a line and a column, when it knows', async () => {
    const client = app.client(merchant.sandbox)
    const table: [string, RegExp][] = [
      // A missing colon on the third line, as a hand-written body has it.
      ['{\n  "amount": 5000,\n  "channel" "wave"\n}', /at line 3, column 13\.$/],
      [
        '{"amount": 5000 "channel": "wave"}',
        /expected ',' or '}' after property value at line 1, column 17\.$/,
      ],
      ['{"amount": 5000}\nx', /at line 2, column 1\.$/],
      ['{"amount":', /ends before the JSON does \(line 1, column 11\)\.$/],
    ]
    for (const [body, message] of table) {
      const response = await client.request('POST', '/api/v1/collect', {
        body,
        headers: { 'content-type': 'application/json' },
      })
      assertErrorEnvelope(response, 400, 'invalid_json')
      assert.match(response.body.message, /^The request body is not valid JSON: /, JSON.stringify(body))
      assert.match(response.body.message, message, JSON.stringify(body))
    }
  })

  test('404 not_found: an unknown route, with or without credentials', async () => {
    const paths = [
      '/nope',
      '/api/v1/nope',
      '/api/v2/collect',
      '/api/v1/collect/zzzzz-zzzzz-zzzzz-zzzzz-zzzzz/more',
    ]
    for (const client of [app.client({}), app.client(merchant.sandbox)]) {
      for (const path of paths) {
        for (const method of ['GET', 'POST']) {
          const response = await client.request(method, path)
          assert.equal(response.status, 404, `${method} ${path}: ${response.text}`)
          assertErrorEnvelope(response, 404, 'not_found')
        }
      }
    }
  })

  test('404 not_found: a path the router cannot read (bad percent-encoding, an overlong token) is an unknown route, in the envelope', async () => {
    const paths = ['/api/v1/collect/%E0%A4%A', '/api/v1/%', '/%zz', `/api/v1/collect/${'a'.repeat(300)}`]
    for (const path of paths) {
      const response = await app.client(merchant.sandbox).get(path)
      assert.equal(response.status, 404, `${path.slice(0, 40)}: ${response.text.slice(0, 200)}`)
      assertErrorEnvelope(response, 404, 'not_found')
    }
  })

  test('405 method_not_allowed: a known path with another method, and Allow lists the methods it takes', async () => {
    const table: { method: string; path: string; allowed: string[] }[] = [
      { method: 'DELETE', path: '/api/v1/collect', allowed: ['GET', 'POST'] },
      { method: 'PUT', path: '/api/v1/disbursement', allowed: ['GET', 'POST'] },
      { method: 'PATCH', path: '/api/v1/transfer/zzzzz-zzzzz-zzzzz-zzzzz-zzzzz', allowed: ['GET'] },
      { method: 'DELETE', path: '/api/v1/transaction', allowed: ['GET', 'POST'] },
      { method: 'POST', path: '/api/v1/channels', allowed: ['GET'] },
      { method: 'POST', path: '/health', allowed: ['GET'] },
      // Refunds are initiated on their collect, so the refund list takes no POST.
      { method: 'POST', path: '/api/v1/refund', allowed: ['GET'] },
    ]
    const client = app.client(merchant.sandbox)
    for (const { method, path, allowed } of table) {
      const response = await client.request(method, path)
      assert.equal(response.status, 405, `${method} ${path}: ${response.text}`)
      assertErrorEnvelope(response, 405, 'method_not_allowed')
      const allow = (response.headers.get('allow') ?? '').split(',').map((entry) => entry.trim())
      for (const expected of allowed)
        assert.ok(allow.includes(expected), `${method} ${path}: Allow ${allow} has ${expected}`)
      assert.ok(!allow.includes(method), `${method} ${path}: Allow ${allow} leaves ${method} out`)
      assert.match(response.body.message, new RegExp(`^${method} is not allowed on ${path}; it takes `))
    }
  })

  test('405 method_not_allowed is decided before the body is read: a JSON body, even one that does not parse', async () => {
    const json = { 'content-type': 'application/json' }
    const client = app.client(merchant.sandbox)
    for (const anyClient of [client, app.client({})]) {
      for (const body of ['{"amount":', 'not json', '{"amount": 1000}', '']) {
        for (const [method, path] of [
          ['DELETE', '/api/v1/collect'],
          ['PUT', '/api/v1/collect/zzzzz-zzzzz-zzzzz-zzzzz-zzzzz'],
          ['PATCH', '/api/v1/channels'],
        ] as const) {
          const response = await anyClient.request(method, path, { body, headers: json })
          assertErrorEnvelope(response, 405, 'method_not_allowed')
          assert.ok(response.headers.get('allow'), `${method} ${path}: Allow is set`)
        }
      }
    }
    // An unknown path with a body that does not parse is the unknown route it is.
    const unknown = await client.request('POST', '/api/v1/nope', { body: '{"amount":', headers: json })
    assertErrorEnvelope(unknown, 404, 'not_found')
  })

  test('413 payload_too_large: a body over 64 KiB; 64 KiB itself is read', async () => {
    const client = app.client(merchant.sandbox)
    const headers = { 'content-type': 'application/json' }
    const atLimit = await client.request('POST', '/api/v1/collect', {
      body: jsonBodyOfSize(64 * 1024),
      headers,
    })
    assert.notEqual(atLimit.status, 413, 'a body of exactly 64 KiB is within the limit')
    assertErrorEnvelope(atLimit, 422, 'validation_failed')
    for (const bytes of [64 * 1024 + 1, 256 * 1024]) {
      const response = await client.request('POST', '/api/v1/collect', {
        body: jsonBodyOfSize(bytes),
        headers,
      })
      assertErrorEnvelope(response, 413, 'payload_too_large')
    }
  })

  test('415 unsupported_media_type: a POST body that is not JSON', async () => {
    const table: { contentType: string; body: string }[] = [
      { contentType: 'text/plain', body: JSON.stringify(collectBody('as-text')) },
      { contentType: 'application/x-www-form-urlencoded', body: 'amount=1000&channel=orange-money' },
      { contentType: 'application/xml', body: '<collect><amount>1000</amount></collect>' },
      { contentType: 'multipart/form-data; boundary=x', body: '--x\r\n\r\n1000\r\n--x--' },
    ]
    const client = app.client(merchant.sandbox)
    for (const { contentType, body } of table) {
      const response = await client.request('POST', '/api/v1/collect', {
        body,
        headers: { 'content-type': contentType },
      })
      assert.equal(response.status, 415, `${contentType}: ${response.text}`)
      assertErrorEnvelope(response, 415, 'unsupported_media_type')
    }
  })

  const requestIdCases: { title: string; send: () => Promise<ApiResponse>; status: number }[] = [
    { title: 'a success', send: () => app.client(merchant.sandbox).get('/api/v1/channels'), status: 200 },
    { title: 'a 401', send: () => app.client({}).get('/api/v1/channels'), status: 401 },
    { title: 'a 404', send: () => app.client({}).get('/nope'), status: 404 },
  ]

  test('x-request-id: a valid id the client sends is echoed, in the header, the error body and the logs', async () => {
    for (const { title, status } of requestIdCases) {
      const requestId = `client-id_${status}.Abc:~${'x'.repeat(20)}`
      const client = status === 200 ? app.client(merchant.sandbox) : app.client({})
      const path = status === 404 ? '/nope' : '/api/v1/channels'
      const response = await client.request('GET', path, { headers: { 'x-request-id': requestId } })
      assert.equal(response.status, status, `${title}: ${response.text}`)
      assert.equal(response.headers.get('x-request-id'), requestId, title)
      if (status !== 200) assert.equal(response.body.requestId, requestId, title)
      assert.ok(
        app.logs.some((line) => line.includes(`"requestId":"${requestId}"`)),
        `${title}: the log lines carry the id`,
      )
    }
  })

  test('x-request-id: without one, or with an unusable one, a fresh UUID is generated', async () => {
    const unusable = ['has a space', 'x'.repeat(129), '']
    for (const { title, send, status } of requestIdCases) {
      const first = await send()
      const second = await send()
      assert.equal(first.status, status, `${title}: ${first.text}`)
      const ids = [first, second].map((response) => response.headers.get('x-request-id') ?? '')
      for (const id of ids) assert.match(id, uuidPattern, title)
      assert.notEqual(ids[0], ids[1], `${title}: each request has its own id`)
      if (status !== 200) assert.equal(first.body.requestId, ids[0], title)
    }
    for (const sent of unusable) {
      const response = await app
        .client({})
        .request('GET', '/api/v1/channels', { headers: { 'x-request-id': sent } })
      const id = response.headers.get('x-request-id') ?? ''
      assert.match(id, uuidPattern, `${JSON.stringify(sent)} is replaced`)
      assert.equal(response.body.requestId, id)
    }
  })

  test('the secret-key never appears in a log line, whatever the request comes to', async () => {
    const wrongSecret = `sk_test_${'W'.repeat(40)}`
    const keys = merchant.sandbox
    const client = app.client(keys)
    const json = { 'content-type': 'application/json' }
    const responses = [
      await client.get('/api/v1/channels'),
      await client.post('/api/v1/collect', collectBody('logged-request')),
      await client.get('/api/v1/collect', { perPage: 5 }),
      await client.request('POST', '/api/v1/collect', { body: '{"amount":', headers: json }),
      await client.request('POST', '/api/v1/collect', { body: jsonBodyOfSize(70_000), headers: json }),
      await client.request('POST', '/api/v1/collect', {
        body: 'x',
        headers: { 'content-type': 'text/plain' },
      }),
      await client.post('/api/v1/collect', { amount: 'lots' }),
      await client.request('DELETE', '/api/v1/collect'),
      await client.get('/api/v1/nope'),
      await app.client({ apiKey: keys.apiKey, secretKey: wrongSecret }).get('/api/v1/channels'),
      await app.client(merchant.live).get('/api/v1/channels'),
    ]
    assert.deepEqual(
      responses.map((response) => response.status),
      [200, 200, 200, 400, 413, 415, 422, 405, 404, 401, 200],
    )
    assert.ok(app.logs.length > responses.length, 'the requests were logged')
    for (const secret of [keys.secretKey, merchant.live.secretKey, wrongSecret, merchant.webhookSecret]) {
      const leaks = app.logs.filter((line) => line.includes(secret))
      assert.deepEqual(leaks, [], `${secret.slice(0, 8)}... is in no log line`)
    }
  })
})

describeEachStore('500 internal_error: a real fault inside the service', (store) => {
  let app: TestApp
  let merchant: IssuedMerchant
  before(async () => {
    // Its own database: the fault below breaks it for good.
    app = await startApp(store())
    merchant = await app.createMerchant()
    await sql`drop table channel_routes`.execute(app.db)
  })
  after(() => app.close())

  test('answers 500 internal_error with a requestId, and no stack or SQL in the body', async () => {
    const response = await app.client(merchant.sandbox).get('/api/v1/channels')
    assertErrorEnvelope(response, 500, 'internal_error')
    assert.equal(response.body.message, errorRegistry.internal_error.message)
    assert.match(response.body.requestId, uuidPattern)
    for (const leak of [
      /channel_routes/i,
      /select/i,
      /sqlite/i,
      /relation/i,
      /\bat\s+\S+\s+\(/,
      /\.ts:\d+/,
      /stack/i,
    ]) {
      assert.doesNotMatch(response.text, leak)
    }
  })

  test('the fault is logged for the operator under the same requestId, without the secret-key', async () => {
    const response = await app.client(merchant.sandbox).get('/api/v1/channels')
    assert.equal(response.status, 500, response.text)
    const faultLines = app.logs.filter(
      (line) => line.includes(`"requestId":"${response.body.requestId}"`) && line.includes('"level":50'),
    )
    assert.equal(faultLines.length, 1, 'one error line carries the request id')
    for (const secret of [merchant.sandbox.secretKey, merchant.live.secretKey, merchant.webhookSecret]) {
      assert.deepEqual(
        app.logs.filter((line) => line.includes(secret)),
        [],
      )
    }
  })
})

describeEachStore('503 unavailable: the database cannot be reached', (store) => {
  let app: TestApp | undefined
  let proxy: TcpProxy | undefined
  let merchant: IssuedMerchant
  before(async () => {
    if (store().name !== 'postgres') return
    // The service reaches PostgreSQL through a proxy the test can cut, as a network would.
    const databaseUrl = new URL(store().databaseUrl)
    proxy = await startTcpProxy({ host: databaseUrl.hostname, port: Number(databaseUrl.port || 5432) })
    databaseUrl.hostname = '127.0.0.1'
    databaseUrl.port = String(proxy.port)
    app = await startApp({ name: 'postgres', databaseUrl: databaseUrl.toString() })
    merchant = await app.createMerchant()
  })
  after(async () => {
    await app?.close()
    await proxy?.stop()
  })

  test('PostgreSQL: while the connection is cut, requests answer 503 and /ready 503; once back, 200', async (t) => {
    if (!app || !proxy) return t.skip('the network cut applies to PostgreSQL only')
    const client = app.client(merchant.sandbox)
    const anonymous = app.client({})
    assert.equal((await client.get('/api/v1/channels')).status, 200)

    await proxy.stop()
    assertErrorEnvelope(await client.get('/api/v1/channels'), 503, 'unavailable')
    assertErrorEnvelope(await client.post('/api/v1/collect', collectBody('while-cut')), 503, 'unavailable')
    assertErrorEnvelope(await anonymous.get('/ready'), 503, 'unavailable')
    assert.equal((await anonymous.get('/health')).status, 200, 'the process itself is alive')

    await proxy.start()
    await eventually(async () => {
      assert.equal((await anonymous.get('/ready')).status, 200)
    })
    const channels = await client.get('/api/v1/channels')
    assert.equal(channels.status, 200, channels.text)
    const collect = await client.post('/api/v1/collect', collectBody('after-reconnect'))
    assert.equal(collect.status, 200, collect.text)
  })

  test('PostgreSQL: while the database does not answer at all (a partition), requests answer 503 within 15 s', {
    timeout: 90_000,
  }, async (t) => {
    if (!app || !proxy) return t.skip('the network partition applies to PostgreSQL only')
    const client = app.client(merchant.sandbox)
    const anonymous = app.client({})
    assert.equal((await client.get('/api/v1/channels')).status, 200, 'the pool holds a live connection')

    proxy.freeze()
    try {
      const [channels, ready] = await Promise.all([
        answerWithin(client.get('/api/v1/channels'), partitionAnswerMs),
        answerWithin(anonymous.get('/ready'), partitionAnswerMs),
      ])
      assertErrorEnvelope(channels, 503, 'unavailable')
      assertErrorEnvelope(ready, 503, 'unavailable')
    } finally {
      proxy.thaw()
    }
    await eventually(async () => {
      assert.equal((await client.get('/api/v1/channels')).status, 200)
    }, 30_000)
  })

  test('SQLite: a write that cannot get the database within the busy timeout answers 503, then works again', {
    timeout: 30_000,
  }, async (t) => {
    // SQLite is a file in the process: it cannot be cut like a network. The honest way it becomes
    // unusable is another connection holding the write lock past the busy timeout (5 s).
    if (store().name !== 'sqlite') return t.skip('the write lock applies to SQLite only')
    const sqliteApp = await startApp(store())
    const locker = new BetterSqlite3(store().databaseUrl)
    try {
      const owner = await sqliteApp.createMerchant()
      const client = sqliteApp.client(owner.sandbox)
      locker.exec('begin immediate')
      assertErrorEnvelope(
        await client.post('/api/v1/collect', collectBody('while-locked')),
        503,
        'unavailable',
      )
      locker.exec('rollback')
      const collect = await client.post('/api/v1/collect', collectBody('after-unlock'))
      assert.equal(collect.status, 200, collect.text)
    } finally {
      if (locker.inTransaction) locker.exec('rollback')
      locker.close()
      await sqliteApp.close()
    }
  })
})
