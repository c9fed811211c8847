import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { phoneCandidates } from '../../src/app/dashboard/search.ts'
import { type ApiClient, startApp, type TestApp } from '../support/app.ts'
import { csrfIn, type SignedInMember, signedInMember } from '../support/dashboard.ts'
import { type Receiver, startReceiver } from '../support/receiver.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * CONTRACT.md, Dashboard: the operations pages. Operations are made through the real API with the
 * merchant's sandbox keys; members of each role read and act on them over real HTTP.
 */

const environment = { RATE_LIMIT_PER_SECOND: '0', SANDBOX_DELAY_MS: '3600000', OPERATION_TTL: '2h' }
let sequence = 0
const reference = (name: string) => `${name}-${process.pid}-${sequence++}`

test('a phone number in any form gives its E.164 candidates, a reference none', () => {
  assert.ok(phoneCandidates('0700000002').includes('+2250700000002'))
  assert.deepEqual(phoneCandidates('+225 07 00 00 00 02'), ['+2250700000002'])
  assert.deepEqual(phoneCandidates('2250700000002'), ['+2250700000002'])
  assert.deepEqual(phoneCandidates('order-17'), [])
  assert.ok(phoneCandidates('0700000002').length <= 3, 'a handful of probes')
})

describeEachStore('dashboard: operations', (store) => {
  let app: TestApp
  let receiver: Receiver
  let merchantId: string
  let client: ApiClient
  let finance: SignedInMember
  let support: SignedInMember
  let viewer: SignedInMember

  before(async () => {
    app = await startApp(store(), { environment })
    receiver = await startReceiver()
    const merchant = await app.createMerchant('Operations merchant')
    merchantId = merchant.id
    client = app.client(merchant.sandbox)
    finance = await signedInMember(app, { role: 'finance', merchantId })
    support = await signedInMember(app, { role: 'support', merchantId })
    viewer = await signedInMember(app, { role: 'viewer', merchantId })
  })
  after(async () => {
    await app?.close()
    await receiver?.close()
  })

  async function collect(phone: string, extra: Record<string, unknown> = {}) {
    const merchantReference = reference('order')
    const response = await client.post('/api/v1/collect', {
      amount: 5000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: phone, fullName: 'Awa Kone' },
      merchantReference,
      callbackUrl: receiver.url('/callbacks'),
      ...extra,
    })
    assert.equal(response.status, 200, response.text)
    return response.body.data.collect as { token: string; merchantReference: string; status: string }
  }

  const page = (token: string) => `/dashboard/sandbox/operations/${token}`

  test('a search by phone in three written forms, by merchantReference and by token finds the operation', async () => {
    const made = await collect('0700000123')
    const other = await collect('0700000124')
    for (const q of ['0700000123', '+225 07 00 00 01 23', '2250700000123']) {
      const found = await viewer.browser.get(`/dashboard/sandbox/operations?q=${encodeURIComponent(q)}`)
      assert.equal(found.status, 200)
      assert.ok(found.text.includes(made.token), `${q} finds the operation`)
      assert.ok(!found.text.includes(other.token), `${q} finds only that number`)
    }
    for (const q of [made.merchantReference, made.token]) {
      const found = await viewer.browser.get(`/dashboard/sandbox/operations?q=${encodeURIComponent(q)}`)
      assert.ok(found.text.includes(made.token), `${q} finds the operation`)
      assert.match(found.text, /1 operation found/)
    }
    for (const q of [made.merchantReference.toUpperCase(), made.token.toUpperCase()]) {
      const found = await viewer.browser.get(`/dashboard/sandbox/operations?q=${encodeURIComponent(q)}`)
      assert.ok(found.text.includes(made.token), `${q} finds the operation whatever its case`)
    }
    const css = await viewer.browser.get('/dashboard/assets/dashboard.css')
    assert.doesNotMatch(css.text, /text-transform/, 'tokens and references show in their own case')
    const nothing = await viewer.browser.get('/dashboard/sandbox/operations?q=nothing-like-it')
    assert.match(nothing.text, /0 operations found/)
    const live = await viewer.browser.get(`/dashboard/live/operations?q=${made.token}`)
    assert.ok(!live.text.includes(`operations/${made.token}`), 'a sandbox operation is not in live')
  })

  test('filters, a next page, and the CSV of what the filter shows', async () => {
    const failed = await collect('0700000901')
    assert.equal(failed.status, 'failed')
    const byStatus = await viewer.browser.get('/dashboard/sandbox/operations?status=failed')
    assert.ok(byStatus.text.includes(failed.token))
    const succeeded = await viewer.browser.get('/dashboard/sandbox/operations?status=succeeded&country=CI')
    assert.ok(!succeeded.text.includes(failed.token))
    const otherCountry = await viewer.browser.get('/dashboard/sandbox/operations?country=SN')
    assert.ok(!otherCountry.text.includes(failed.token))
    const future = await viewer.browser.get('/dashboard/sandbox/operations?from=2999-01-01')
    assert.ok(!future.text.includes(failed.token))

    const tokens: string[] = []
    for (let index = 0; index < 55; index += 1) tokens.push((await collect('0700000555')).token)
    const first = await viewer.browser.get('/dashboard/sandbox/operations?kind=collect')
    const next = /href="([^"]*after=\d+\.\d+[^"]*)"/.exec(first.text)?.[1]?.replaceAll('&amp;', '&')
    assert.ok(next, 'a next page link')
    assert.match(next, /kind=collect/)
    const second = await viewer.browser.get(next)
    assert.equal(second.status, 200)
    const newest = tokens.at(-1) ?? ''
    const oldest = tokens[0] ?? ''
    assert.ok(first.text.includes(newest) && !second.text.includes(newest), 'newest first, on the first page')
    assert.ok(!first.text.includes(oldest) && second.text.includes(oldest), 'older ones on the next page')

    const csv = await viewer.browser.get('/dashboard/sandbox/operations.csv?kind=collect')
    assert.equal(csv.status, 200)
    assert.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8')
    assert.match(csv.headers.get('content-disposition') ?? '', /^attachment/)
    const lines = csv.text.trimEnd().split('\r\n')
    assert.match(lines[0] ?? '', /^initiatedAt,token,kind,status,amount/)
    for (const token of [...tokens, failed.token]) assert.ok(csv.text.includes(token))
    const failedCsv = await viewer.browser.get('/dashboard/sandbox/operations.csv?status=failed')
    assert.deepEqual(
      failedCsv.text
        .trimEnd()
        .split('\r\n')
        .slice(1)
        .map((line) => line.split(',')[1]),
      [failed.token],
    )
  })

  test('the operation page: record, timeline, ledger movements, callbacks with their attempts', async () => {
    receiver.script('/refusing', [500], 200)
    const made = await collect('0700000222', {
      metadata: { order: '17' },
      callbackUrl: receiver.url('/refusing'),
    })
    await app.workers.runDue()
    await receiver.waitFor(() => receiver.requestsTo('/refusing').length >= 1, 5000, 'a callback')
    const shown = await viewer.browser.get(page(made.token))
    assert.equal(shown.status, 200)
    assert.match(shown.text, /<h2 id="timeline">Timeline<\/h2>/)
    assert.match(shown.text, /Status: Succeeded/)
    assert.match(shown.text, /Initiated/)
    assert.match(shown.text, /<h2 id="movements">Ledger movements<\/h2>/)
    assert.match(shown.text, /Cash in/)
    assert.match(shown.text, /XOF\u00a05,000/)
    assert.match(shown.text, /collect\.succeeded/)
    assert.match(shown.text, /500 \(/, 'the attempt and its answer')
    assert.match(shown.text, /\d+ ms/)
    assert.match(shown.text, /\+2250700000222/)
    assert.match(shown.text, /Awa Kone/)
    assert.ok(!shown.text.includes('/resend'), 'a viewer sees no resend button')
    assert.ok(!shown.text.includes('/refund"'), 'a viewer sees no refund form')

    const failed = await collect('0700000901')
    const failedPage = await viewer.browser.get(page(failed.token))
    assert.match(failedPage.text, /Status: Failed/)
    assert.match(failedPage.text, /insufficient/i)

    const unknown = await viewer.browser.get(page('aaaaa-bbbbb-ccccc-ddddd-eeeee'))
    assert.equal(unknown.status, 404)
  })

  test('a finance member refunds in part, then beyond what is left and is told what is left; both audited', async () => {
    const made = await collect('0700000333')
    const shown = await finance.browser.get(page(made.token))
    assert.ok(shown.text.includes(`action="${page(made.token)}/refund"`), 'a refund form')
    const csrf = csrfIn(shown.text, `${page(made.token)}/refund`)
    const refunded = await finance.browser.post(`${page(made.token)}/refund`, {
      csrf,
      amount: '2000',
      reason: 'damaged parcel',
    })
    assert.equal(refunded.status, 303, refunded.text)
    assert.match(refunded.location ?? '', new RegExp(`^${page(made.token)}\\?refunded=`))
    const notice = await finance.browser.get(refunded.location ?? '')
    assert.match(notice.text, /Refund [a-z0-9-]{29} created/)
    assert.match(notice.text, /Left to refund<\/th><td>XOF\u00a03,000/)

    const tooMuch = await finance.browser.post(`${page(made.token)}/refund`, {
      csrf,
      amount: '3001',
      reason: 'again',
    })
    assert.equal(tooMuch.status, 422)
    assert.match(tooMuch.text, /Only XOF\u00a03,000 is left to refund/)

    const rest = await finance.browser.post(`${page(made.token)}/refund`, {
      csrf,
      amount: '',
      reason: 'the rest',
    })
    assert.equal(rest.status, 303, rest.text)
    const done = await finance.browser.get(page(made.token))
    assert.ok(!done.text.includes(`${page(made.token)}/refund"`), 'nothing left: no refund form')
    assert.match(
      done.text,
      /Refunded<\/th><td><a href="#refunds">XOF\u00a05,000<\/a>/,
      'the amount refunded leads to its refunds',
    )
    assert.match(done.text, /<h2 id="refunds">Its refunds \(2\)<\/h2>/)
    const refundLinks = [
      ...done.text.matchAll(/href="\/dashboard\/sandbox\/operations\/([a-z0-9-]{29})"/g),
    ].map((match) => match[1])

    const refunds = await app.db
      .selectFrom('operations')
      .select(['token', 'merchant_reference'])
      .where('merchant_id', '=', merchantId)
      .where('kind', '=', 'refund')
      .execute()
    const mine = refunds.filter((row) => row.merchant_reference.startsWith('dashboard-'))
    assert.equal(mine.length, 2)
    for (const refund of mine) assert.ok(refundLinks.includes(refund.token), 'each refund is linked')
    const rows = await app.db
      .selectFrom('audit_log')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .where('action', '=', 'refund.created')
      .where('target', '=', made.token)
      .orderBy('at_us')
      .execute()
    assert.equal(rows.length, 2, 'both refunds audited')
    const amountOf = (each: (typeof rows)[number]) => JSON.parse(String(each.after_json)).amount as number
    const [row, second] = [...rows].sort((a, b) => amountOf(a) - amountOf(b))
    assert.equal(row?.actor_label, finance.email)
    assert.equal(row?.actor_kind, 'member')
    assert.ok(row?.address)
    const after = JSON.parse(String(row?.after_json))
    assert.equal(after.amount, 2000)
    assert.equal(after.reason, 'damaged parcel')
    assert.equal(JSON.parse(String(second?.after_json)).amount, 3000)
    const audited = new Set(rows.map((each) => JSON.parse(String(each.after_json)).refund))
    assert.deepEqual(audited, new Set(mine.map((each) => each.token)))
  })

  test('the same refund form sent twice is one refund', async () => {
    const made = await collect('0700000334')
    const shown = await finance.browser.get(page(made.token))
    const reference = /name="reference" value="([^"]+)"/.exec(shown.text)?.[1] ?? ''
    const form = {
      csrf: csrfIn(shown.text, `${page(made.token)}/refund`),
      reference,
      amount: '1000',
      reason: 'twice',
    }
    const first = await finance.browser.post(`${page(made.token)}/refund`, form)
    const second = await finance.browser.post(`${page(made.token)}/refund`, form)
    assert.equal(first.status, 303, first.text)
    assert.equal(second.location, first.location, 'the same refund answered again')
    const refunds = await app.db
      .selectFrom('operations')
      .select('token')
      .where('refund_of_token', '=', made.token)
      .execute()
    assert.equal(refunds.length, 1)
    const audited = await app.db
      .selectFrom('audit_log')
      .select('id')
      .where('action', '=', 'refund.created')
      .where('target', '=', made.token)
      .execute()
    assert.equal(audited.length, 1, 'one refund, one audit row')
  })

  test('a support member resends a callback, is refused a refund, and sees no refund button', async () => {
    const made = await collect('0700000444')
    await app.workers.runDue()
    const shown = await support.browser.get(page(made.token))
    assert.ok(!shown.text.includes(`${page(made.token)}/refund"`), 'no refund form')
    const action = /action="([^"]*\/events\/[^"]*\/resend)"/.exec(shown.text)?.[1]
    assert.ok(action, 'a resend button')
    const eventId = /events\/([^/]+)\/resend/.exec(action)?.[1] ?? ''
    const resent = await support.browser.post(action, { csrf: csrfIn(shown.text, action) })
    assert.equal(resent.status, 303, resent.text)
    const audited = await app.db
      .selectFrom('audit_log')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .where('action', '=', 'callback.resent')
      .where('target', '=', made.token)
      .execute()
    assert.equal(audited.length, 1)
    assert.equal(JSON.parse(String(audited[0]?.after_json)).eventId, decodeURIComponent(eventId))
    const refused = await support.browser.post(`${page(made.token)}/refund`, {
      csrf: csrfIn(shown.text),
      amount: '100',
    })
    assert.equal(refused.status, 403)
  })

  test('a viewer’s forged refund POST is a 403 and no refund exists afterwards', async () => {
    const made = await collect('0700000555')
    const shown = await viewer.browser.get(page(made.token))
    const forged = await viewer.browser.post(`${page(made.token)}/refund`, {
      csrf: csrfIn(shown.text),
      amount: '100',
      reason: 'forged',
    })
    assert.equal(forged.status, 403)
    const resend = await viewer.browser.post(`${page(made.token)}/events/evt_x/resend`, {
      csrf: csrfIn(shown.text),
    })
    assert.equal(resend.status, 403)
    const details = await client.get(`/api/v1/collect/${made.token}`)
    assert.equal(details.body.data.collect.refundedAmount, 0)
  })

  test('what a customer or API client wrote is shown as text', async () => {
    const made = await collect('0700000666', {
      customer: { phoneNumber: '0700000666', fullName: '<img src=x onerror=alert(1)>' },
      metadata: { note: '<script>alert(1)</script>' },
    })
    const shown = await viewer.browser.get(page(made.token))
    assert.equal(shown.status, 200)
    assert.ok(!shown.text.includes('<img src=x'), 'no image element')
    assert.ok(!shown.text.includes('<script>'), 'no script element')
    assert.ok(
      shown.text.includes('&lt;img src=x onerror=alert(1)>') ||
        shown.text.includes('&lt;img src=x onerror=alert(1)&gt;'),
    )
    assert.ok(shown.text.includes('&lt;script>') || shown.text.includes('&lt;script&gt;'))
    const listed = await viewer.browser.get(`/dashboard/sandbox/operations?q=${made.token}`)
    assert.ok(!listed.text.includes('<img src=x'))
  })
})
