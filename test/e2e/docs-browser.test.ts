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
let port: number
let browser: Browser
before(async () => {
  if (chromiumMissing) return
  mkdirSync(screenshots, { recursive: true })
  folder = mkdtempSync(join(tmpdir(), 'sika-docs-'))
  port = await freePort()
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

// The document's server is relative, so the page calls the origin it was opened at, the only one
// its Content-Security-Policy allows; PUBLIC_BASE_URL (127.0.0.1 here) plays no part.
for (const host of ['localhost', '127.0.0.1']) {
  test(`"Try it out" answers at http://${host}:<port>/docs, sending the request to that origin`, {
    skip: chromiumMissing,
  }, async () => {
    const origin = `http://${host}:${port}`
    const merchant = await app.createMerchant(`Docs reader at ${host}`)
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const apiCalls: string[] = []
    page.on('request', (request) => {
      if (request.url().includes('/api/v1/')) apiCalls.push(request.url())
    })
    try {
      await page.goto(`${origin}/docs`)
      await page.locator('.swagger-ui .info .title').waitFor()
      await page.locator('button.authorize').first().click()
      const forms = page.locator('.modal-ux .auth-container form')
      await forms.nth(0).locator('input').fill(merchant.sandbox.apiKey)
      await forms.nth(0).locator('button.authorize').click()
      await forms.nth(1).locator('input').fill(merchant.sandbox.secretKey)
      await forms.nth(1).locator('button.authorize').click()
      await page.locator('.modal-ux button.close-modal').click()

      const block = page.locator('#operations-balance-getBalance')
      await block.locator('.opblock-summary').click()
      // tryItOutEnabled: the form opens ready to execute ("Cancel" leaves it).
      const tryItOut = block.locator('button.try-out__btn')
      if ((await tryItOut.textContent())?.includes('Try it out')) await tryItOut.click()
      await block.locator('button.execute').click()
      const response = block.locator('.live-responses-table .response').first()
      await response.waitFor({ timeout: 15_000 })
      const status = (await response.locator('.response-col_status').textContent())?.trim()
      const body = (await response.locator('.response-col_description').textContent()) ?? ''
      assert.equal(status, '200', `the call answered: ${body.slice(0, 300)}`)
      assert.match(body, /"message": "Balance !"/)
      assert.deepEqual(
        apiCalls.map((url) => new URL(url).origin),
        [origin],
        'one call, to the origin of the page',
      )
    } finally {
      await page.close()
    }
  })
}
