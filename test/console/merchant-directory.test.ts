import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { merchantSummary, searchMerchants } from '../../src/app/console/merchant-directory.ts'
import { type ApiClient, startApp, type TestApp } from '../support/app.ts'
import { signedInMember } from '../support/dashboard.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * CONTRACT.md, Platform console (merchants): a search by name, id or a member's email, filtered on
 * status; a merchant's summary with its balances per mode and currency, its latest operations and
 * its members.
 */

describeEachStore('console: merchants', (store) => {
  let app: TestApp
  const ids: Record<string, string> = {}
  let shop: ApiClient
  const tokens: string[] = []
  before(async () => {
    app = await startApp(store())
    for (const name of ['Acme Shop', 'Acme Foods', 'Zeta 100%', 'Beta_Store']) {
      const issued = await app.createMerchant(name)
      ids[name] = issued.id
      if (name === 'Acme Shop') shop = app.client(issued.sandbox)
    }
    await app.context.store.merchants.setStatus(ids['Acme Foods']!, 'suspended')
    await signedInMember(app, { role: 'owner', merchantId: ids['Zeta 100%']!, email: 'Owner@Zeta.example' })
    for (let index = 0; index < 3; index++) {
      const answer = await shop.post('/api/v1/collect', {
        amount: 1000 + index,
        channel: 'mtn-momo',
        country: 'CI',
        customer: { phoneNumber: '0700000001' },
        merchantReference: `shop-${index}`,
        callbackUrl: 'https://merchant.example/callback',
      })
      assert.equal(answer.status, 200, answer.text)
      tokens.unshift(answer.body.data.collect.token)
    }
  })
  after(() => app.close())

  const names = async (query: Parameters<typeof searchMerchants>[1]) =>
    (await searchMerchants(app.context, query)).merchants.map((merchant) => merchant.name)

  test('by a part of the name in any case, the whole id, or a member’s email', async () => {
    assert.deepEqual(await names({ q: 'acme' }), ['Acme Foods', 'Acme Shop'])
    assert.deepEqual(await names({ q: 'ACME F' }), ['Acme Foods'])
    assert.deepEqual(await names({ q: ids['Acme Shop']! }), ['Acme Shop'])
    assert.deepEqual(await names({ q: 'owner@zeta.EXAMPLE' }), ['Zeta 100%'])
    assert.deepEqual(await names({ q: '%' }), ['Zeta 100%'], 'a % is a character, not a wildcard')
    assert.deepEqual(await names({ q: 'a_s' }), ['Beta_Store'], 'an _ is a character, not a wildcard')
    assert.deepEqual(await names({}), ['Acme Foods', 'Acme Shop', 'Beta_Store', 'Zeta 100%'])
  })

  test('filtered on status, a page after a merchant', async () => {
    assert.deepEqual(await names({ status: 'suspended' }), ['Acme Foods'])
    assert.deepEqual(await names({ q: 'acme', status: 'active' }), ['Acme Shop'])
    assert.deepEqual(await names({ after: { name: 'Acme Shop', id: ids['Acme Shop']! } }), [
      'Beta_Store',
      'Zeta 100%',
    ])
  })

  test('a merchant’s summary: status, balances per mode and currency, latest operations, members', async () => {
    const summary = await merchantSummary(app.context, ids['Acme Shop']!)
    assert.ok(summary)
    assert.equal(summary.merchant.status, 'active')
    assert.deepEqual(summary.balances, await app.context.store.ledger.balances(ids['Acme Shop']!))
    // A new merchant's sandbox opens with operations of its own (its opening balances), older.
    assert.deepEqual(
      summary.latestOperations.sandbox.slice(0, 3).map((operation) => operation.token),
      tokens,
    )
    assert.ok(summary.latestOperations.sandbox.length <= 10)
    assert.deepEqual(summary.latestOperations.live, [])
    assert.deepEqual(summary.members, [])

    const zeta = await merchantSummary(app.context, ids['Zeta 100%']!)
    assert.deepEqual(
      zeta?.members.map(({ email, role, enrolled }) => ({ email, role, enrolled })),
      [{ email: 'owner@zeta.example', role: 'owner', enrolled: true }],
    )
    assert.equal(await merchantSummary(app.context, 'mer_unknown'), undefined)
  })
})
