import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { Browser } from 'playwright-core'
import { startApp, type TestApp } from '../support/app.ts'
import { chromiumMissing, launchChromium } from '../support/browser.ts'
import { freePort } from '../support/process.ts'

const screenshots = 'test-output/screenshots'
const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

/** "POST /api/v1/collect" for every operation of a section of the document (paths or webhooks). */
function operationsOf(section: Record<string, Record<string, unknown>> | undefined): string[] {
  return Object.entries(section ?? {}).flatMap(([path, item]) =>
    methods.filter((method) => item[method]).map((method) => `${method.toUpperCase()} ${path}`),
  )
}

// The page does not depend on the store: one SQLite file is enough.
let folder: string
let app: TestApp
let browser: Browser
before(async () => {
  if (chromiumMissing) return
  mkdirSync(screenshots, { recursive: true })
  folder = mkdtempSync(join(tmpdir(), 'sika-docs-'))
  const port = await freePort()
  app = await startApp(
    { name: 'sqlite', databaseUrl: join(folder, 'sika.db') },
    { environment: { PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } },
  )
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
  await app?.close()
  if (folder) rmSync(folder, { recursive: true, force: true })
})

test('/docs lists every operation of the document, asking no host but the app', {
  skip: chromiumMissing,
}, async () => {
  const openapi = (await (await fetch(`${app.url}/openapi.json`)).json()) as Record<string, any>
  // Swagger UI reads its copy at /docs/json: the page must show the document that /openapi.json serves.
  assert.deepEqual(await (await fetch(`${app.url}/docs/json`)).json(), openapi)
  const documented = operationsOf(openapi.paths)
  const webhooks = operationsOf(openapi.webhooks)
  assert.ok(documented.length > 0)

  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
  const requested: string[] = []
  const pageErrors: string[] = []
  page.on('request', (request) => requested.push(request.url()))
  page.on('pageerror', (error) => pageErrors.push(error.message))
  try {
    const response = await page.goto(`${app.url}/docs`)
    assert.equal(response?.status(), 200)
    await page.locator('.swagger-ui .info .title').waitFor()
    assert.match(
      (await page.locator('.swagger-ui .info .title').textContent()) ?? '',
      new RegExp(openapi.info.title),
    )
    // docExpansion "list": every tag is open, so every operation's block is rendered.
    const expected = documented.length + webhooks.length
    await page.waitForFunction(
      `document.querySelectorAll('.swagger-ui .opblock').length >= ${expected}`,
      null,
      {
        timeout: 15_000,
      },
    )
    const listed = await page.$$eval('.swagger-ui .opblock', (blocks) =>
      blocks.map((block) => {
        const method = block.querySelector('.opblock-summary-method')?.textContent ?? ''
        const path = block.querySelector('.opblock-summary-path')
        // Swagger UI breaks long paths with zero-width spaces; data-path holds the path as written.
        const text = path?.getAttribute('data-path') ?? path?.textContent ?? ''
        return `${method.trim().toUpperCase()} ${text.replace(/\u200b/g, '').trim()}`
      }),
    )
    assert.deepEqual([...listed].sort(), [...documented, ...webhooks].sort())
    assert.equal(new Set(listed).size, listed.length, 'each operation is listed once')

    const foreign = requested.filter((url) => /^https?:/.test(url) && new URL(url).origin !== app.url)
    assert.deepEqual(foreign, [], 'the page asks no other host for anything')
    assert.ok(requested.length > 1, 'the page loaded its assets from the app')
    assert.deepEqual(pageErrors, [])
    await page.screenshot({ path: `${screenshots}/docs.png`, fullPage: true })
  } finally {
    await page.close()
  }
})
