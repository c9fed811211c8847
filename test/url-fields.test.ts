import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { IssuedMerchant } from '../src/app/merchants.ts'
import { type ApiClient, type ApiResponse, manualClock, startApp, type TestApp } from './support/app.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * CONTRACT.md, Errors (URLs http(s), up to 2048): every URL field is read at validation, in both
 * modes, by the parser callback delivery uses (WHATWG URL). A URL that passes RFC 3986 but not that
 * parser is a 422 validation_failed naming the field, and nothing is created: live mode used to
 * answer 500 (the SSRF check threw), sandbox accepted it and every delivery then failed for days.
 * Nothing here is ever sent anywhere: workers are manual and never run.
 */
const unparsable = ['http://256.0.0.1/', 'http://exa%20mple.com/', 'http://a%00b/', 'http://[v1.x]/cb']
const initiationUrlFields = [
  'callbackUrl',
  'pendingUrl',
  'succeededUrl',
  'failedUrl',
  'canceledUrl',
  'errorUrl',
] as const
// TEST-NET-1: public for the live check, resolved by nobody, never called.
const goodUrl = 'http://192.0.2.10/hook'

describeEachStore('URL fields are parsed at validation', (store) => {
  let app: TestApp
  let merchant: IssuedMerchant
  let sequence = 0
  before(async () => {
    app = await startApp(store(), {
      clock: manualClock(Date.now() * 1000),
      workers: 'manual',
      liveOperators: true,
    })
    merchant = await app.createMerchant('URL merchant')
  })
  after(() => app.close())

  const collect = (client: ApiClient, urls: Record<string, string>) =>
    client.post('/api/v1/collect', {
      amount: 5_000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: '+2250700000001' },
      merchantReference: `url-${sequence++}`,
      callbackUrl: goodUrl,
      ...urls,
    })

  function assertNamesField(response: ApiResponse, field: string, url: string) {
    assert.equal(response.status, 422, `${field} ${url}: ${response.text}`)
    assert.equal(response.body.code, 'validation_failed')
    assert.deepEqual(
      (response.body.errors as { field: string; code: string }[]).map((error) => [error.field, error.code]),
      [[field, 'invalid_format']],
    )
    assert.match(response.body.message, new RegExp(field))
    assert.match(response.body.errors[0].message, /http\(s\) URL/)
  }

  /** How the answers were spread: `24 × 422 validation_failed` (printed before any is asserted). */
  function tally(responses: readonly ApiResponse[]): string {
    const counts = new Map<string, number>()
    for (const { status, body } of responses) {
      const answer = `${status} ${body?.code ?? body?.data?.collect?.status ?? ''}`.trim()
      counts.set(answer, (counts.get(answer) ?? 0) + 1)
    }
    return [...counts].map(([answer, count]) => `${count} × ${answer}`).join(', ')
  }

  for (const mode of ['sandbox', 'live'] as const) {
    test(`${mode}: each URL field refuses each URL the WHATWG parser refuses, and creates nothing`, async (t) => {
      const client = app.client(merchant[mode])
      const before = (await client.get('/api/v1/collect')).body.meta.pagination.total
      const sent: { field: string; url: string; response: ApiResponse }[] = []
      for (const field of initiationUrlFields)
        for (const url of unparsable)
          sent.push({ field, url, response: await collect(client, { [field]: url }) })
      t.diagnostic(
        `${mode}: ${sent.length} initiations, answered ${tally(sent.map(({ response }) => response))}`,
      )
      for (const { field, url, response } of sent) assertNamesField(response, field, url)
      const after = (await client.get('/api/v1/collect')).body.meta.pagination.total
      assert.equal(after, before, 'nothing was created')
    })
  }

  test('a transfer’s URL fields, and a refund’s callbackUrl, in both modes', async () => {
    const side = {
      amount: 5_000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: '+2250700000001' },
    }
    for (const mode of ['sandbox', 'live'] as const) {
      const client = app.client(merchant[mode])
      for (const url of unparsable) {
        const transfer = await client.post('/api/v1/transfer', {
          from: side,
          to: side,
          merchantReference: `url-transfer-${sequence++}`,
          callbackUrl: goodUrl,
          succeededUrl: url,
        })
        assertNamesField(transfer, 'succeededUrl', url)
      }
    }
    const sandbox = app.client(merchant.sandbox)
    const paid = await collect(sandbox, {})
    assert.equal(paid.status, 200, paid.text)
    assert.equal(paid.body.data.collect.status, 'succeeded')
    for (const url of unparsable) {
      const refund = await sandbox.post(`/api/v1/collect/${paid.body.data.collect.token}/refund`, {
        merchantReference: `url-refund-${sequence++}`,
        callbackUrl: url,
      })
      assertNamesField(refund, 'callbackUrl', url)
    }
    const refunds = await sandbox.get('/api/v1/refund')
    assert.equal(refunds.body.meta.pagination.total, 0, 'no refund was created')
  })

  test('URLs the parser reads still pass, in both modes', async () => {
    for (const mode of ['sandbox', 'live'] as const) {
      const response = await collect(app.client(merchant[mode]), {
        succeededUrl: 'https://192.0.2.12/paid?order=42&x=%20y',
        failedUrl: 'http://192.0.2.11:8080/failed',
      })
      assert.equal(response.status, 200, `${mode}: ${response.text}`)
    }
  })
})
