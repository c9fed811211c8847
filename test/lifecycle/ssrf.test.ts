import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { IssuedMerchant } from '../../src/app/merchants.ts'
import { isForbiddenAddress } from '../../src/events/ssrf.ts'
import { manualClock, startApp, type TestApp } from '../support/app.ts'
import { type Receiver, startReceiver } from '../support/receiver.ts'
import { describeEachStore } from '../support/stores.ts'

// CONTRACT.md, Callbacks: live mode refuses callback and outcome URLs whose host is a loopback,
// private or link-local address (SSRF); sandbox mode allows them. No test here sends anything
// anywhere but 127.0.0.1, and no public name is resolved.

describe('isForbiddenAddress', () => {
  const forbidden = [
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback, end of the block'],
    ['10.0.0.1', 'private 10/8'],
    ['10.255.255.255', 'private 10/8, end of the block'],
    ['172.16.0.1', 'private 172.16/12'],
    ['172.31.255.255', 'private 172.16/12, end of the block'],
    ['192.168.1.1', 'private 192.168/16'],
    ['169.254.169.254', 'link-local, cloud metadata'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT, end of the block'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['::1', 'IPv6 loopback'],
    ['::', 'IPv6 unspecified'],
    ['fc00::1', 'IPv6 unique-local'],
    ['fd12:3456::1', 'IPv6 unique-local'],
    ['fe80::1', 'IPv6 link-local'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex form'],
    ['::ffff:10.1.2.3', 'IPv4-mapped private'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped link-local, hex form'],
    ['::7f00:1', 'IPv4-compatible loopback'],
    ['::127.0.0.1', 'IPv4-compatible loopback, dotted form'],
    ['::a00:1', 'IPv4-compatible private'],
    ['::8.8.8.8', 'IPv4-compatible, deprecated whatever it carries'],
    ['64:ff9b::7f00:1', 'NAT64 of loopback'],
    ['64:ff9b::127.0.0.1', 'NAT64 of loopback, dotted form'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of the cloud metadata address'],
    ['64:ff9b::c0a8:101', 'NAT64 of a private address'],
    ['64:ff9b:1::a00:1', 'local-use NAT64'],
    ['0:0:0:0:0:ffff:7f00:1', 'IPv4-mapped loopback, uncompressed'],
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'IPv6 unique-local, end of the block'],
    ['febf::1', 'IPv6 link-local, end of the block'],
    ['fe80::1%eth0', 'IPv6 link-local with a zone'],
    ['fec0::1', 'IPv6 site-local (deprecated)'],
    ['ff02::1', 'IPv6 multicast'],
    ['100::1', 'IPv6 discard-only'],
    ['2002:7f00:1::1', '6to4 of loopback'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['not-an-address', 'not an address at all'],
  ] as const
  for (const [address, why] of forbidden) {
    test(`${address} is forbidden (${why})`, () => {
      assert.equal(isForbiddenAddress(address), true)
    })
  }

  const allowed = [
    ['8.8.8.8', 'public IPv4'],
    ['1.1.1.1', 'public IPv4'],
    ['172.32.0.1', 'just past 172.16/12'],
    ['100.128.0.1', 'just past 100.64/10'],
    ['11.0.0.1', 'just past 10/8'],
    ['2001:4860:4860::8888', 'public IPv6'],
    ['::ffff:8.8.8.8', 'IPv4-mapped public'],
    ['64:ff9b::808:808', 'NAT64 of a public address'],
    ['2606:4700:4700::1111', 'public IPv6'],
  ] as const
  for (const [address, why] of allowed) {
    test(`${address} is allowed (${why})`, () => {
      assert.equal(isForbiddenAddress(address), false)
    })
  }
})

const internalUrls = [
  'http://127.0.0.1:9/x',
  'http://localhost/x',
  'http://[::1]/x',
  'http://10.0.0.1/x',
  'http://172.16.5.4/x',
  'http://192.168.0.10/x',
  'http://169.254.169.254/latest/meta-data',
  'http://0.0.0.0/x',
  'http://[::ffff:127.0.0.1]/x',
  'http://2130706433/x',
  'http://0x7f.1/x',
  'https://[fe80::1]/x',
  'http://[::7f00:1]/x',
  'http://[::127.0.0.1]/x',
  'http://[64:ff9b::7f00:1]/x',
  'http://[64:ff9b::169.254.169.254]/x',
  'http://[0:0:0:0:0:ffff:127.0.0.1]/x',
  'http://[fd00::1]/x',
  'http://[fec0::1]/x',
]

function collectBody(reference: string, urls: Record<string, string>) {
  return {
    amount: 5_000,
    channel: 'orange-money',
    country: 'CI',
    customer: { phoneNumber: '+2250700000905' },
    merchantReference: reference,
    callbackUrl: 'http://127.0.0.1:9/unused',
    ...urls,
  }
}

describeEachStore('SSRF guard at initiation', (store) => {
  // Manual workers, and runDue is never called here: the sandbox operations below aim at
  // private addresses, and nothing may ever be sent to them from a test.
  let app: TestApp
  let merchant: IssuedMerchant
  let sequence = 0
  before(async () => {
    app = await startApp(store(), {
      clock: manualClock(Date.now() * 1000),
      workers: 'manual',
      liveOperators: true,
    })
    merchant = await app.createMerchant('SSRF merchant')
  })
  after(() => app.close())

  for (const url of internalUrls) {
    test(`live mode refuses callbackUrl ${url} with forbidden_host`, async () => {
      const response = await app
        .client(merchant.live)
        .post('/api/v1/collect', collectBody(`live-${sequence++}`, { callbackUrl: url }))
      assert.equal(response.status, 422, response.text)
      assert.equal(response.body.code, 'validation_failed')
      assert.deepEqual(
        (response.body.errors as any[]).map((error) => [error.field, error.code]),
        [['callbackUrl', 'forbidden_host']],
      )
    })
  }

  // 192.0.2.10 (TEST-NET-1) passes the check without any lookup; nothing is ever sent in this suite.
  const acceptableCallback = 'http://192.0.2.10/hook'
  for (const field of ['pendingUrl', 'succeededUrl', 'failedUrl', 'canceledUrl', 'errorUrl']) {
    test(`live mode refuses ${field} on a private address`, async () => {
      const response = await app.client(merchant.live).post(
        '/api/v1/collect',
        collectBody(`live-${sequence++}`, {
          callbackUrl: acceptableCallback,
          [field]: 'http://192.168.1.20/return',
        }),
      )
      assert.equal(response.status, 422, response.text)
      assert.equal(response.body.code, 'validation_failed')
      assert.deepEqual(
        (response.body.errors as any[]).map((error) => [error.field, error.code]),
        [[field, 'forbidden_host']],
      )
    })
  }

  test('live mode refuses a transfer whose URLs are internal, and creates nothing', async () => {
    const side = {
      amount: 5_000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: '+2250700000001' },
    }
    const reference = `live-transfer-${sequence++}`
    const response = await app.client(merchant.live).post('/api/v1/transfer', {
      from: side,
      to: side,
      merchantReference: reference,
      callbackUrl: 'http://[::1]:8080/hook',
      succeededUrl: 'http://10.1.1.1/done',
    })
    assert.equal(response.status, 422, response.text)
    assert.deepEqual(
      (response.body.errors as any[]).map((error) => [error.field, error.code]),
      [
        ['callbackUrl', 'forbidden_host'],
        ['succeededUrl', 'forbidden_host'],
      ],
    )
    const list = await app.client(merchant.live).get('/api/v1/transfer', { merchantReference: reference })
    assert.equal(list.body.meta.pagination.total, 0, 'nothing was created')
  })

  test('sandbox mode accepts the same URLs, for a developer machine', async () => {
    for (const url of internalUrls) {
      const response = await app
        .client(merchant.sandbox)
        .post(
          '/api/v1/collect',
          collectBody(`sandbox-${sequence++}`, { callbackUrl: url, succeededUrl: url, canceledUrl: url }),
        )
      assert.equal(response.status, 200, `${url}: ${response.text}`)
      assert.equal(response.body.data.collect.status, 'pending')
    }
  })
})

describeEachStore('SSRF guard at delivery', (store) => {
  let app: TestApp
  let receiver: Receiver
  before(async () => {
    receiver = await startReceiver()
    app = await startApp(store(), {
      clock: manualClock(Date.now() * 1000),
      workers: 'manual',
      liveOperators: true,
    })
  })
  after(async () => {
    await app.close()
    await receiver.close()
  })

  test('a live event whose callback points at a loopback address is never sent there', async () => {
    const merchant = await app.createMerchant('Live merchant')
    // Initiation refuses internal URLs, so the stored URL is swapped afterwards, as a name
    // rebound to an internal address would be. The first URL is in TEST-NET-1 and is never called:
    // every event is pointed at the receiver before the first runDue().
    const targets = [
      receiver.url('/live-literal'),
      `http://localhost:${new URL(receiver.origin).port}/live-name`,
    ]
    const tokens: string[] = []
    for (const [index] of targets.entries()) {
      const response = await app
        .client(merchant.live)
        .post(
          '/api/v1/collect',
          collectBody(`live-delivery-${index}`, { callbackUrl: 'http://192.0.2.10/never-called' }),
        )
      assert.equal(response.status, 200, response.text)
      tokens.push(response.body.data.collect.token)
    }
    for (const [index, token] of tokens.entries()) {
      const operation = await app.db
        .selectFrom('operations')
        .select('id')
        .where('token', '=', token)
        .executeTakeFirstOrThrow()
      await app.db
        .updateTable('events')
        .set({ callback_url: targets[index]! })
        .where('operation_id', '=', operation.id)
        .execute()
    }
    const stray = await app.db
      .selectFrom('events')
      .select('callback_url')
      .where('delivery_status', '=', 'pending')
      .execute()
    assert.ok(
      stray.every((row) => targets.includes(row.callback_url!)),
      'every pending event points at the local receiver before anything runs',
    )
    assert.ok(stray.length >= 2)

    await app.workers.runDue()
    assert.equal(receiver.requests.length, 0, 'the loopback receiver was never reached in live mode')
    const client = app.client(merchant.live)
    for (const token of tokens) {
      const events = await client.get('/api/v1/events', { token, perPage: 100 })
      // Newest first: one operation's events go out in order, so only its oldest was attempted.
      const [oldest, ...later] = [...(events.body.data.events as any[])].reverse()
      for (const event of later) {
        const detailed = await client.get(`/api/v1/events/${event.id}`)
        assert.equal(
          detailed.body.data.event.deliveryAttempts.length,
          0,
          'a later event waits for the earlier one',
        )
      }
      for (const event of [oldest]) {
        const detailed = await client.get(`/api/v1/events/${event.id}`)
        const attempts = detailed.body.data.event.deliveryAttempts as any[]
        assert.equal(attempts.length, 1)
        assert.equal(attempts[0].statusCode, null)
        assert.equal(attempts[0].outcome, 'retry')
        assert.match(attempts[0].error, /public|ESSRF/i)
      }
    }
  })

  test('a sandbox event to the same loopback receiver is delivered', async () => {
    const merchant = await app.createMerchant('Sandbox merchant')
    const response = await app
      .client(merchant.sandbox)
      .post('/api/v1/collect', collectBody('sandbox-delivery', { callbackUrl: receiver.url('/sandbox') }))
    assert.equal(response.status, 200, response.text)
    await app.workers.runDue()
    assert.equal(receiver.requestsTo('/sandbox').length, 1)
  })
})
