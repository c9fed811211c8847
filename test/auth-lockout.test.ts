import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { Agent, fetch } from 'undici'
import type { IssuedMerchant } from '../src/app/merchants.ts'
import { startApp, type TestApp } from './support/app.ts'
import { describeEachStore } from './support/stores.ts'
import { sleep } from './support/wait.ts'

/**
 * CONTRACT.md, Limits: wrong secrets are limited per (api-key, address) and per address, so that
 * knowing a merchant's api-key is not enough to lock that merchant out; TRUST_PROXY lets the
 * per-address limits see the client behind a proxy. Requests come from several loopback addresses
 * (127.0.0.x), so the server sees them as different clients.
 */

const agents = new Map<string, Agent>()
function agentFrom(address: string): Agent {
  let agent = agents.get(address)
  if (!agent) {
    agent = new Agent({ localAddress: address })
    agents.set(address, agent)
  }
  return agent
}
after(async () => {
  await Promise.all([...agents.values()].map((agent) => agent.close()))
})

async function balance(
  app: TestApp,
  keys: { apiKey: string; secretKey: string },
  from: string,
  headers: Record<string, string> = {},
): Promise<number> {
  const response = await fetch(`${app.url}/api/v1/balance`, {
    headers: { 'api-key': keys.apiKey, 'secret-key': keys.secretKey, ...headers },
    dispatcher: agentFrom(from),
    signal: AbortSignal.timeout(10_000),
  })
  await response.arrayBuffer()
  return response.status
}

const wrongSecret = `sk_test_${'x'.repeat(40)}`

function tally(statuses: readonly number[]): string {
  const counts = new Map<number, number>()
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1)
  return [...counts]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${count} × ${status}`)
    .join(', ')
}

describeEachStore('lockouts only hurt the attacker', (store) => {
  let app: TestApp
  before(async () => {
    app = await startApp(store(), { environment: { RATE_LIMIT_PER_SECOND: '20', AUTH_FAILURE_LIMIT: '10' } })
  })
  after(() => app.close())

  test('wrong secrets for a merchant’s api-key from elsewhere never refuse the merchant', async (t) => {
    const merchant = await app.createMerchant('Targeted')
    const durationMs = 5000
    const attackerAddresses = Array.from({ length: 30 }, (_, n) => `127.0.1.${10 + n}`)
    const attack: Promise<number>[] = []
    const own: Promise<number>[] = []
    const started = performance.now()
    // 30 wrong secrets a second in all (each address 1 a second: under any per-address limit), and
    // the merchant's own reads, 10 a second, from its own address.
    for (let tick = 0; performance.now() - started < durationMs; tick += 1) {
      for (let n = 0; n < 3; n += 1) {
        const from = attackerAddresses[(tick * 3 + n) % attackerAddresses.length]!
        attack.push(balance(app, { apiKey: merchant.sandbox.apiKey, secretKey: wrongSecret }, from))
      }
      own.push(balance(app, merchant.sandbox, '127.0.0.60'))
      await sleep(100)
    }
    const [attacked, served] = [await Promise.all(attack), await Promise.all(own)]
    t.diagnostic(
      `${durationMs / 1000} s: the attacker's ${attacked.length} wrong secrets answered ${tally(attacked)}; the merchant's ${served.length} reads from its own address answered ${tally(served)}`,
    )
    assert.deepEqual(new Set(served), new Set([200]), 'the merchant was never refused')
    assert.ok(
      attacked.every((status) => status === 401 || status === 429),
      'the attacker learns nothing',
    )
  })

  test('one address failing for one key is refused for it; its other keys, and the key elsewhere, are served', async () => {
    const [target, neighbour] = [await app.createMerchant(), await app.createMerchant()]
    const from = '127.0.0.70'
    for (let n = 0; n < 10; n += 1)
      assert.equal(await balance(app, { apiKey: target.sandbox.apiKey, secretKey: wrongSecret }, from), 401)
    assert.equal(
      await balance(app, target.sandbox, from),
      429,
      'the pair is spent, even for the right secret',
    )
    assert.equal(await balance(app, neighbour.sandbox, from), 200, 'another merchant behind the same address')
    assert.equal(await balance(app, target.sandbox, '127.0.0.71'), 200, 'the merchant from its own address')
  })
})

describeEachStore('TRUST_PROXY: per-address limits see the client behind the proxy', (store) => {
  let behindProxy: TestApp
  let direct: TestApp
  let merchant: IssuedMerchant
  let directMerchant: IssuedMerchant
  before(async () => {
    const environment = { RATE_LIMIT_PER_SECOND: '20', AUTH_FAILURE_LIMIT: '10' }
    behindProxy = await startApp(store(), {
      environment: { ...environment, TRUST_PROXY: '127.0.0.1, 10.0.0.0/8' },
    })
    direct = await startApp(store(), { environment })
    merchant = await behindProxy.createMerchant('Behind a proxy')
    directMerchant = await direct.createMerchant('No proxy declared')
  })
  after(async () => {
    await behindProxy.close()
    await direct.close()
  })

  const forwardedFor = (client: string) => ({ 'x-forwarded-for': client })

  test('through a trusted proxy: the attacker’s client is refused, the merchant’s client is served', async (t) => {
    const wrong = { apiKey: merchant.sandbox.apiKey, secretKey: wrongSecret }
    const attacker = []
    for (let n = 0; n < 12; n += 1)
      attacker.push(await balance(behindProxy, wrong, '127.0.0.1', forwardedFor('203.0.113.7')))
    const own = await balance(behindProxy, merchant.sandbox, '127.0.0.1', forwardedFor('198.51.100.8'))
    t.diagnostic(
      `TRUST_PROXY=127.0.0.1: the attacker's client ${tally(attacker)}; the merchant's client ${own}`,
    )
    assert.deepEqual(attacker, [...Array(10).fill(401), 429, 429])
    assert.equal(own, 200)
  })

  test('X-Forwarded-For from a peer that is not a trusted proxy is not believed', async () => {
    const wrong = { apiKey: merchant.sandbox.apiKey, secretKey: wrongSecret }
    // 127.0.0.2 claims to forward for the merchant's client address.
    for (let n = 0; n < 10; n += 1)
      assert.equal(await balance(behindProxy, wrong, '127.0.0.2', forwardedFor('198.51.100.9')), 401)
    assert.equal(await balance(behindProxy, wrong, '127.0.0.2', forwardedFor('198.51.100.10')), 429)
    assert.equal(await balance(behindProxy, merchant.sandbox, '127.0.0.1', forwardedFor('198.51.100.9')), 200)
  })

  test('without TRUST_PROXY, everyone behind the proxy is one address: the header changes nothing', async (t) => {
    const wrong = { apiKey: directMerchant.sandbox.apiKey, secretKey: wrongSecret }
    for (let n = 0; n < 10; n += 1)
      assert.equal(await balance(direct, wrong, '127.0.0.1', forwardedFor('203.0.113.7')), 401)
    const own = await balance(direct, directMerchant.sandbox, '127.0.0.1', forwardedFor('198.51.100.8'))
    t.diagnostic(`without TRUST_PROXY, the merchant behind the same proxy: ${own}`)
    assert.equal(own, 429)
  })
})
