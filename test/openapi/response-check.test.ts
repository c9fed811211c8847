import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'
import { apiClient, startApp, type TestApp } from '../support/app.ts'
import { knownMismatches, OpenApiMismatch, responseChecks } from '../support/openapi-check.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * The hook in apiClient holds every response against the document. These tests prove it is on:
 * the real server's answers are counted, and a server that breaks the document fails the request.
 */

interface Scripted {
  status: number
  contentType: string
  body: unknown
}

/** A server publishing Sika's real document, but answering each path with whatever the test scripts. */
async function startLyingServer(documentText: string) {
  const scripts = new Map<string, Scripted>()
  const server: Server = createServer((request, response) => {
    const key = `${request.method} ${request.url}`
    if (request.url === '/openapi.json') {
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' })
      response.end(documentText)
      return
    }
    const scripted = scripts.get(key)
    if (!scripted) {
      response.writeHead(500, { 'content-type': 'text/plain' })
      response.end(`no script for ${key}`)
      return
    }
    response.writeHead(scripted.status, { 'content-type': scripted.contentType })
    response.end(typeof scripted.body === 'string' ? scripted.body : JSON.stringify(scripted.body))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    script: (method: string, path: string, answer: Scripted) => scripts.set(`${method} ${path}`, answer),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

const json = 'application/json; charset=utf-8'
const envelope = (status: number, code: string) => ({
  success: false,
  statusCode: status,
  code,
  message: 'scripted',
  requestId: 'req-1',
})
const token = 'abcde-fghij-klmno-pqrst-uvwxy'

/** Answers the document forbids: each must fail the request that received it, naming why. */
const rejected: { name: string; method: string; path: string; answer: Scripted; names: RegExp }[] = [
  {
    name: 'a success body missing required fields',
    method: 'GET',
    path: '/api/v1/channels',
    answer: { status: 200, contentType: json, body: { success: true } },
    names: /listChannels: the body does not match responses\.200[\s\S]*required property 'statusCode'/,
  },
  {
    name: 'a record whose status is not one of the five',
    method: 'GET',
    path: `/api/v1/collect/${token}`,
    answer: {
      status: 200,
      contentType: json,
      body: { success: true, statusCode: 200, message: 'Collect !', data: { collect: { status: 'done' } } },
    },
    names: /getCollect: the body does not match[\s\S]*\/data\/collect\/status/,
  },
  {
    name: 'a status the operation does not document',
    method: 'GET',
    path: '/api/v1/channels',
    answer: { status: 418, contentType: json, body: envelope(418, 'teapot') },
    names: /listChannels: status 418 is not documented/,
  },
  {
    name: 'an error code of another status than the one documented',
    method: 'POST',
    path: '/api/v1/collect',
    answer: { status: 422, contentType: json, body: envelope(422, 'not_found') },
    names: /initiateCollect: the body does not match responses\.422[\s\S]*\/code/,
  },
  {
    name: 'a documented JSON answer sent as HTML',
    method: 'GET',
    path: '/health',
    answer: { status: 200, contentType: 'text/html', body: '<p>ok</p>' },
    names: /health: responses\.200 is application\/json, but the content-type is text\/html/,
  },
  {
    name: 'a JSON error of an undocumented route outside the envelope',
    method: 'GET',
    path: '/api/v1/nowhere',
    answer: { status: 404, contentType: json, body: { error: 'Not Found' } },
    names: /does not match ErrorEnvelope[\s\S]*required property 'success'/,
  },
  {
    name: 'an envelope whose statusCode is not the HTTP status',
    method: 'DELETE',
    path: '/api/v1/collect',
    answer: { status: 405, contentType: json, body: envelope(400, 'method_not_allowed') },
    names: /statusCode 400 is not the HTTP status 405/,
  },
  {
    name: 'an envelope whose code is not in the registry',
    method: 'GET',
    path: '/nowhere',
    answer: { status: 404, contentType: json, body: envelope(404, 'no_such_thing') },
    names: /the code no_such_thing is not in the error registry/,
  },
]

/** Answers the document allows, or does not cover: each passes. */
const accepted: { name: string; method: string; path: string; answer: Scripted; outcome: string }[] = [
  {
    name: 'a documented 401 on a path with a trailing slash and a query',
    method: 'GET',
    path: '/api/v1/collect/?page=2',
    answer: { status: 401, contentType: json, body: envelope(401, 'missing_credentials') },
    outcome: 'documented',
  },
  {
    name: 'a 405 envelope on an undocumented method',
    method: 'PUT',
    path: `/api/v1/collect/${token}`,
    answer: { status: 405, contentType: json, body: envelope(405, 'method_not_allowed') },
    outcome: 'error-envelope',
  },
  {
    name: 'an HTML page of an undocumented route',
    method: 'GET',
    path: `/checkout/${token}`,
    answer: { status: 200, contentType: 'text/html', body: '<!doctype html><title>Pay</title>' },
    outcome: 'skipped',
  },
]

describeEachStore('every response is checked against the OpenAPI document', (store) => {
  let app: TestApp
  let lying: Awaited<ReturnType<typeof startLyingServer>>
  before(async () => {
    app = await startApp(store())
    lying = await startLyingServer(await (await fetch(`${app.url}/openapi.json`)).text())
  })
  after(async () => {
    await lying.close()
    await app.close()
  })

  test('the real server\u2019s answers go through the check, success and error alike', async () => {
    const merchant = await app.createMerchant()
    const before = { ...responseChecks }
    assert.equal((await app.client(merchant.sandbox).get('/api/v1/channels')).status, 200)
    assert.equal((await app.client({}).get('/api/v1/channels')).status, 401)
    assert.equal((await app.client({}).get('/api/v1/nowhere')).status, 404)
    assert.equal((await app.client({}).get('/docs')).status < 400, true)
    assert.equal(responseChecks.documented - before.documented, 2)
    assert.equal(responseChecks['error-envelope'] - before['error-envelope'], 1)
    assert.equal(responseChecks.skipped - before.skipped, 1)
  })

  for (const { name, method, path, answer, names } of rejected) {
    test(`rejected: ${name}`, async () => {
      lying.script(method, path, answer)
      await assert.rejects(apiClient(lying.url, {}).request(method, path), (error: Error) => {
        assert.ok(error instanceof OpenApiMismatch, String(error))
        assert.ok(error.message.includes(`${method} ${path} -> ${answer.status}`), error.message)
        assert.match(error.message, names)
        assert.match(error.message, /body: /)
        return true
      })
    })
  }

  for (const { name, method, path, answer, outcome } of accepted) {
    test(`accepted: ${name}`, async () => {
      lying.script(method, path, answer)
      const before = { ...responseChecks }
      const response = await apiClient(lying.url, {}).request(method, path)
      assert.equal(response.status, answer.status)
      const moved = Object.entries(responseChecks).filter(([key, count]) => count !== before[key as never])
      assert.deepEqual(
        moved.map(([key]) => key),
        [outcome],
      )
    })
  }

  test('no mismatch is let through: every answer matches its schema', () => {
    const listed = knownMismatches.map(
      (entry) => `${entry.method} ${entry.pathTemplate} ${entry.status}: ${entry.why}`,
    )
    assert.deepEqual(listed, [])
  })
})
