import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { prefersJson } from '../src/http/routes/home.ts'
import { startApp, type TestApp } from './support/app.ts'

/**
 * GET / points whoever opened Sika's address to /docs and /health: a small page for a browser
 * (escaped, no script, the headers of every other page), JSON for a client that asks for it.
 */

// The page does not depend on the store: one SQLite file is enough.
let folder: string
let app: TestApp
before(async () => {
  folder = mkdtempSync(join(tmpdir(), 'sika-home-'))
  app = await startApp({ name: 'sqlite', databaseUrl: join(folder, 'sika.db') })
})
after(async () => {
  await app?.close()
  if (folder) rmSync(folder, { recursive: true, force: true })
})

const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8'
const securityHeaders = [
  'content-type',
  'x-frame-options',
  'x-content-type-options',
  'referrer-policy',
  'cache-control',
]

test('a browser gets a small page naming /docs, /dashboard and /health, as links, with no script', async () => {
  const response = await fetch(`${app.url}/`, { headers: { accept: browserAccept } })
  assert.equal(response.status, 200)
  assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8')
  const html = await response.text()
  for (const path of ['/docs', '/dashboard', '/health', '/openapi.json', '/ready'])
    assert.match(html, new RegExp(`<a href="${path}">`), `links to ${path}`)
  assert.doesNotMatch(html, /<script/i)
  assert.match(html, /<title>Sika<\/title>/)
  for (const path of ['/docs', '/health', '/openapi.json']) {
    const linked = await fetch(`${app.url}${path}`)
    assert.equal(linked.status, 200, `${path} answers`)
  }
})

test('the page carries the security headers of the other pages: no script, no framing, no sniffing', async () => {
  const home = await fetch(`${app.url}/`)
  const checkout = await fetch(`${app.url}/checkout/aaaaa-aaaaa-aaaaa-aaaaa-aaaaa`)
  assert.equal(checkout.status, 404)
  for (const name of securityHeaders) assert.equal(home.headers.get(name), checkout.headers.get(name), name)
  // Each page allows its own stylesheet by its hash; the rest of the policy is the same.
  const policy = (response: Response) =>
    String(response.headers.get('content-security-policy')).replace(/'sha256-[^']+'/, "'<style>'")
  assert.equal(policy(home), policy(checkout))
  assert.match(policy(home), /default-src 'none'/)
  assert.match(policy(home), /frame-ancestors 'none'/)
})

test('Accept: application/json answers the same pointers as JSON', async () => {
  const response = await fetch(`${app.url}/`, { headers: { accept: 'application/json' } })
  assert.equal(response.status, 200)
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/)
  assert.match(response.headers.get('vary') ?? '', /accept/i)
  const body = (await response.json()) as { name: string; description: string; links: Record<string, string> }
  assert.equal(body.name, 'Sika')
  assert.match(body.description, /\/api\/v1/)
  assert.deepEqual(body.links, {
    docs: '/docs',
    dashboard: '/dashboard',
    openapi: '/openapi.json',
    health: '/health',
    ready: '/ready',
  })
})

test('HEAD / answers as GET does; another method is a 405 naming GET', async () => {
  const head = await fetch(`${app.url}/`, { method: 'HEAD' })
  assert.equal(head.status, 200)
  const post = await fetch(`${app.url}/`, { method: 'POST' })
  assert.equal(post.status, 405)
  assert.equal(((await post.json()) as { code: string }).code, 'method_not_allowed')
  assert.match(post.headers.get('allow') ?? '', /GET/)
})

test('JSON is chosen only when Accept ranks it above HTML', () => {
  const table: [string | undefined, boolean][] = [
    [undefined, false],
    ['*/*', false],
    [browserAccept, false],
    ['application/json', true],
    ['application/json, text/plain, */*', true],
    ['text/html;q=0.5, application/json', true],
    ['application/*', true],
    ['text/html, application/json', false],
    ['application/json;q=0', false],
  ]
  for (const [accept, json] of table) assert.equal(prefersJson(accept), json, String(accept))
})
