import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { type ApiClient, startApp, type TestApp } from './support/app.ts'
import { assertErrorEnvelope } from './support/envelope.ts'
import { describeEachStore, type StoreTarget } from './support/stores.ts'

/**
 * Issue 12, faults found by an attack: input no store can hold faithfully (NUL, lone
 * surrogates) is a 422 on both stores before the store is reached; a JSON key given twice is a
 * 400; an error list is capped; the docs' static files never answer 500; and what Node's HTTP
 * parser refuses (malformed, headers too large, too slow) still answers in the envelope.
 */

const collectJson = (merchantReference: string) =>
  `{"amount":1000,"channel":"orange-money","country":"CI","customer":{"phoneNumber":"0700000000"},"merchantReference":${merchantReference},"callbackUrl":"https://merchant.example/cb"}`

/** HTTP-level faults do not depend on the store: one SQLite file is enough (removed at the end). */
const sqliteFolders: string[] = []
after(() => {
  for (const folder of sqliteFolders) rmSync(folder, { recursive: true, force: true })
})
const sqliteTarget = (): StoreTarget => {
  const folder = mkdtempSync(join(tmpdir(), 'sika-hostile-'))
  sqliteFolders.push(folder)
  return { name: 'sqlite', databaseUrl: join(folder, 'sika.db') }
}

async function operationCount(app: TestApp): Promise<number> {
  const row = await app.db
    .selectFrom('operations')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

describeEachStore('hostile input', (store) => {
  let app: TestApp
  let sandbox: ApiClient
  before(async () => {
    app = await startApp(store(), { environment: { RATE_LIMIT_PER_SECOND: '0' } })
    sandbox = app.client((await app.createMerchant()).sandbox)
  })
  after(() => app.close())

  for (const [path, field] of [
    ['/api/v1/collect', 'merchantReference'],
    ['/api/v1/collect', 'channel'],
    ['/api/v1/disbursement', 'phoneNumber'],
    ['/api/v1/events', 'type'],
  ] as const) {
    test(`a NUL in ${path}?${field} is a 422 naming it, never a 500`, async () => {
      const response = await sandbox.get(path, { [field]: 'a\u0000b' })
      assertErrorEnvelope(response, 422, 'validation_failed')
      assert.deepEqual(
        response.body.errors.map((error: { field: string; code: string }) => [error.field, error.code]),
        [[field, 'invalid_characters']],
      )
    })
  }

  for (const [name, escaped] of [
    ['a lone high surrogate', '"ref-\\ud800"'],
    ['a lone low surrogate', '"ref-\\udc00"'],
    ['a NUL', '"ref-\\u0000"'],
  ] as const) {
    test(`${name} in merchantReference is a 422 and creates nothing`, async () => {
      const before = await operationCount(app)
      for (let attempt = 0; attempt < 2; attempt++) {
        const response = await sandbox.request('POST', '/api/v1/collect', {
          body: collectJson(escaped),
          headers: { 'content-type': 'application/json' },
        })
        assertErrorEnvelope(response, 422, 'validation_failed')
        assert.equal(response.body.errors[0].field, 'merchantReference')
      }
      assert.equal(await operationCount(app), before)
    })
  }

  test('a proper surrogate pair (an emoji) is accepted: only unpaired halves are refused', async () => {
    const response = await sandbox.request('POST', '/api/v1/collect', {
      body: collectJson('"ref-\\ud83d\\ude00"'),
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(response.status, 200, response.text)
    assert.equal(response.body.data.collect.merchantReference, 'ref-\u{1f600}')
  })

  test('a key given twice is a 400 naming it, and creates nothing', async () => {
    const before = await operationCount(app)
    const body = collectJson('"twice-1"').replace('"amount":1000', '"amount":1000,"amount":2000')
    const response = await sandbox.request('POST', '/api/v1/collect', {
      body,
      headers: { 'content-type': 'application/json' },
    })
    assertErrorEnvelope(response, 400, 'invalid_json')
    assert.match(response.body.message, /"amount" twice/)
    const nested = await sandbox.request('POST', '/api/v1/collect', {
      body: collectJson('"twice-2"').replace(
        '"phoneNumber":"0700000000"',
        '"phoneNumber":"0700000000","phoneNumber":"0700000001"',
      ),
      headers: { 'content-type': 'application/json' },
    })
    assertErrorEnvelope(nested, 400, 'invalid_json')
    assert.match(nested.body.message, /"customer\.phoneNumber" twice/)
    assert.equal(await operationCount(app), before)
  })

  test('6,500 unknown fields: the list is capped at 20 and the message says how many more', async () => {
    const fields = Array.from({ length: 6500 }, (_, index) => `"f${index}":1`).join(',')
    const response = await sandbox.request('POST', '/api/v1/collect', {
      body: `${collectJson('"many-fields"').slice(0, -1)},${fields}}`,
      headers: { 'content-type': 'application/json' },
    })
    assertErrorEnvelope(response, 422, 'validation_failed')
    assert.equal(response.body.errors.length, 20)
    assert.match(response.body.message, /6480 more problems are not listed/)
    assert.ok(response.text.length < 8_000, `${response.text.length} bytes`)
  })
})

test('the docs’ static files: a path out of their folder is a 404 in the envelope, never a 500', async () => {
  const app = await startApp(sqliteTarget())
  try {
    for (const path of [
      '/docs/static/../x',
      '/docs/static/%2e%2e/x',
      '/docs/static/./index.html',
      '/docs/static/....//x',
    ]) {
      const response = await fetch(`${app.url}${path}`)
      assert.ok(response.status < 500, `${path}: ${response.status}`)
      if (response.status >= 400) {
        const body = (await response.json()) as { code: string; requestId: string }
        assert.equal(body.code, 'not_found', path)
        assert.equal(body.requestId, response.headers.get('x-request-id'))
      }
    }
  } finally {
    await app.close()
  }
})

/** Sends raw bytes and reads the whole answer (the server closes the connection after it). */
function rawExchange(url: string, bytes: string, trickle?: { intervalMs: number }): Promise<string> {
  const { port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1')
    let answer = ''
    let timer: NodeJS.Timeout | undefined
    socket.on('data', (chunk) => {
      answer += chunk
    })
    socket.on('close', () => {
      clearInterval(timer)
      resolve(answer)
    })
    socket.on('error', reject)
    socket.on('connect', () => {
      if (!trickle) return void socket.write(bytes)
      let index = 0
      timer = setInterval(() => {
        if (index < bytes.length && !socket.destroyed) socket.write(bytes[index++]!)
      }, trickle.intervalMs)
    })
  })
}

function envelopeOf(answer: string): { status: number; body: Record<string, unknown>; requestId?: string } {
  const [head = '', body = ''] = answer.split('\r\n\r\n')
  return {
    status: Number(head.split(' ')[1]),
    body: JSON.parse(body),
    requestId: /x-request-id: (\S+)/i.exec(head)?.[1],
  }
}

test('what the HTTP parser refuses still answers in the envelope with a requestId: 400, 431, 408', async () => {
  const app = await startApp(sqliteTarget())
  try {
    const malformed = envelopeOf(
      await rawExchange(app.url, 'GET /health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'),
    )
    assert.equal(malformed.status, 400)
    assert.equal(malformed.body.code, 'bad_request')
    assert.equal(malformed.body.requestId, malformed.requestId)

    const huge = envelopeOf(
      await rawExchange(app.url, `GET /health HTTP/1.1\r\nHost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`),
    )
    assert.equal(huge.status, 431)
    assert.equal(huge.body.code, 'headers_too_large')
    assert.ok(huge.body.requestId)

    const started = Date.now()
    const slow = envelopeOf(
      await rawExchange(
        app.url,
        'POST /api/v1/collect HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n' +
          '{'.repeat(500),
        { intervalMs: 200 },
      ),
    )
    const tookMs = Date.now() - started
    assert.equal(slow.status, 408)
    assert.equal(slow.body.code, 'request_timeout')
    assert.ok(tookMs < 13_000, `a trickled request was cut after ${tookMs} ms`)
  } finally {
    await app.close()
  }
})

test('request smuggling: Content-Length with Transfer-Encoding is refused, and the request hidden behind it never runs', async () => {
  const app = await startApp(sqliteTarget())
  try {
    for (const framing of [
      'Content-Length: 4\r\nTransfer-Encoding: chunked',
      'Transfer-Encoding: chunked\r\nContent-Length: 4',
      'Transfer-Encoding: chunked\r\nTransfer-Encoding: identity',
      'Content-Length: 4\r\nContent-Length: 60',
    ]) {
      const answer = await rawExchange(
        app.url,
        `POST /api/v1/collect HTTP/1.1\r\nHost: x\r\n${framing}\r\n\r\n0\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n`,
      )
      assert.equal(answer.split('HTTP/1.1 ').length - 1, 1, `one answer only, for: ${framing}`)
      const refused = envelopeOf(answer)
      assert.equal(refused.status, 400, framing)
      assert.equal(refused.body.code, 'bad_request')
    }
  } finally {
    await app.close()
  }
})
