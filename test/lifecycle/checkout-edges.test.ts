import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { setMerchantStatus } from '../../src/app/merchants.ts'
import { type ApiClient, manualClock, startApp, type TestApp } from '../support/app.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * The hosted checkout (CONTRACT.md, Sandbox; Dashboard: pages set a Content-Security-Policy):
 * an outcome URL reaches the page's CSP only as a parsed, serialised origin, so no text of the
 * merchant's can add a directive; and a suspended merchant's pages take no payment.
 */

/** The policy's directives, by name: `form-action` -> ["'self'", "https://shop.example"]. */
function directivesOf(policy: string): Map<string, string[]> {
  const directives = new Map<string, string[]>()
  for (const part of policy.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/)
    if (name) directives.set(name.toLowerCase(), sources)
  }
  return directives
}

const expectedDirectives = ['default-src', 'style-src', 'form-action', 'frame-ancestors', 'base-uri']

describeEachStore('hosted checkout: the CSP header and a suspended merchant', (store) => {
  let app: TestApp
  let sequence = 0
  before(async () => {
    app = await startApp(store(), { clock: manualClock(Date.now() * 1000), workers: 'manual' })
  })
  after(() => app.close())

  async function awaitingCustomer(client: ApiClient, urls: Record<string, string>) {
    const response = await client.post('/api/v1/collect', {
      amount: 10_000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: `+2250705${String(sequence++).padStart(3, '0')}906` },
      merchantReference: `checkout-edges-${sequence}`,
      callbackUrl: 'http://127.0.0.1:9/unused',
      ...urls,
    })
    assert.equal(response.status, 200, response.text)
    return response.body.data.collect as { token: string; status: string }
  }

  async function page(token: string) {
    const response = await fetch(`${app.url}/checkout/${token}`, { redirect: 'manual' })
    const html = await response.text()
    return {
      status: response.status,
      policy: response.headers.get('content-security-policy') ?? '',
      html,
      cookie: response.headers.get('set-cookie')?.split(';')[0],
      csrf: /name="csrf" value="([^"]+)"/.exec(html)?.[1],
    }
  }

  test('an outcome URL whose host holds CSP syntax adds no directive; a plain one is its origin', async (t) => {
    const merchant = await app.createMerchant('CSP merchant')
    const client = app.client(merchant.sandbox)
    const record = await awaitingCustomer(client, {
      succeededUrl: 'http://x;script-src*/ok',
      failedUrl: "http://a'unsafe-inline'/f",
      canceledUrl: 'https://shop.example:8443/back?order=1',
      errorUrl: 'http://[::1]:8080/error',
    })
    const shown = await page(record.token)
    assert.equal(shown.status, 200)
    t.diagnostic(`content-security-policy: ${shown.policy}`)
    const directives = directivesOf(shown.policy)
    assert.deepEqual([...directives.keys()], expectedDirectives, 'no directive added')
    assert.deepEqual(directives.get('form-action'), ["'self'", 'https://shop.example:8443'])
    assert.ok(!shown.policy.includes('script-src'), shown.policy)
    assert.deepEqual(directives.get('default-src'), ["'none'"])
  })

  test('an outcome URL stored before it was checked, that no parser reads, leaves the page whole', async () => {
    const merchant = await app.createMerchant('Old URL merchant')
    const record = await awaitingCustomer(app.client(merchant.sandbox), {
      succeededUrl: 'https://shop.example/ok',
    })
    const row = await app.db
      .selectFrom('operations')
      .select('urls')
      .where('token', '=', record.token)
      .executeTakeFirstOrThrow()
    const urls = { ...JSON.parse(row.urls), succeededUrl: 'http://exa%20mple.com;script-src */x' }
    await app.db
      .updateTable('operations')
      .set({ urls: JSON.stringify(urls) })
      .where('token', '=', record.token)
      .execute()
    const shown = await page(record.token)
    assert.equal(shown.status, 200, shown.html)
    assert.deepEqual([...directivesOf(shown.policy).keys()], expectedDirectives)
    assert.deepEqual(directivesOf(shown.policy).get('form-action'), ["'self'"])
    const paid = await fetch(`${app.url}/checkout/${record.token}/pay`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: shown.cookie ?? '' },
      body: new URLSearchParams({ csrf: shown.csrf ?? '' }).toString(),
    })
    assert.equal(paid.status, 303)
    assert.equal(paid.headers.get('location'), `/checkout/${record.token}`, 'back to the page, not a 500')
  })

  test('a suspended merchant’s checkout offers no payment, and a form posted anyway pays nothing', async (t) => {
    const merchant = await app.createMerchant('Suspended merchant')
    const client = app.client(merchant.sandbox)
    const record = await awaitingCustomer(client, { succeededUrl: 'https://shop.example/ok' })
    // The customer opened the page (and holds its form) before the merchant was suspended.
    const opened = await page(record.token)
    assert.ok(opened.csrf, 'the page offered a decision while the merchant was active')
    assert.equal(await setMerchantStatus(app.context, merchant.id, 'suspended'), true)

    const paid = await fetch(`${app.url}/checkout/${record.token}/pay`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: opened.cookie ?? '' },
      body: new URLSearchParams({ csrf: opened.csrf ?? '' }).toString(),
    })
    const answer = await paid.text()
    const { status } = await app.db
      .selectFrom('operations')
      .select('status')
      .where('token', '=', record.token)
      .executeTakeFirstOrThrow()
    t.diagnostic(`pay on a suspended merchant's checkout: answered ${paid.status}, the collect is ${status}`)
    assert.equal(paid.status, 403, answer)
    assert.equal(paid.headers.get('location'), null)
    assert.match(answer, /cannot take payments at the moment/)

    assert.equal(status, 'pending', 'nothing was paid')

    const shown = await page(record.token)
    assert.equal(shown.status, 200)
    assert.equal(shown.csrf, undefined, 'no form')
    assert.doesNotMatch(shown.html, /<form\b/)
    assert.match(shown.html, /cannot take payments at the moment/)

    assert.equal(await setMerchantStatus(app.context, merchant.id, 'active'), true)
    const again = await page(record.token)
    assert.ok(again.csrf, 'active again: the customer may decide')
  })
})
