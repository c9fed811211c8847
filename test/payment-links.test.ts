import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { paymentsPerMinute } from '../src/http/rate-limit.ts'
import { startOrangeMoneySimulator } from '../src/simulators/orange-money/orange-money-simulator.ts'
import type { RunningSimulator } from '../src/simulators/simulator.ts'
import { startApp, type TestApp, testPublicBaseUrl } from './support/app.ts'
import { type LiveApp, settledRecord, startLiveApp } from './support/live.ts'
import { decideOnCheckout, openLinkForm, payOnLinkPage } from './support/payment-links.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * CONTRACT.md, Payment links, through the API and the hosted page's forms (the browser test walks
 * the pages themselves): the record, idempotency, refusals, close, and what payments add up to.
 */

const environment = { SANDBOX_DELAY_MS: '600000', OPERATION_TTL: '2h' }
let sequence = 0
const reference = (name: string) => `${name}-${process.pid}-${sequence++}`
const tokenShape = /^[a-z0-9]{5}(-[a-z0-9]{5}){4}$/

describeEachStore('payment links', (store) => {
  let app: TestApp
  before(async () => {
    app = await startApp(store(), { environment })
  })
  after(() => app.close())

  async function merchant() {
    const issued = await app.createMerchant('Boutique Awa')
    return { issued, client: app.client(issued.sandbox) }
  }

  test('a fixed link: the record as the contract shapes it, its URL and its QR code', async () => {
    const { client } = await merchant()
    const merchantReference = reference('fixed')
    const response = await client.post('/api/v1/payment-link', {
      merchantReference,
      description: 'Robe wax, taille M',
      country: 'CI',
      amount: 15000,
      metadata: { shop: 'instagram' },
    })
    assert.equal(response.status, 200, response.text)
    assert.equal(response.body.message, 'Payment link !')
    const link = response.body.data.paymentLink
    assert.match(link.token, tokenShape)
    assert.equal(link.url, `${testPublicBaseUrl}/pay/${link.token}`)
    assert.equal(link.qrCodeUrl, `${testPublicBaseUrl}/pay/${link.token}/qr.svg`)
    assert.equal(link.status, 'active')
    assert.equal(link.amount, 15000)
    assert.equal(link.amountRange, undefined)
    assert.equal(link.currency, 'XOF')
    assert.equal(link.reusable, false)
    assert.equal(link.paymentCount, 0)
    assert.equal(link.collectedAmount, 0)
    assert.equal(link.merchantReference, merchantReference)
    assert.deepEqual(link.metadata, { shop: 'instagram' })
    assert.ok(link.channels.includes('orange-money') && link.channels.includes('wave'), link.channels.join())
    const lifetimeDays = (Date.parse(link.expiresAt) - Date.parse(link.initiationDate)) / 86_400_000
    assert.ok(Math.abs(lifetimeDays - 7) < 0.001, `expires after ${lifetimeDays} days by default`)
    const qr = await fetch(`${app.url}/pay/${link.token}/qr.svg`)
    assert.equal(qr.status, 200)
    assert.match(qr.headers.get('content-type') ?? '', /^image\/svg\+xml/)
    assert.match(await qr.text(), /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/)
    const read = await client.get(`/api/v1/payment-link/${link.token}`)
    assert.deepEqual(read.body.data.paymentLink, link)
  })

  test('the page: what was supplied is text, never markup; the language follows the browser, and the switch', async () => {
    const { client } = await merchant()
    const hostile = '<script>alert(1)</script>'
    const created = await client.post('/api/v1/payment-link', {
      merchantReference: reference('xss'),
      description: hostile,
      country: 'CI',
      amount: 1000,
    })
    const { token } = created.body.data.paymentLink
    const english = await fetch(`${app.url}/pay/${token}`, {
      headers: { 'accept-language': 'en-GB,en;q=0.8' },
    })
    const html = await english.text()
    // Preact escapes < (and & and quotes): no tag can open, so > may stay as it is.
    assert.ok(!html.includes(hostile) && html.includes('&lt;script>alert(1)&lt;/script>'), html)
    assert.doesNotMatch(html, /<script/i)
    assert.match(html, /<html lang="en">/)
    assert.match(
      english.headers.get('content-security-policy') ?? '',
      /^default-src 'none'; style-src 'self'/,
    )
    const french = await (
      await fetch(`${app.url}/pay/${token}`, { headers: { 'accept-language': 'fr-CI,fr;q=0.9' } })
    ).text()
    assert.match(french, /<html lang="fr">/)
    assert.match(french, /Payer 1\u202f000 XOF|Payer 1 000 XOF/)
    const switched = await fetch(`${app.url}/pay/${token}?lang=en`, { headers: { 'accept-language': 'fr' } })
    assert.match(await switched.text(), /<html lang="en">/)
    assert.match(switched.headers.getSetCookie().join(), /sika_pay_lang=en; Path=\/pay/)
  })

  test('the same merchantReference: the same body is the same link, another body a 409 naming it', async () => {
    const { client } = await merchant()
    const body = {
      merchantReference: reference('replay'),
      description: 'Cours de danse',
      country: 'SN',
      amountRange: { min: 1000, max: 5000 },
      reusable: true,
    }
    const first = await client.post('/api/v1/payment-link', body)
    const again = await client.post('/api/v1/payment-link', body)
    assert.equal(again.status, 200)
    assert.equal(again.body.data.paymentLink.token, first.body.data.paymentLink.token)
    assert.deepEqual(again.body.data.paymentLink.amountRange, { min: 1000, max: 5000 })
    const other = await client.post('/api/v1/payment-link', { ...body, description: 'Autre chose' })
    assert.equal(other.status, 409, other.text)
    assert.equal(other.body.code, 'duplicate_merchant_reference')
    assert.equal(other.body.token, first.body.data.paymentLink.token)
    assert.equal(
      other.body.message,
      `The merchantReference ${body.merchantReference} already names payment link ${first.body.data.paymentLink.token}, made with another body; use a new merchantReference.`,
    )
    const listed = await client.get('/api/v1/payment-link')
    assert.equal(listed.body.data.paymentLinks.length, 1, 'one link was created')
  })

  test('refusals name the field and create nothing', async () => {
    const { client } = await merchant()
    const base = { merchantReference: reference('bad'), description: 'x', country: 'CI' }
    const cases: [unknown, number, string, string?][] = [
      [{ ...base }, 422, 'validation_failed', 'amount'],
      [{ ...base, amount: 1000, amountRange: { min: 1, max: 2 } }, 422, 'validation_failed', 'amount'],
      [{ ...base, amountRange: { min: 5000, max: 1000 } }, 422, 'validation_failed', 'amountRange.max'],
      [
        { ...base, amount: 1000, expiresAt: new Date(Date.now() + 91 * 86_400_000).toISOString() },
        422,
        'validation_failed',
        'expiresAt',
      ],
      [{ ...base, amount: 1000, expiresAt: '2020-01-01T00:00:00Z' }, 422, 'validation_failed', 'expiresAt'],
      [{ ...base, amount: 1000, channels: ['no-such-channel'] }, 422, 'channel_unavailable', 'channels[0]'],
      [{ ...base, amount: 1000, country: 'FR' }, 422, 'validation_failed', 'country'],
      [{ ...base, amount: 10 ** 11 }, 422, 'amount_out_of_range'],
      [{ ...base, amount: 1000, description: '' }, 422, 'validation_failed', 'description'],
      [{ ...base, amount: 1000, color: 'red' }, 422, 'validation_failed', 'color'],
    ]
    for (const [body, status, code, field] of cases) {
      const response = await client.post('/api/v1/payment-link', body)
      assert.equal(response.status, status, `${JSON.stringify(body)}: ${response.text}`)
      assert.equal(response.body.code, code, response.text)
      if (field)
        assert.ok(
          response.body.errors?.some((error: { field: string }) => error.field === field),
          response.text,
        )
    }
    const listed = await client.get('/api/v1/payment-link')
    assert.equal(listed.body.meta.pagination.total, 0)
  })

  test('list, details and close: another merchant’s token is a 404; closing twice is the same; a completed link is a 422', async () => {
    const { client } = await merchant()
    const other = await merchant()
    const made = []
    for (let index = 0; index < 3; index += 1) {
      const response = await client.post('/api/v1/payment-link', {
        merchantReference: reference('list'),
        description: `Link ${index}`,
        country: 'CI',
        amount: 1000 + index,
      })
      made.push(response.body.data.paymentLink.token)
    }
    const page = await client.get('/api/v1/payment-link', { perPage: 2 })
    assert.equal(page.body.message, 'Payment links !')
    assert.deepEqual(
      page.body.data.paymentLinks.map((link: { token: string }) => link.token),
      [made[2], made[1]],
    )
    assert.equal(page.body.meta.pagination.total, 3)
    assert.equal((await other.client.get(`/api/v1/payment-link/${made[0]}`)).status, 404)
    assert.equal((await other.client.post(`/api/v1/payment-link/${made[0]}/close`)).status, 404)
    const closed = await client.post(`/api/v1/payment-link/${made[0]}/close`)
    assert.equal(closed.status, 200, closed.text)
    assert.equal(closed.body.data.paymentLink.status, 'closed')
    const again = await client.post(`/api/v1/payment-link/${made[0]}/close`)
    assert.deepEqual(again.body.data.paymentLink, closed.body.data.paymentLink)
    // A single-use link paid once is completed: there is nothing to close.
    const paid = await payOnLinkPage(app.url, made[1]!, {
      channel: 'orange-money',
      phoneNumber: '0700000123',
    })
    assert.equal(paid.status, 303, paid.text)
    const completed = await client.get(`/api/v1/payment-link/${made[1]}`)
    assert.equal(completed.body.data.paymentLink.status, 'completed')
    assert.equal(completed.body.data.paymentLink.paymentCount, 1)
    const refused = await client.post(`/api/v1/payment-link/${made[1]}/close`)
    assert.equal(refused.status, 422, refused.text)
    assert.equal(refused.body.code, 'link_unavailable')
  })

  test('a merchantReference of 64 characters: accepted, and each collect’s reference stays within 64', async () => {
    const { client } = await merchant()
    // Two references alike in their first 60 characters: their collects' references stay apart.
    const stem = `${reference('long')}-`.padEnd(60, 'é')
    const tokens = []
    for (const end of ['wxyz', 'WXYZ']) {
      const created = await client.post('/api/v1/payment-link', {
        merchantReference: `${stem}${end}`,
        description: 'Tissu',
        country: 'CI',
        amount: 1000,
      })
      assert.equal(created.status, 200, created.text)
      assert.equal(created.body.data.paymentLink.merchantReference, `${stem}${end}`)
      const { token } = created.body.data.paymentLink
      const paid = await payOnLinkPage(app.url, token, { channel: 'orange-money', phoneNumber: '0700000123' })
      assert.equal(paid.status, 303, paid.text)
      tokens.push(token)
    }
    const references = []
    for (const token of tokens) {
      const [collect] = (await client.get('/api/v1/collect', { paymentLink: token })).body.data.collects
      assert.equal(collect.status, 'succeeded')
      references.push(collect.merchantReference as string)
    }
    for (const collectReference of references) {
      assert.ok([...collectReference].length <= 64, collectReference)
      assert.ok(collectReference.startsWith([...stem].slice(0, 45).join('')), collectReference)
      assert.match(collectReference, /-[0-9a-f]{10}-1$/)
    }
    assert.notEqual(references[0], references[1])
    const tooLong = await client.post('/api/v1/payment-link', {
      merchantReference: `${stem}wxyz5`,
      description: 'Tissu',
      country: 'CI',
      amount: 1000,
    })
    assert.equal(tooLong.status, 422, tooLong.text)
    assert.equal(tooLong.body.errors[0].field, 'merchantReference')
  })

  test('the list filters on status, merchantReference, from and to; a bad value is a 422; page URLs keep the filters', async () => {
    const { client } = await merchant()
    const create = async (name: string, extra: Record<string, unknown> = {}) => {
      const response = await client.post('/api/v1/payment-link', {
        merchantReference: reference(name),
        description: name,
        country: 'CI',
        amount: 1000,
        ...extra,
      })
      assert.equal(response.status, 200, response.text)
      return response.body.data.paymentLink as {
        token: string
        merchantReference: string
        initiationDate: string
        expiresAt: string
      }
    }
    const expiring = await create('expiring', { expiresAt: new Date(Date.now() + 1500).toISOString() })
    const older = await create('older', { reusable: true })
    const closed = await create('closed')
    const completed = await create('completed')
    const newer = await create('newer')
    assert.equal((await client.post(`/api/v1/payment-link/${closed.token}/close`)).status, 200)
    const paid = await payOnLinkPage(app.url, completed.token, {
      channel: 'orange-money',
      phoneNumber: '0700000123',
    })
    assert.equal(paid.status, 303, paid.text)
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, Date.parse(expiring.expiresAt) + 100 - Date.now())),
    )
    const tokensOf = async (query: Record<string, string | number>) => {
      const response = await client.get('/api/v1/payment-link', query)
      assert.equal(response.status, 200, response.text)
      return response.body.data.paymentLinks.map((link: { token: string }) => link.token)
    }
    assert.deepEqual(await tokensOf({ status: 'active' }), [newer.token, older.token])
    assert.deepEqual(await tokensOf({ status: 'closed' }), [closed.token])
    assert.deepEqual(await tokensOf({ status: 'completed' }), [completed.token])
    assert.deepEqual(await tokensOf({ status: 'expired' }), [expiring.token])
    assert.deepEqual(await tokensOf({ merchantReference: older.merchantReference }), [older.token])
    assert.deepEqual(await tokensOf({ from: older.initiationDate, to: completed.initiationDate }), [
      closed.token,
      older.token,
    ])
    const first = await client.get('/api/v1/payment-link', { status: 'active', perPage: 1 })
    assert.equal(first.body.meta.pagination.total, 2)
    const next = first.body.meta.pagination.nextPageUrl as string
    assert.equal(next, `${testPublicBaseUrl}/api/v1/payment-link?page=2&perPage=1&status=active`)
    const second = await client.get(next.slice(testPublicBaseUrl.length))
    assert.deepEqual(
      second.body.data.paymentLinks.map((link: { token: string }) => link.token),
      [older.token],
    )
    const badStatus = await client.get('/api/v1/payment-link', { status: 'paid' })
    assert.equal(badStatus.status, 422, badStatus.text)
    assert.equal(badStatus.body.errors[0].field, 'status')
    assert.match(badStatus.body.errors[0].message, /active, completed, expired, closed/)
    const badDate = await client.get('/api/v1/payment-link', { from: 'yesterday' })
    assert.equal(badDate.status, 422, badDate.text)
    assert.equal(badDate.body.errors[0].field, 'from')
  })

  test('close takes no body, an empty JSON body or {}; any field in it is a 422 unknown_field', async () => {
    const { client } = await merchant()
    const tokens = []
    for (let index = 0; index < 2; index += 1) {
      const created = await client.post('/api/v1/payment-link', {
        merchantReference: reference('close-body'),
        description: 'Bougie',
        country: 'CI',
        amount: 1000,
      })
      tokens.push(created.body.data.paymentLink.token as string)
    }
    const json = { 'content-type': 'application/json' }
    const withField = await client.request('POST', `/api/v1/payment-link/${tokens[0]}/close`, {
      body: JSON.stringify({ reason: 'sold elsewhere' }),
      headers: json,
    })
    assert.equal(withField.status, 422, withField.text)
    assert.equal(withField.body.errors[0].field, 'reason')
    assert.equal(withField.body.errors[0].code, 'unknown_field')
    const unchanged = await client.get(`/api/v1/payment-link/${tokens[0]}`)
    assert.equal(unchanged.body.data.paymentLink.status, 'active', 'a refusal changes nothing')
    const empty = await client.request('POST', `/api/v1/payment-link/${tokens[0]}/close`, {
      body: '',
      headers: json,
    })
    assert.equal(empty.status, 200, empty.text)
    assert.equal(empty.body.data.paymentLink.status, 'closed')
    const braces = await client.post(`/api/v1/payment-link/${tokens[1]}/close`, {})
    assert.equal(braces.status, 200, braces.text)
    assert.equal(braces.body.data.paymentLink.status, 'closed')
    const malformed = await client.request('POST', `/api/v1/payment-link/${tokens[1]}/close`, {
      body: '{',
      headers: json,
    })
    assert.equal(malformed.status, 400, malformed.text)
    assert.equal(malformed.body.code, 'invalid_json')
  })

  test('a reusable link counts its succeeded payments and their amounts; its collects carry paymentLink, its callbackUrl, its metadata and numbered references', async () => {
    const { client } = await merchant()
    const merchantReference = reference('tips')
    const created = await client.post('/api/v1/payment-link', {
      merchantReference,
      description: 'Pourboire',
      country: 'CI',
      amountRange: { min: 500, max: 20000 },
      reusable: true,
      callbackUrl: 'http://127.0.0.1:9/hook',
      metadata: { table: '12' },
    })
    const { token } = created.body.data.paymentLink
    for (const [amount, phone] of [
      ['1500', '0700000123'],
      ['2 500', '0700000124'],
      ['900', '0700000901'],
    ] as const) {
      const answer = await payOnLinkPage(app.url, token, {
        channel: 'orange-money',
        phoneNumber: phone,
        amount,
      })
      assert.equal(answer.status, 303, answer.text)
    }
    const link = (await client.get(`/api/v1/payment-link/${token}`)).body.data.paymentLink
    assert.equal(link.status, 'active')
    assert.equal(link.paymentCount, 2, 'the failed payment (901) does not count')
    assert.equal(link.collectedAmount, 4000)
    const collects = await client.get('/api/v1/collect', { paymentLink: token })
    assert.equal(collects.status, 200, collects.text)
    const records = collects.body.data.collects
    assert.equal(records.length, 3)
    assert.deepEqual(
      records.map((record: { merchantReference: string }) => record.merchantReference),
      [`${merchantReference}-3`, `${merchantReference}-2`, `${merchantReference}-1`],
    )
    for (const record of records) {
      assert.equal(record.paymentLink, token)
      assert.deepEqual(record.metadata, { table: '12' })
    }
    assert.deepEqual(
      records.map((record: { status: string }) => record.status),
      ['failed', 'succeeded', 'succeeded'],
    )
    const events = await app.db
      .selectFrom('events')
      .select(['callback_url'])
      .where(
        'operation_id',
        'in',
        app.db.selectFrom('operations').select('id').where('payment_link', '=', token),
      )
      .execute()
    assert.ok(events.length >= 3 && events.every((event) => event.callback_url === 'http://127.0.0.1:9/hook'))
    const unrelated = await client.get('/api/v1/collect', { paymentLink: 'aaaaa-aaaaa-aaaaa-aaaaa-aaaaa' })
    assert.equal(unrelated.body.data.collects.length, 0)
  })

  test('a single-use link: a second payment while the first is pending is refused, creates nothing, and the first then completes the link', async () => {
    const { client } = await merchant()
    const created = await client.post('/api/v1/payment-link', {
      merchantReference: reference('once'),
      description: 'Sac',
      country: 'CI',
      amount: 7000,
    })
    const { token } = created.body.data.paymentLink
    // 906: the sandbox's checkout page decides, so the first payment stays pending until then.
    const first = await payOnLinkPage(app.url, token, { channel: 'orange-money', phoneNumber: '0700000906' })
    assert.equal(first.status, 303, first.text)
    const done = new URL(first.headers.get('location') ?? '', app.url)
    assert.equal(done.pathname, `/pay/${token}/done`)
    const collectToken = done.searchParams.get('token')!
    // A form opened while the first payment is pending, sent once it has succeeded, below.
    const late = await openLinkForm(app.url, token)
    const second = await payOnLinkPage(app.url, token, { channel: 'orange-money', phoneNumber: '0700000123' })
    assert.equal(second.status, 409, second.text)
    assert.match(second.text, /already under way/)
    assert.equal((await client.get('/api/v1/collect', { paymentLink: token })).body.data.collects.length, 1)
    const decided = await decideOnCheckout(app.url, `/checkout/${collectToken}`, 'pay')
    assert.equal(decided.status, 303)
    assert.match(
      decided.headers.get('location') ?? '',
      new RegExp(`/pay/${token}/done\\?token=${collectToken}&`),
    )
    const link = (await client.get(`/api/v1/payment-link/${token}`)).body.data.paymentLink
    assert.equal(link.status, 'completed')
    assert.equal(link.paymentCount, 1)
    const third = await late.submit({ channel: 'orange-money', phoneNumber: '0700000123' })
    assert.equal(third.status, 422, third.text)
    assert.match(third.text, /already been paid/)
    const page = await (await fetch(`${app.url}/pay/${token}`)).text()
    assert.match(page, /already been paid/)
    assert.doesNotMatch(page, /<form/)
    assert.equal((await client.get('/api/v1/collect', { paymentLink: token })).body.data.collects.length, 1)
  })
  test('the pending page follows its payment with no delayed refresh: meta refresh 0 to itself with wait=1, held until the payment changes or 5 s pass', async () => {
    const { client } = await merchant()
    const created = await client.post('/api/v1/payment-link', {
      merchantReference: reference('held'),
      description: 'Foulard',
      country: 'CI',
      amount: 4000,
    })
    const { token } = created.body.data.paymentLink
    // 906: pending until the sandbox's checkout page decides.
    const first = await payOnLinkPage(app.url, token, { channel: 'orange-money', phoneNumber: '0700000906' })
    const done = new URL(first.headers.get('location') ?? '', app.url)
    const collectToken = done.searchParams.get('token')!
    done.searchParams.delete('next')
    const pending = await (await fetch(done)).text()
    const refresh = /<meta http-equiv="refresh" content="0; url=([^"]+)"\/>/.exec(pending)
    assert.ok(refresh, pending)
    const held = new URL(refresh[1]!.replaceAll('&amp;', '&'), app.url)
    assert.equal(held.pathname, `/pay/${token}/done`)
    assert.equal(held.searchParams.get('token'), collectToken)
    assert.equal(held.searchParams.get('wait'), '1')
    assert.match(pending, /href="[^"]*follow=off"/, 'a link turns it off (WCAG 2.2.1)')
    let started = performance.now()
    const still = await fetch(held)
    const heldMs = performance.now() - started
    assert.ok(heldMs >= 4_500 && heldMs < 7_000, `held ${heldMs} ms while nothing changed`)
    const again = await still.text()
    assert.ok(again.includes(refresh[0]), 'then the same page, which asks again')
    assert.doesNotMatch(again, /href="[^"]*wait=1[^"]*"/, 'its links hold nothing')
    const off = new URL(held)
    off.searchParams.set('follow', 'off')
    started = performance.now()
    const notFollowing = await (await fetch(off)).text()
    assert.ok(performance.now() - started < 2_000, 'follow=off is never held')
    assert.doesNotMatch(notFollowing, /http-equiv="refresh"/)
    started = performance.now()
    const answer = fetch(held)
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    assert.equal((await decideOnCheckout(app.url, `/checkout/${collectToken}`, 'pay')).status, 303)
    const paid = await answer
    const answeredMs = performance.now() - started
    assert.ok(answeredMs < 3_000, `answered ${answeredMs} ms after the wait began, once the payment changed`)
    const shown = await paid.text()
    assert.match(shown, /Payment received/)
    assert.doesNotMatch(shown, /http-equiv="refresh"/)
  })

  test('a held page reads the payment every 500 ms, holding nothing between reads, and stops when the customer leaves', async () => {
    const { client } = await merchant()
    const created = await client.post('/api/v1/payment-link', {
      merchantReference: reference('left'),
      description: 'Pagne',
      country: 'CI',
      amount: 2500,
    })
    const { token } = created.body.data.paymentLink
    const first = await payOnLinkPage(app.url, token, { channel: 'orange-money', phoneNumber: '0700000906' })
    const held = new URL(first.headers.get('location') ?? '', app.url)
    const collectToken = held.searchParams.get('token')!
    held.searchParams.delete('next')
    held.searchParams.set('wait', '1')
    const operations = app.context.store.operations
    const read = operations.findAnyByToken
    let reads = 0
    operations.findAnyByToken = (asked) => {
      if (asked === collectToken) reads += 1
      return read(asked)
    }
    try {
      const leaving = new AbortController()
      const answer = fetch(held, { signal: leaving.signal }).catch((error: Error) => error)
      await new Promise((resolve) => setTimeout(resolve, 1_700))
      leaving.abort()
      assert.ok((await answer) instanceof Error)
      const whileWaiting = reads
      assert.ok(whileWaiting >= 3 && whileWaiting <= 5, `${whileWaiting} reads in 1.7 s`)
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      assert.ok(reads <= whileWaiting + 1, `${reads - whileWaiting} reads after the customer left`)
    } finally {
      operations.findAnyByToken = read
    }
  })

  test('a single-use link paid by eight customers at once: one payment is started, the others are refused and create nothing', async () => {
    const { client } = await merchant()
    const created = await client.post('/api/v1/payment-link', {
      merchantReference: reference('race'),
      description: 'Dernier sac',
      country: 'CI',
      amount: 7000,
    })
    const { token } = created.body.data.paymentLink
    const forms = await Promise.all(Array.from({ length: 8 }, () => openLinkForm(app.url, token)))
    // 900: pending for SANDBOX_DELAY_MS, then succeeded; none ends while the others try.
    const answers = await Promise.all(
      forms.map((form) => form.submit({ channel: 'orange-money', phoneNumber: '0700000900' })),
    )
    const statuses = answers.map((answer) => answer.status).sort()
    assert.deepEqual(statuses, [303, 409, 409, 409, 409, 409, 409, 409])
    const collects = (await client.get('/api/v1/collect', { paymentLink: token })).body.data.collects
    assert.equal(collects.length, 1)
    assert.equal(collects[0].status, 'pending')
  })
})

describe('payments started on link pages are limited per address', () => {
  let app: TestApp
  before(async () => {
    app = await startApp(
      { name: 'sqlite', databaseUrl: ':memory:' },
      { environment: { RATE_LIMIT_PER_SECOND: '100' } },
    )
  })
  after(() => app.close())

  test(`at most ${paymentsPerMinute} a minute from one address: then a 429 with Retry-After, and nothing created`, async () => {
    const issued = await app.createMerchant('Boutique Awa')
    const client = app.client(issued.sandbox)
    const created = await client.post('/api/v1/payment-link', {
      merchantReference: reference('limited'),
      description: 'Pagne',
      country: 'CI',
      amount: 3000,
      reusable: true,
    })
    const { token } = created.body.data.paymentLink
    const form = await openLinkForm(app.url, token)
    // A number the page refuses: each try counts, and none creates a payment.
    const tries = []
    for (let attempt = 0; attempt <= paymentsPerMinute; attempt += 1)
      tries.push(await form.submit({ channel: 'orange-money', phoneNumber: '12' }))
    assert.deepEqual(
      tries.map((answer) => answer.status),
      [...Array(paymentsPerMinute).fill(422), 429],
    )
    assert.ok(Number(tries.at(-1)!.headers.get('retry-after')) > 0)
    assert.equal((await fetch(`${app.url}/pay/${token}`)).status, 200, 'the page itself is still shown')
    assert.equal((await client.get('/api/v1/collect', { paymentLink: token })).body.data.collects.length, 0)
  })
})

describeEachStore('a live payment link through Orange Money’s own payment page', (store) => {
  let orange: RunningSimulator
  let running: LiveApp
  before(async () => {
    running = await startLiveApp(store(), async () => {
      orange = await startOrangeMoneySimulator({ settleDelayMs: 100 })
      return [{ simulator: orange, channel: 'orange-money', countries: ['CI'] }]
    })
  })
  after(() => running?.close())

  test('the customer goes on to the operator’s page, pays there, and the link’s page shows the payment succeeded', async () => {
    const created = await running.live.post('/api/v1/payment-link', {
      merchantReference: reference('orange'),
      description: 'Panier',
      country: 'CI',
      amount: 5000,
    })
    assert.equal(created.status, 200, created.text)
    const link = created.body.data.paymentLink
    assert.deepEqual(link.channels, ['orange-money'], 'live mode offers only the connected channels')
    const answer = await payOnLinkPage(running.app.url, link.token, {
      channel: 'orange-money',
      phoneNumber: '0700000123',
    })
    assert.equal(answer.status, 303, answer.text)
    const done = new URL(answer.headers.get('location') ?? '', running.app.url)
    const collectToken = done.searchParams.get('token')!
    const record = (await running.live.get(`/api/v1/collect/${collectToken}`)).body.data.collect
    assert.equal(record.status, 'pending')
    assert.equal(record.paymentLink, link.token)
    assert.ok(record.redirectUrl?.startsWith(orange.url), record.redirectUrl)
    const next = await (await fetch(done)).text()
    const escaped = record.redirectUrl.replaceAll('&', '&amp;')
    assert.ok(next.includes(`<meta http-equiv="refresh" content="0; url=${escaped}"/>`), next)
    assert.ok(next.includes(`href="${escaped}"`), 'and a button to it')
    const paid = await fetch(`${orange.url}/_simulator/payments/${collectToken}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ msisdn: '0700000123' }),
    })
    assert.ok(paid.ok, await paid.text())
    assert.equal((await settledRecord(running, 'collect', collectToken)).status, 'succeeded')
    done.searchParams.delete('next')
    const shown = await (await fetch(done)).text()
    assert.match(shown, /Payment received/)
    const read = (await running.live.get(`/api/v1/payment-link/${link.token}`)).body.data.paymentLink
    assert.equal(read.status, 'completed')
    assert.equal(read.collectedAmount, 5000)
  })
})
