import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, test } from 'node:test'
import type { IssuedMerchant } from '../../src/app/merchants.ts'
import { type ApiClient, manualClock, startApp, type TestApp } from '../support/app.ts'
import { transferBody } from '../support/sandbox-requests.ts'
import { describeEachStore } from '../support/stores.ts'

// CONTRACT.md, Sandbox: a 906 operation waits for the customer on /checkout/{token}, which shows
// merchant, amount, fees and channel with two buttons; the outcome sends the browser to the
// matching outcome URL with token, merchantReference and status. The redirect never settles money.
const ttlMs = 15 * 60_000
const merchantName = 'Café <Awa> & "Fils"'
const outcomeUrls = {
  pendingUrl: 'http://127.0.0.1:9/shop/pending',
  succeededUrl: 'http://127.0.0.1:9/shop/succeeded?order=42',
  failedUrl: 'http://127.0.0.1:9/shop/failed',
  canceledUrl: 'http://127.0.0.1:9/shop/canceled',
  errorUrl: 'http://127.0.0.1:9/shop/error',
}

interface Page {
  status: number
  headers: Headers
  html: string
  cookie?: string
  csrf?: string
}

describeEachStore('hosted checkout page', (store) => {
  let app: TestApp
  let clock: ReturnType<typeof manualClock>
  let merchant: IssuedMerchant
  let client: ApiClient
  let sequence = 0

  before(async () => {
    clock = manualClock(Date.now() * 1000)
    app = await startApp(store(), { clock, workers: 'manual', environment: { OPERATION_TTL: String(ttlMs) } })
    merchant = await app.createMerchant(merchantName)
    client = app.client(merchant.sandbox)
  })
  after(() => app.close())

  async function awaitingCustomer(
    kind: 'collect' | 'disbursement',
    urls: Record<string, string> = outcomeUrls,
  ) {
    sequence++
    const reference = `order #${sequence} & co`
    const response = await client.post(`/api/v1/${kind}`, {
      amount: 10_000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: `+2250705${String(sequence).padStart(3, '0')}906` },
      merchantReference: reference,
      callbackUrl: 'http://127.0.0.1:9/unused',
      ...urls,
    })
    assert.equal(response.status, 200, response.text)
    const record = response.body.data[kind]
    assert.equal(record.status, 'pending')
    assert.match(record.redirectUrl, new RegExp(`/checkout/${record.token}$`))
    return record
  }

  async function page(token: string): Promise<Page> {
    const response = await fetch(`${app.url}/checkout/${token}`, { redirect: 'manual' })
    const html = await response.text()
    const setCookie = response.headers.get('set-cookie') ?? undefined
    return {
      status: response.status,
      headers: response.headers,
      html,
      cookie: setCookie?.split(';')[0],
      csrf: /name="csrf" value="([^"]+)"/.exec(html)?.[1],
    }
  }

  async function decide(token: string, decision: 'pay' | 'decline', cookie?: string, csrf?: string) {
    const response = await fetch(`${app.url}/checkout/${token}/${decision}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(cookie ? { cookie } : {}),
      },
      body: new URLSearchParams({ csrf: csrf ?? '', decision }).toString(),
    })
    return {
      status: response.status,
      location: response.headers.get('location'),
      html: await response.text(),
    }
  }

  async function details(kind: string, token: string) {
    return (await client.get(`/api/v1/${kind}/${token}`)).body.data[kind]
  }

  async function eventTypes(token: string) {
    const response = await client.get('/api/v1/events', { token, perPage: 100 })
    return (response.body.data.events as any[]).map((event) => event.type)
  }

  const flipLast = (text: string) => `${text.slice(0, -1)}${text.endsWith('0') ? '1' : '0'}`
  const formCount = (html: string) => (html.match(/<form\b/g) ?? []).length

  test('the page shows merchant, amount, channel and state, with two forms and strict headers', async () => {
    const record = await awaitingCustomer('collect')
    const shown = await page(record.token)
    assert.equal(shown.status, 200)
    assert.match(String(shown.headers.get('content-type')), /^text\/html/)
    assert.ok(shown.html.includes('Café &#60;Awa&#62; &#38; &#34;Fils&#34;'), 'the merchant name, escaped')
    assert.ok(!shown.html.includes('<Awa>'), 'no markup from the merchant name')
    assert.ok(shown.html.includes('10,000 XOF'), 'the amount')
    // Only what the customer needs: fees the merchant bears, the phone number and the merchant's
    // own reference are not the customer's to see (issue 12).
    assert.ok(!shown.html.includes('150 XOF'), 'no fees the merchant bears')
    assert.ok(!shown.html.includes(record.customer.phoneNumber), 'no phone number')
    assert.ok(!shown.html.includes('order #'), 'no merchantReference')
    assert.ok(shown.html.includes('Orange Money'), 'the channel')
    assert.ok(shown.html.includes('Waiting for your decision'), 'the state')
    assert.equal(formCount(shown.html), 2)
    assert.ok(shown.html.includes(`action="/checkout/${record.token}/pay"`))
    assert.ok(shown.html.includes(`action="/checkout/${record.token}/decline"`))
    assert.ok(!/<script\b/i.test(shown.html), 'no script on the page')

    const csp = String(shown.headers.get('content-security-policy'))
    assert.match(csp, /frame-ancestors 'none'/)
    assert.match(csp, /default-src 'none'/)
    const scripts = /script-src([^;]*)/.exec(csp)?.[1]
    assert.ok(scripts === undefined || scripts.trim() === "'none'", `no script source is allowed: ${csp}`)
    const style = /<style>([\s\S]*?)<\/style>/.exec(shown.html)?.[1] ?? ''
    const styleHash = `'sha256-${createHash('sha256').update(style).digest('base64')}'`
    assert.ok(csp.includes(`style-src ${styleHash}`), 'the one stylesheet is allowed by its hash')
    assert.match(
      csp,
      /form-action 'self'[^;]*http:\/\/127\.0\.0\.1:9/,
      'the outcome origin may receive the redirect',
    )
    assert.equal(shown.headers.get('x-frame-options'), 'DENY')
    const setCookie = String(shown.headers.get('set-cookie'))
    assert.match(setCookie, /SameSite=Strict/)
    assert.match(setCookie, /HttpOnly/)
    assert.match(setCookie, new RegExp(`Path=/checkout/${record.token}(;|$)`))
    assert.ok(shown.csrf)
  })

  const forgedDecisions: { name: string; credentials: (own: Page, other: Page) => [string?, string?] }[] = [
    { name: 'without the cookie', credentials: (own) => [undefined, own.csrf] },
    { name: 'without the csrf field', credentials: (own) => [own.cookie, undefined] },
    { name: 'with a wrong csrf', credentials: (own) => [own.cookie, flipLast(own.csrf!)] },
    {
      name: "with another operation's cookie and csrf",
      credentials: (_own, other) => [other.cookie, other.csrf],
    },
    {
      name: "with this csrf and another page's cookie",
      credentials: (own, other) => [other.cookie, own.csrf],
    },
  ]
  for (const forged of forgedDecisions) {
    test(`a decision ${forged.name} is a 403 and changes nothing`, async () => {
      const record = await awaitingCustomer('disbursement')
      const other = await awaitingCustomer('disbursement')
      const own = await page(record.token)
      const [cookie, csrf] = forged.credentials(own, await page(other.token))
      const response = await decide(record.token, 'pay', cookie, csrf)
      assert.equal(response.status, 403)
      assert.equal(response.location, null)
      const after = await details('disbursement', record.token)
      assert.equal(after.status, 'pending')
      assert.deepEqual(await eventTypes(record.token), ['disbursement.pending'])
    })
  }

  test('pay with the cookie and csrf: 303 to succeededUrl with token, merchantReference and status; the record is succeeded', async () => {
    const record = await awaitingCustomer('collect')
    const shown = await page(record.token)
    const response = await decide(record.token, 'pay', shown.cookie, shown.csrf)
    assert.equal(response.status, 303)
    const location = new URL(String(response.location))
    assert.equal(`${location.origin}${location.pathname}`, 'http://127.0.0.1:9/shop/succeeded')
    assert.equal(location.searchParams.get('order'), '42', 'the merchant query is kept')
    assert.equal(location.searchParams.get('token'), record.token)
    assert.equal(location.searchParams.get('merchantReference'), record.merchantReference)
    assert.equal(location.searchParams.get('status'), 'succeeded')

    const after = await details('collect', record.token)
    assert.equal(after.status, 'succeeded')
    assert.deepEqual(await eventTypes(record.token), ['collect.succeeded', 'collect.pending'])
    const transactions = await client.get('/api/v1/transaction', { perPage: 100 })
    const credits = (transactions.body.data.transactions as any[]).filter(
      (entry) => entry.token === record.token,
    )
    assert.deepEqual(
      credits.map((entry) => [entry.type, entry.status, entry.amount]),
      [['cash-in', 'succeeded', record.cashAmount]],
    )

    const decided = await page(record.token)
    assert.equal(decided.status, 200)
    assert.equal(formCount(decided.html), 0, 'no forms once decided')
    assert.ok(decided.html.includes('Paid'))
    assert.equal(decided.headers.get('set-cookie'), null)

    const again = await decide(record.token, 'decline', shown.cookie, shown.csrf)
    assert.equal(again.status, 303)
    assert.equal(
      new URL(String(again.location)).searchParams.get('status'),
      'succeeded',
      'a second decision changes nothing',
    )
    assert.equal((await details('collect', record.token)).status, 'succeeded')
    assert.deepEqual(await eventTypes(record.token), ['collect.succeeded', 'collect.pending'])
  })

  test('decline: 303 to canceledUrl with status=canceled; the record is canceled and the hold released', async () => {
    const record = await awaitingCustomer('disbursement')
    const shown = await page(record.token)
    assert.ok(shown.html.includes('Accept'), 'a payout is accepted, not paid')
    const response = await decide(record.token, 'decline', shown.cookie, shown.csrf)
    assert.equal(response.status, 303)
    const location = new URL(String(response.location))
    assert.equal(`${location.origin}${location.pathname}`, outcomeUrls.canceledUrl)
    assert.equal(location.searchParams.get('status'), 'canceled')
    assert.equal(location.searchParams.get('token'), record.token)
    assert.equal(location.searchParams.get('merchantReference'), record.merchantReference)

    const after = await details('disbursement', record.token)
    assert.equal(after.status, 'canceled')
    assert.equal(after.failureReason?.code, 'customer_declined')
    assert.deepEqual(await eventTypes(record.token), ['disbursement.canceled', 'disbursement.pending'])
    const transactions = await client.get('/api/v1/transaction', { perPage: 100 })
    assert.deepEqual(
      (transactions.body.data.transactions as any[])
        .filter((entry) => entry.token === record.token)
        .map((entry) => [entry.type, entry.status]),
      [['cash-out', 'canceled']],
    )
    const decided = await page(record.token)
    assert.equal(formCount(decided.html), 0)
    assert.ok(decided.html.includes('Canceled'))
  })

  test('without outcome URLs the decision redirects back to the checkout page', async () => {
    const record = await awaitingCustomer('collect', {})
    const shown = await page(record.token)
    const response = await decide(record.token, 'pay', shown.cookie, shown.csrf)
    assert.equal(response.status, 303)
    assert.equal(new URL(String(response.location), app.url).pathname, `/checkout/${record.token}`)
    assert.equal((await details('collect', record.token)).status, 'succeeded')
  })

  test('an operation that never sent its customer here has no page: a token alone shows nothing', async () => {
    const collect = await client.post('/api/v1/collect', {
      amount: 1000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: '0700000000' },
      merchantReference: `no-page-${sequence++}`,
      callbackUrl: 'http://127.0.0.1:9/callback',
    })
    assert.equal(collect.status, 200, collect.text)
    const shown = await page(collect.body.data.collect.token)
    assert.equal(shown.status, 404)
    assert.ok(!shown.html.includes(collect.body.data.collect.merchantReference))
  })

  test('only the sandbox customer decides here: a live operation waiting on its operator cannot be paid from the page', async () => {
    const record = await awaitingCustomer('collect')
    const before = await page(record.token)
    assert.ok(before.csrf && before.cookie, 'the sandbox page offers the decision')
    // A live operator that asks the customer to act (a USSD push, its own page) leaves the side
    // awaiting the customer too; the rows say so once the mode is live.
    await app.db.updateTable('operations').set({ mode: 'live' }).where('token', '=', record.token).execute()
    const live = await page(record.token)
    assert.equal(live.status, 200)
    assert.equal(live.csrf, undefined, 'no form for a live operation')
    const decision = await decide(record.token, 'pay', before.cookie, before.csrf)
    assert.equal(decision.status, 303)
    const row = await app.db
      .selectFrom('operations')
      .select('status')
      .where('token', '=', record.token)
      .executeTakeFirstOrThrow()
    assert.equal(row.status, 'pending', 'the click settled nothing')
  })

  test('past OPERATION_TTL the page offers no buttons, and a late decision cannot pay', async () => {
    const record = await awaitingCustomer('collect')
    const shown = await page(record.token)
    assert.equal(formCount(shown.html), 2)
    clock.advance(ttlMs + 1_000)
    const expired = await page(record.token)
    assert.equal(expired.status, 200)
    assert.equal(formCount(expired.html), 0)
    assert.ok(!/<button\b/.test(expired.html), 'no buttons')
    assert.ok(expired.html.includes('Expired'))
    assert.equal(expired.headers.get('set-cookie'), null)

    const late = await decide(record.token, 'pay', shown.cookie, shown.csrf)
    assert.equal(late.status, 303)
    assert.equal(new URL(String(late.location)).searchParams.get('status'), 'canceled')
    const after = await details('collect', record.token)
    assert.equal(after.status, 'canceled')
    assert.equal(after.failureReason?.code, 'expired')

    await app.workers.runDue()
    assert.deepEqual(await eventTypes(record.token), ['collect.canceled', 'collect.pending'])
  })

  test('an operation expired by the worker shows its state and no forms', async () => {
    const record = await awaitingCustomer('collect')
    clock.advance(ttlMs + 1_000)
    await app.workers.runDue()
    assert.equal((await details('collect', record.token)).status, 'canceled')
    const shown = await page(record.token)
    assert.equal(formCount(shown.html), 0)
    assert.ok(shown.html.includes('Canceled'))
  })

  test('a transfer whose from side waits on the checkout: pay, then the to side runs', async () => {
    const created = await client.post('/api/v1/transfer', {
      ...transferBody('906', '001', 'http://127.0.0.1:9/unused'),
      succeededUrl: outcomeUrls.succeededUrl,
    })
    assert.equal(created.status, 200, created.text)
    const record = created.body.data.transfer
    assert.equal(record.status, 'pending')
    const shown = await page(record.token)
    assert.equal(formCount(shown.html), 2)
    const response = await decide(record.token, 'pay', shown.cookie, shown.csrf)
    assert.equal(response.status, 303)
    assert.equal(new URL(String(response.location)).searchParams.get('status'), 'succeeded')
    const after = await details('transfer', record.token)
    assert.equal(after.status, 'succeeded')
    assert.equal(after.from.status, 'succeeded')
    assert.equal(after.to.status, 'succeeded')
  })

  for (const token of ['aaaaa-bbbbb-ccccc-ddddd-eeeee', 'not-a-token', '..%2F..%2Fapi']) {
    test(`an unknown token (${token}) is a 404 page`, async () => {
      const shown = await page(token)
      assert.equal(shown.status, 404)
      assert.match(String(shown.headers.get('content-type')), /^text\/html/)
      assert.equal(formCount(shown.html), 0)
      const decision = await decide(token, 'pay')
      assert.equal(decision.status, 404)
    })
  }
})
