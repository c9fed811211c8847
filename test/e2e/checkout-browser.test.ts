import assert from 'node:assert/strict'
import { once } from 'node:events'
import { mkdirSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { after, before, test } from 'node:test'
import type { Browser } from 'playwright-core'
import { Webhook } from 'standardwebhooks'
import { startApp, type TestApp } from '../support/app.ts'
import { chromiumMissing, launchChromium } from '../support/browser.ts'
import { freePort } from '../support/process.ts'
import { describeEachStore } from '../support/stores.ts'
import { waitFor } from '../support/wait.ts'

const screenshots = 'test-output/screenshots'

/** The merchant's side: outcome pages for the customer's browser, and a callback receiver. */
async function startMerchantSite() {
  const callbacks: { type: string; status: string; token: string }[] = []
  let secret = ''
  const server: Server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => {
      body += chunk
    })
    request.on('end', () => {
      if (request.method === 'POST') {
        const event = new Webhook(secret).verify(body, request.headers as Record<string, string>) as any
        const record = event.data.collect
        callbacks.push({ type: event.type, status: record.status, token: record.token })
        response.end('ok')
        return
      }
      response.setHeader('content-type', 'text/html')
      response.end(
        `<!doctype html><title>Merchant</title><h1>Back at the merchant: ${request.url?.split('?')[0]}</h1>`,
      )
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  if (!address || typeof address === 'string') throw new Error('no address')
  return {
    origin: `http://127.0.0.1:${address.port}`,
    callbacks,
    useSecret: (value: string) => {
      secret = value
    },
    close: () => {
      server.closeAllConnections()
      server.close()
    },
  }
}

describeEachStore('the hosted checkout in a real browser', (store) => {
  let app: TestApp
  let site: Awaited<ReturnType<typeof startMerchantSite>>
  let browser: Browser
  before(async () => {
    if (chromiumMissing) return
    mkdirSync(screenshots, { recursive: true })
    const port = await freePort()
    app = await startApp(store(), {
      workers: 'background',
      environment: { PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` },
    })
    site = await startMerchantSite()
    browser = await launchChromium()
  })
  after(async () => {
    await browser?.close()
    site?.close()
    await app?.close()
  })

  const initiate906 = async (merchantReference: string) => {
    const merchant = await app.createMerchant('Boutique Awa')
    site.useSecret(merchant.webhookSecret)
    const response = await app.client(merchant.sandbox).post('/api/v1/collect', {
      amount: 15000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: '2250700000906', fullName: 'Awa Kone' },
      merchantReference,
      callbackUrl: `${site.origin}/sika/callback`,
      succeededUrl: `${site.origin}/paid`,
      canceledUrl: `${site.origin}/canceled`,
    })
    assert.equal(response.status, 200)
    const record = response.body.data.collect
    assert.equal(record.status, 'pending')
    return { merchant, record }
  }

  test('pay: lands on the succeededUrl with the query; the record is succeeded and the callback sent', {
    skip: chromiumMissing,
  }, async () => {
    const { merchant, record } = await initiate906('browser-pay')
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } })
    try {
      await page.goto(record.redirectUrl)
      for (const shown of ['Boutique Awa', '15,000 XOF', 'Orange Money', 'Waiting for your decision']) {
        assert.ok((await page.textContent('body'))?.includes(shown), `the page shows ${shown}`)
      }
      await page.screenshot({ path: `${screenshots}/checkout-906-${store().name}.png`, fullPage: true })
      await Promise.all([
        page.waitForURL(`${site.origin}/paid?**`),
        page.getByRole('button', { name: /^Pay/ }).click(),
      ])
      const landed = new URL(page.url())
      assert.equal(landed.pathname, '/paid')
      assert.equal(landed.searchParams.get('token'), record.token)
      assert.equal(landed.searchParams.get('merchantReference'), 'browser-pay')
      assert.equal(landed.searchParams.get('status'), 'succeeded')
    } finally {
      await page.close()
    }
    const details = await app.client(merchant.sandbox).get(`/api/v1/collect/${record.token}`)
    assert.equal(details.body.data.collect.status, 'succeeded')
    await waitFor('the collect.succeeded callback', () =>
      site.callbacks.some((event) => event.token === record.token && event.type === 'collect.succeeded'),
    )
    // Back on the page, the decision is shown and there is nothing left to press.
    const again = await browser.newPage()
    await again.goto(record.redirectUrl)
    assert.equal(await again.getByRole('button').count(), 0)
    await again.screenshot({ path: `${screenshots}/checkout-906-paid-${store().name}.png`, fullPage: true })
    await again.close()
  })

  test('decline: lands on the canceledUrl and the record is canceled', {
    skip: chromiumMissing,
  }, async () => {
    const { merchant, record } = await initiate906('browser-decline')
    const page = await browser.newPage()
    try {
      await page.goto(record.redirectUrl)
      await Promise.all([
        page.waitForURL(`${site.origin}/canceled?**`),
        page.getByRole('button', { name: 'Decline' }).click(),
      ])
      const landed = new URL(page.url())
      assert.equal(landed.searchParams.get('status'), 'canceled')
      assert.equal(landed.searchParams.get('token'), record.token)
    } finally {
      await page.close()
    }
    const details = await app.client(merchant.sandbox).get(`/api/v1/collect/${record.token}`)
    assert.equal(details.body.data.collect.status, 'canceled')
    assert.equal(details.body.data.collect.failureReason.code, 'customer_declined')
    await waitFor('the collect.canceled callback', () =>
      site.callbacks.some((event) => event.token === record.token && event.type === 'collect.canceled'),
    )
  })
})
