import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser } from 'playwright-core'
import { startApp, type TestApp } from './support/app.ts'
import { chromiumMissing, launchChromium } from './support/browser.ts'
import { createSqliteTarget } from './support/stores.ts'

/**
 * GET /docs, the API's reference, opened in Chromium as a developer would: under the page's
 * Content-Security-Policy nothing is refused (a refusal is a console error), and it names no
 * placeholder address. The page reads no store: one is enough.
 */

let app: TestApp
let browser: Browser
const store = createSqliteTarget()

before(async () => {
  app = await startApp(store.target)
  if (!chromiumMissing) browser = await launchChromium()
})
after(async () => {
  await browser?.close()
  await app?.close()
  await store.cleanup()
})

test('/docs in Chromium: the reference shows, with no console error and no placeholder link', {
  skip: chromiumMissing,
}, async () => {
  const page = await browser.newPage()
  const errors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text())
  })
  page.on('pageerror', (error) => errors.push(error.message))
  await page.goto(`${app.url}/docs`, { waitUntil: 'networkidle' })
  await page.locator('.swagger-ui .info .title').waitFor()
  await page.locator('.opblock').first().waitFor()
  const html = await page.content()
  assert.ok(html.includes('Sika payment operations API'), 'the reference is shown')
  assert.ok(!html.includes('sika.example'), 'no placeholder link')
  assert.deepEqual(errors, [], 'no console error')
  const csp = (await fetch(`${app.url}/docs`)).headers.get('content-security-policy') ?? ''
  assert.match(csp, /style-src 'self'(;|$)/, 'styles from Sika only')
})
