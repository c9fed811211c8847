import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { phoneCandidates } from '../../src/app/dashboard/search.ts'
import { type ApiClient, startApp, type TestApp } from '../support/app.ts'
import { type SignedInMember, signedInMember } from '../support/dashboard.ts'
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
  let viewer: SignedInMember

  before(async () => {
    app = await startApp(store(), { environment })
    receiver = await startReceiver()
    const merchant = await app.createMerchant('Operations merchant')
    merchantId = merchant.id
    client = app.client(merchant.sandbox)
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
})
