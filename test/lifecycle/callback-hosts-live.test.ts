import assert from 'node:assert/strict'
import dns from 'node:dns'
import { after, before, test } from 'node:test'
import type { IssuedMerchant } from '../../src/app/merchants.ts'
import { callbackHosts } from '../../src/events/host-resolver.ts'
import { startApp, type TestApp } from '../support/app.ts'
import { type DnsName, type DnsServer, startDnsServer } from '../support/dns-server.ts'
import { describeEachStore } from '../support/stores.ts'
import { waitFor } from '../support/wait.ts'

/**
 * CONTRACT.md, Callbacks: live mode refuses callback and outcome URLs whose host resolves to a
 * loopback, private or link-local address; no redirect is followed. The host is resolved within
 * about a second, off libuv's thread pool: a name the DNS does not answer in time is let through,
 * and delivery resolves it again and connects to public addresses only. The DNS is a server of
 * the test's own on 127.0.0.1; no event is ever sent anywhere.
 */

const names: Record<string, DnsName> = {
  'private.merchant.test': { a: ['10.0.0.7'] },
}

let server: DnsServer
before(async () => {
  server = await startDnsServer(names)
  // The process's resolver of callback hosts asks the servers `dns` is set to when it first resolves.
  dns.setServers([server.address])
})
after(() => server.close())

describeEachStore('live callback hosts and their DNS', (store) => {
  let app: TestApp
  let merchant: IssuedMerchant
  let sequence = 0
  before(async () => {
    app = await startApp(store(), { workers: 'manual', liveOperators: true })
    merchant = await app.createMerchant('DNS merchant')
  })
  after(() => app.close())

  const collect = (callbackUrl: string, by = merchant) =>
    app.client(by.live).post('/api/v1/collect', {
      amount: 5_000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: '+2250700000001' },
      merchantReference: `dns-${store().name}-${sequence++}`,
      callbackUrl,
    })

  /** `count` initiations, 10 at a time: how long they took, and their statuses. */
  async function initiations(count: number, callbackUrl: string) {
    const statuses: number[] = []
    const started = performance.now()
    for (let from = 0; from < count; from += 10) {
      const answers = await Promise.all(
        Array.from({ length: Math.min(10, count - from) }, () => collect(callbackUrl)),
      )
      statuses.push(...answers.map((answer) => answer.status))
    }
    return { statuses, elapsedMs: performance.now() - started }
  }

  test('a host rebound to a loopback address after the initiation is never called', async () => {
    // First, and a merchant of its own: the only event a pass of the workers may send in this file.
    const rebinding = await app.createMerchant('Rebinding merchant')
    const host = `rebound-${store().name}.merchant.test`
    names[host] = { a: ['203.0.113.9'], ttlS: 1 }
    const response = await collect(`https://${host}/callback`, rebinding)
    assert.equal(response.status, 200, response.text)
    const { token } = response.body.data.collect
    names[host] = { a: ['127.0.0.1'], ttlS: 1 }
    // What the resolver kept of the first answer lasts its TTL, a second; nothing is sent before
    // it answers the loopback address (in this process, the one resolver of callback hosts).
    await waitFor('the resolver to hear the new address', async () => {
      const resolution = await callbackHosts.resolve(host)
      return 'addresses' in resolution && resolution.addresses[0]?.address === '127.0.0.1'
    })
    await app.workers.runDue()
    const client = app.client(rebinding.live)
    const events = (await client.get('/api/v1/events', { token, perPage: 100 })).body.data.events as any[]
    const oldest = events.at(-1)
    const attempts = (await client.get(`/api/v1/events/${oldest.id}`)).body.data.event
      .deliveryAttempts as any[]
    assert.equal(attempts.length, 1, JSON.stringify(attempts))
    assert.equal(attempts[0].statusCode, null)
    assert.match(attempts[0].error, /non-public|ESSRF/)
  })

  // No pass of the workers follows: none of these events is ever sent.
  test('a callback host the DNS never answers costs one wait of about a second, then none', async () => {
    const host = `silent-${store().name}.merchant.test`
    names[host] = { silent: true }
    const first = await initiations(10, `https://${host}/callback`)
    assert.deepEqual(new Set(first.statuses), new Set([200]))
    assert.ok(first.elapsedMs < 3000, `the first 10 took ${Math.round(first.elapsedMs)} ms`)
    const literal = await initiations(60, 'https://203.0.113.10/callback')
    const named = await initiations(60, `https://${host}/callback`)
    console.log(
      `# 60 live collects (${store().name}): ${Math.round(literal.elapsedMs)} ms with an IP-literal callback, ` +
        `${Math.round(named.elapsedMs)} ms with a host the DNS never answers ` +
        `(the first 10 waited for it: ${Math.round(first.elapsedMs)} ms)`,
    )
    assert.deepEqual(new Set(named.statuses), new Set([200]))
    assert.ok(
      named.elapsedMs < literal.elapsedMs * 3 + 500,
      `${Math.round(named.elapsedMs)} ms against ${Math.round(literal.elapsedMs)} ms`,
    )
    const asked = server.questions.filter((question) => question.name === host).length
    assert.ok(asked <= 4, `the DNS was asked ${asked} times for 70 initiations`)
  })

  test('a callback host that resolves to a private address is refused, and nothing is made', async () => {
    const response = await collect('https://private.merchant.test/callback')
    assert.equal(response.status, 422, response.text)
    assert.deepEqual(
      (response.body.errors as any[]).map((error) => [error.field, error.code, error.message]),
      [
        [
          'callbackUrl',
          'forbidden_host',
          'callbackUrl must reach a public address: private.merchant.test resolves to 10.0.0.7, which is not a public address.',
        ],
      ],
    )
  })
})
