import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { type ApiClient, type ApiResponse, startApp, type TestApp } from './support/app.ts'
import { describeEachStore } from './support/stores.ts'

/** A response body: untyped JSON. */
type Json = ApiResponse['body']

const callbackUrl = 'https://merchant.example/sika/callback'
/** Every merchant and mode below uses the same wallet and the same reference: only the keys differ. */
const sharedPhoneNumber = '2250700000001'
const sharedReference = 'isolation-1'
const unknownToken = 'zzzzz-zzzzz-zzzzz-zzzzz-zzzzz'

const body = (amount: number) => ({
  amount,
  channel: 'orange-money',
  country: 'CI',
  customer: { phoneNumber: sharedPhoneNumber },
  merchantReference: sharedReference,
  callbackUrl,
})

type Caller = 'a sandbox' | 'a live' | 'b sandbox'
/** The operations made below: A's sandbox collect and disbursement, A's live collect, B's collect. */
type Made = 'aCollect' | 'aDisbursement' | 'aLiveCollect' | 'bCollect'

describeEachStore('one merchant, one mode: nobody sees another\u2019s operations', (store) => {
  let app: TestApp
  let clients: Record<Caller, ApiClient>
  /** The tokens each caller made. */
  const tokens: Record<Made, string> = { aCollect: '', aDisbursement: '', aLiveCollect: '', bCollect: '' }

  before(async () => {
    app = await startApp(store(), { liveOperators: true })
    const a = await app.createMerchant('Merchant A')
    const b = await app.createMerchant('Merchant B')
    clients = {
      'a sandbox': app.client(a.sandbox),
      'a live': app.client(a.live),
      'b sandbox': app.client(b.sandbox),
    }
    const initiate = async (caller: Caller, kind: string, amount: number) => {
      const response = await clients[caller].post(`/api/v1/${kind}`, body(amount))
      assert.equal(response.status, 200, response.text)
      return response.body.data[kind].token as string
    }
    tokens.aCollect = await initiate('a sandbox', 'collect', 5000)
    tokens.aDisbursement = await initiate('a sandbox', 'disbursement', 3000)
    // Live has no operator connected: the collect ends in `error`, but it exists.
    tokens.aLiveCollect = await initiate('a live', 'collect', 7000)
    tokens.bCollect = await initiate('b sandbox', 'collect', 9000)
  })
  after(() => app.close())

  test('each caller reads its own operations (the control for the 404s below)', async () => {
    for (const [caller, kind, made] of [
      ['a sandbox', 'collect', 'aCollect'],
      ['a sandbox', 'disbursement', 'aDisbursement'],
      ['a live', 'collect', 'aLiveCollect'],
      ['b sandbox', 'collect', 'bCollect'],
    ] as const) {
      const response = await clients[caller].get(`/api/v1/${kind}/${tokens[made]}`)
      assert.equal(response.status, 200, `${caller} ${kind}: ${response.text}`)
      assert.equal(response.body.data[kind].token, tokens[made])
    }
  })

  /** CONTRACT.md, Authentication: "A token of another merchant, or of the other mode, is a 404, exactly as an unknown one." */
  const hidden: [name: string, caller: Caller, kind: string, token: Made][] = [
    ['another merchant\u2019s token', 'a sandbox', 'collect', 'bCollect'],
    ['another merchant\u2019s token, the other way round', 'b sandbox', 'collect', 'aCollect'],
    ['a live token read with sandbox keys', 'a sandbox', 'collect', 'aLiveCollect'],
    ['a sandbox token read with live keys', 'a live', 'collect', 'aCollect'],
    ['a collect token on the disbursement path', 'a sandbox', 'disbursement', 'aCollect'],
    ['a disbursement token on the withdraw path', 'a sandbox', 'withdraw', 'aDisbursement'],
    ['a collect token on the transfer path', 'a sandbox', 'transfer', 'aCollect'],
    ['a collect token on the recharge path', 'a sandbox', 'recharge', 'aCollect'],
  ]

  for (const [name, caller, kind, made] of hidden) {
    test(`${name}: 404, the same answer as an unknown token`, async () => {
      const client = clients[caller]
      const token = tokens[made]
      const response = await client.get(`/api/v1/${kind}/${token}`)
      const unknown = await client.get(`/api/v1/${kind}/${unknownToken}`)
      assertNotFound(response)
      assertNotFound(unknown)
      assert.deepEqual(Object.keys(response.body).sort(), Object.keys(unknown.body).sort())
      assert.equal(
        response.body.message.replaceAll(token, '{token}'),
        unknown.body.message.replaceAll(unknownToken, '{token}'),
        'the message tells nothing more than for an unknown token',
      )
    })
  }

  /**
   * On PostgreSQL, reads by token that queue are sent together, one statement for many callers
   * (src/store/read-batches.ts): hundreds at once must each get what they get alone.
   */
  test('read all at once by every caller, each token still answers only its own merchant and mode', async () => {
    const reads: [caller: Caller, kind: string, token: string, expected: 200 | 404][] = []
    for (let round = 0; round < 20; round++) {
      reads.push(['a sandbox', 'collect', tokens.aCollect, 200])
      reads.push(['a sandbox', 'disbursement', tokens.aDisbursement, 200])
      reads.push(['a live', 'collect', tokens.aLiveCollect, 200])
      reads.push(['b sandbox', 'collect', tokens.bCollect, 200])
      for (const [, caller, kind, made] of hidden) reads.push([caller, kind, tokens[made], 404])
      reads.push(['b sandbox', 'collect', unknownToken, 404])
    }
    const answers = await Promise.all(
      reads.map(([caller, kind, token]) => clients[caller].get(`/api/v1/${kind}/${token}`)),
    )
    reads.forEach(([caller, kind, token, expected], index) => {
      const answer = answers[index]!
      assert.equal(answer.status, expected, `${caller} reading ${kind} ${token}: ${answer.text}`)
      if (expected === 200) assert.equal(answer.body.data[kind].token, token)
      else assertNotFound(answer)
    })
  })

  for (const [name, path] of [
    ['a malformed token', '/api/v1/collect/not-a-token'],
    ['a token in upper case', () => `/api/v1/collect/${tokens.aCollect.toUpperCase()}`],
    ['a token with a sixth group', () => `/api/v1/collect/${tokens.aCollect}-abcde`],
  ] as const) {
    test(`${name}: 404 not_found`, async () => {
      assertNotFound(await clients['a sandbox'].get(typeof path === 'string' ? path : path()))
    })
  }

  /** Lists, unfiltered and filtered, by caller: exactly that caller's operations. */
  const lists: [caller: Caller, query: Record<string, string>, expected: Made][] = [
    ['a sandbox', {}, 'aCollect'],
    ['a live', {}, 'aLiveCollect'],
    ['b sandbox', {}, 'bCollect'],
    ['a sandbox', { merchantReference: sharedReference }, 'aCollect'],
    ['a live', { phoneNumber: sharedPhoneNumber }, 'aLiveCollect'],
    ['b sandbox', { phoneNumber: sharedPhoneNumber, channel: 'orange-money' }, 'bCollect'],
  ]

  for (const [caller, query, expected] of lists) {
    const filtered = Object.keys(query).length > 0 ? ` filtered on ${Object.keys(query).join(' and ')}` : ''
    test(`the collect list of ${caller}${filtered} holds its own operations only`, async () => {
      const response = await clients[caller].get('/api/v1/collect', query)
      assert.equal(response.status, 200, response.text)
      assert.deepEqual(
        response.body.data.collects.map((item: Json) => item.token),
        [tokens[expected]],
      )
      assert.equal(response.body.meta.pagination.total, 1)
    })
  }

  test('each merchant has its own opening recharges, in sandbox only', async () => {
    const recharges = async (caller: Caller) => {
      const response = await clients[caller].get('/api/v1/recharge')
      assert.equal(response.status, 200, response.text)
      return response.body.data.recharges.map((item: Json) => item.token) as string[]
    }
    const a = await recharges('a sandbox')
    const b = await recharges('b sandbox')
    assert.equal(a.length, 5)
    assert.equal(b.length, 5)
    assert.deepEqual(
      a.filter((token) => b.includes(token)),
      [],
      'no recharge in both lists',
    )
    assert.deepEqual(await recharges('a live'), [], 'live balances open at zero')
  })

  test('the transactions list holds the caller\u2019s own balance movements only', async () => {
    const groups = (tokenList: string[]) => tokenList.map((token) => token.slice(0, 5)).sort()
    const movements = async (caller: Caller, query: Record<string, string> = {}) => {
      const response = await clients[caller].get('/api/v1/transaction', { perPage: 100, ...query })
      assert.equal(response.status, 200, response.text)
      const items = response.body.data.transactions as Json[]
      assert.equal(response.body.meta.pagination.total, items.length)
      return items.map((item) => item.reference.split('.')[1] as string).sort()
    }
    const rechargeTokens = async (caller: Caller) =>
      (await clients[caller].get('/api/v1/recharge')).body.data.recharges.map((item: Json) => item.token)

    // One movement per succeeded operation: the opening recharges, the collect and the disbursement.
    const aOwn = [...(await rechargeTokens('a sandbox')), tokens.aCollect, tokens.aDisbursement]
    assert.deepEqual(await movements('a sandbox'), groups(aOwn))
    assert.deepEqual(await movements('a sandbox', { type: 'cash-in' }), groups(aOwn.slice(0, 6)))
    const bOwn = [...(await rechargeTokens('b sandbox')), tokens.bCollect]
    assert.deepEqual(await movements('b sandbox'), groups(bOwn))
    assert.deepEqual(await movements('b sandbox', { operation: 'collect' }), groups([tokens.bCollect]))
    // The live collect ended in error: no money moved, so there is no movement.
    assert.deepEqual(await movements('a live'), [])
    assert.deepEqual(await movements('a live', { operation: 'collect' }), [])
  })
})

function assertNotFound(response: ApiResponse): void {
  assert.equal(response.status, 404, response.text)
  assert.equal(response.body.success, false)
  assert.equal(response.body.statusCode, 404)
  assert.equal(response.body.code, 'not_found')
  assert.ok(typeof response.body.message === 'string' && response.body.message.length > 0)
  assert.ok(typeof response.body.requestId === 'string' && response.body.requestId.length > 0)
  assert.equal('data' in response.body, false)
  assert.equal('errors' in response.body, false, 'no field is at fault')
}
