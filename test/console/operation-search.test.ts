import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { searchAllOperations } from '../../src/app/console/operation-search.ts'
import type { Operation } from '../../src/domain/operation.ts'
import { type ApiClient, startApp, type TestApp } from '../support/app.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * CONTRACT.md, Platform console (operations): one search across all merchants, taking a phone
 * number in any written form, a token, a merchantReference or an operatorReference; filters on
 * merchant, kind, status, channel, country and dates; pages newest first with a cursor. Live
 * operations go to the MTN MoMo simulator (a real server); the sandbox's are not in a live search.
 */

const callbackUrl = 'https://merchant.example/callback'

describeEachStore('console: operations across merchants', (store) => {
  let app: TestApp
  const merchants: { id: string; live: ApiClient; sandbox: ApiClient }[] = []
  const tokens: Record<string, string> = {}
  let beforeLastUs = 0
  before(async () => {
    app = await startApp(store(), { liveOperators: true })
    for (const name of ['Alpha', 'Beta', 'Gamma']) {
      const issued = await app.createMerchant(name)
      merchants.push({ id: issued.id, live: app.client(issued.live), sandbox: app.client(issued.sandbox) })
    }
    const collect = async (client: ApiClient, name: string, body: Record<string, unknown>) => {
      const answer = await client.post('/api/v1/collect', { amount: 5000, callbackUrl, ...body })
      assert.equal(answer.status, 200, answer.text)
      tokens[name] = answer.body.data.collect.token
    }
    const [alpha, beta, gamma] = merchants as [
      (typeof merchants)[0],
      (typeof merchants)[0],
      (typeof merchants)[0],
    ]
    const ci = { country: 'CI' }
    await collect(alpha.live, 'alpha', {
      ...ci,
      channel: 'mtn-momo',
      customer: { phoneNumber: '0700000002' },
      merchantReference: 'order-1',
    })
    await collect(beta.live, 'beta', {
      ...ci,
      channel: 'mtn-momo',
      customer: { phoneNumber: '+2250700000002' },
      merchantReference: 'order-1',
    })
    await collect(beta.live, 'betaOrange', {
      ...ci,
      channel: 'orange-money',
      customer: { phoneNumber: '0700000003' },
      merchantReference: 'order-2',
    })
    await collect(alpha.sandbox, 'alphaSandbox', {
      ...ci,
      channel: 'mtn-momo',
      customer: { phoneNumber: '0700000002' },
      merchantReference: 'order-1',
    })
    beforeLastUs = app.context.clock.nowUs()
    await collect(gamma.live, 'gamma', {
      country: 'BJ',
      channel: 'mtn-momo',
      customer: { phoneNumber: '+2290197000123' },
      merchantReference: 'order-3',
    })
  })
  after(() => app.close())

  const tokensOf = (items: readonly Operation[]) => items.map((operation) => operation.token)
  const search = async (query: Parameters<typeof searchAllOperations>[1]) =>
    tokensOf((await searchAllOperations(app.context, query)).items)

  test('a phone number written in another form finds every merchant’s live operations with it', async () => {
    for (const written of ['07 00 00 00 02', '+225 07-00-00-00-02', '2250700000002'])
      assert.deepEqual(await search({ q: written }), [tokens.beta, tokens.alpha], written)
    assert.deepEqual(await search({ q: '0700000002', mode: 'sandbox' }), [tokens.alphaSandbox])
  })

  test('a merchantReference, a token and an operatorReference each find their operations', async () => {
    assert.deepEqual(await search({ q: 'order-1' }), [tokens.beta, tokens.alpha])
    assert.deepEqual(await search({ q: tokens.gamma }), [tokens.gamma])
    const row = await app.db
      .selectFrom('operator_references')
      .innerJoin('operations', 'operations.id', 'operator_references.operation_id')
      .select('operator_references.reference')
      .where('operations.token', '=', tokens.betaOrange!)
      .executeTakeFirstOrThrow()
    assert.deepEqual(await search({ q: row.reference }), [tokens.betaOrange])
    assert.deepEqual(await search({ q: 'order-404' }), [])
  })

  test('filters: merchant, kind, status, channel, country and dates', async () => {
    const [alpha, beta, gamma] = merchants
    assert.deepEqual(await search({ q: '0700000002', merchantId: beta!.id }), [tokens.beta])
    assert.deepEqual(await search({ merchantId: alpha!.id }), [tokens.alpha])
    assert.deepEqual(await search({ merchantId: gamma!.id, mode: 'live' }), [tokens.gamma])
    assert.deepEqual(await search({ channel: 'orange-money' }), [tokens.betaOrange])
    assert.deepEqual(await search({ country: 'BJ' }), [tokens.gamma])
    assert.deepEqual(await search({ kind: 'disbursement' }), [])
    assert.deepEqual(await search({ kind: 'collect', country: 'CI' }), [
      tokens.betaOrange,
      tokens.beta,
      tokens.alpha,
    ])
    const statuses = await searchAllOperations(app.context, {})
    const someStatus = statuses.items[0]!.status
    assert.deepEqual(
      await search({ status: someStatus }),
      tokensOf(statuses.items.filter((operation) => operation.status === someStatus)),
    )
    assert.deepEqual(await search({ toUs: beforeLastUs }), [tokens.betaOrange, tokens.beta, tokens.alpha])
    assert.deepEqual(await search({ fromUs: beforeLastUs }), [tokens.gamma])
    assert.deepEqual(await search({ q: 'order-1', toUs: beforeLastUs, channel: 'mtn-momo' }), [
      tokens.beta,
      tokens.alpha,
    ])
  })

  test('pages across merchants, newest first, each operation once', async () => {
    const seen: string[] = []
    let after: Operation['id'] | undefined
    for (let page = 0; page < 5; page++) {
      const answer = await searchAllOperations(app.context, {
        limit: 2,
        ...(after === undefined ? {} : { after: { initiatedAtUs: 0, id: after } }),
      })
      seen.push(...tokensOf(answer.items))
      if (!answer.next) break
      after = answer.next.id
    }
    assert.deepEqual(seen, [tokens.gamma, tokens.betaOrange, tokens.beta, tokens.alpha])
  })
})
