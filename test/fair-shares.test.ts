import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { FairShares } from '../src/events/fair-shares.ts'

/** Takes slots for the merchant's endpoint while it has room; returns how many it took. */
function fill(shares: FairShares, merchantId: string, endpoint: string): number {
  let taken = 0
  while (shares.roomOf(merchantId) > 0) {
    shares.take(merchantId, endpoint)
    taken++
  }
  return taken
}

describe('fair shares of a delivery pool', () => {
  test('a merchant may hold the pool split between the merchants holding any and one more', () => {
    const shares = new FairShares(64)
    assert.equal(shares.shareOf('a'), 32, 'alone: half the pool')
    assert.equal(fill(shares, 'a', 'https://a.example'), 32)
    assert.equal(shares.roomOf('a'), 0)
    assert.equal(shares.shareOf('b'), 21, 'a newcomer counts itself in: a third')
    assert.equal(fill(shares, 'b', 'https://b.example'), 21)
    assert.equal(shares.shareOf('a'), 21, 'a is over its share now: it takes nothing until back under it')
    assert.equal(shares.roomOf('a'), 0)
    assert.equal(shares.roomOf('c'), 16, 'and a third merchant still finds room')
  })

  test('however many merchants hold their share, one more always finds room', () => {
    const shares = new FairShares(64)
    for (let merchant = 0; merchant < 10; merchant++) {
      assert.ok(shares.roomOf(`m${merchant}`) >= 1, `merchant ${merchant} found room`)
      fill(shares, `m${merchant}`, 'https://slow.example')
    }
  })

  test('within a merchant, one endpoint may hold half of its share, another endpoint the rest split the same way', () => {
    const shares = new FairShares(64)
    assert.equal(shares.endpointShareOf('a', 'https://slow.example'), 16)
    for (let i = 0; i < 16; i++) shares.take('a', 'https://slow.example')
    assert.equal(shares.endpointShareOf('a', 'https://slow.example'), 16)
    assert.equal(
      shares.endpointShareOf('a', 'https://fast.example'),
      10,
      'a second endpoint counts itself in',
    )
    assert.equal(shares.roomOf('a'), 16, 'and its merchant has room for it')
    shares.take('a', 'https://fast.example')
    assert.equal(shares.endpointShareOf('a', 'https://slow.example'), 10)
  })

  test('a request set aside (its endpoint went silent) stays its merchant’s, not its endpoint’s', () => {
    const shares = new FairShares(64)
    for (let i = 0; i < 4; i++) shares.take('a', 'https://dead.example')
    assert.equal(shares.endpointShareOf('a', 'https://live.example'), 10)
    for (let i = 0; i < 4; i++) shares.setAside('a', 'https://dead.example')
    assert.equal(shares.endpointShareOf('a', 'https://live.example'), 16, 'the dead one no longer splits it')
    assert.equal(shares.roomOf('a'), 28, 'but its requests still hold the merchant’s share')
    for (let i = 0; i < 4; i++) shares.releaseSetAside('a')
    assert.equal(shares.roomOf('a'), 32)
    assert.equal(shares.shareOf('b'), 32, 'a merchant holding nothing is forgotten')
  })

  test('a released slot goes back to its merchant and its endpoint', () => {
    const shares = new FairShares(16)
    shares.take('a', 'x')
    shares.take('a', 'y')
    shares.release('a', 'x')
    assert.equal(shares.roomOf('a'), 7)
    shares.release('a', 'x')
    assert.equal(shares.roomOf('a'), 7, 'releasing what was not taken changes nothing')
    shares.release('a', 'y')
    assert.equal(shares.roomOf('a'), 8)
  })

  describe('a claim’s turn, from a look at the merchants with events pending', () => {
    const due = (merchantId: string) => ({ merchantId, due: true })
    const waiting = (merchantId: string) => ({ merchantId, due: false })
    const table: {
      name: string
      holding?: Record<string, number>
      looked: { merchantId: string; due: boolean }[]
      free: number
      quotas: [string, number][]
      nextAfter: string | undefined
    }[] = [
      {
        name: 'the due ones with room are served; the next look starts after the last one looked at',
        holding: { b: 32 },
        looked: [due('a'), due('b'), waiting('c'), due('d'), waiting('e')],
        free: 64,
        quotas: [
          ['a', 21],
          ['d', 21],
        ],
        nextAfter: 'e',
      },
      {
        name: 'none due: nothing claimed, and the next look starts after these',
        looked: [waiting('a'), waiting('b')],
        free: 64,
        quotas: [],
        nextAfter: 'b',
      },
      {
        name: 'free slots run out: the next look starts after the last merchant served',
        looked: [due('a'), due('b'), due('c'), waiting('d')],
        free: 2,
        quotas: [
          ['a', 1],
          ['b', 1],
        ],
        nextAfter: 'b',
      },
      {
        name: 'at most perClaim merchants: the next look starts after the last one taken',
        looked: [due('a'), due('b'), due('c'), due('d')],
        free: 64,
        quotas: [
          ['a', 32],
          ['b', 32],
        ],
        nextAfter: 'b',
      },
      {
        name: 'nobody looked at: the next look starts where this one did',
        looked: [],
        free: 64,
        quotas: [],
        nextAfter: undefined,
      },
    ]
    for (const row of table) {
      test(row.name, () => {
        const shares = new FairShares(64)
        for (const [merchantId, count] of Object.entries(row.holding ?? {}))
          for (let i = 0; i < count; i++) shares.take(merchantId, 'https://x.example')
        const turn = shares.turn(row.looked, row.free, 2)
        assert.deepEqual(
          turn.quotas.map(({ merchantId, count }) => [merchantId, count]),
          row.quotas,
        )
        assert.equal(turn.nextAfter, row.nextAfter)
      })
    }
  })

  describe('what a claim takes of each merchant', () => {
    const table: {
      name: string
      holding: Record<string, number>
      merchants: string[]
      free: number
      quotas: [string, number][]
    }[] = [
      {
        name: 'free slots split evenly between the merchants with events due, in their turn',
        holding: {},
        merchants: ['b', 'a'],
        free: 64,
        quotas: [
          ['b', 32],
          ['a', 32],
        ],
      },
      {
        name: 'each at most its room; what one cannot take goes to the next',
        holding: { a: 30 },
        merchants: ['a', 'b'],
        free: 34,
        quotas: [
          ['a', 2],
          ['b', 21],
        ],
      },
      {
        name: 'a merchant at its share has nothing claimed, however long its backlog',
        holding: { a: 32 },
        merchants: ['a', 'b'],
        free: 32,
        quotas: [['b', 21]],
      },
      {
        name: 'fewer free slots than merchants: one each, the rest next time',
        holding: {},
        merchants: ['c', 'a', 'b'],
        free: 2,
        quotas: [
          ['c', 1],
          ['a', 1],
        ],
      },
    ]
    for (const row of table) {
      test(row.name, () => {
        const shares = new FairShares(64)
        for (const [merchantId, count] of Object.entries(row.holding))
          for (let i = 0; i < count; i++) shares.take(merchantId, 'https://x.example')
        assert.deepEqual(
          shares.quotas(row.merchants, row.free).map(({ merchantId, count }) => [merchantId, count]),
          row.quotas,
        )
      })
    }

    test('a merchant is claimed no more than its endpoints can take now; the rest goes to the next', () => {
      const shares = new FairShares(64)
      const endpointsTake = (merchantId: string) => (merchantId === 'a' ? 3 : Number.POSITIVE_INFINITY)
      const quotas = shares.quotas(['a', 'b'], 64, endpointsTake)
      assert.deepEqual(
        quotas.map(({ merchantId, count }) => [merchantId, count]),
        [
          ['a', 3],
          ['b', 32],
        ],
      )
    })

    test('a merchant whose endpoints can take nothing now is passed over in the claim’s turn', () => {
      const shares = new FairShares(64)
      const looked = [
        { merchantId: 'a', due: true },
        { merchantId: 'b', due: true },
      ]
      const turn = shares.turn(looked, 64, 2, (merchantId) => (merchantId === 'a' ? 0 : 64))
      assert.deepEqual(
        turn.quotas.map(({ merchantId, count }) => [merchantId, count]),
        [['b', 32]],
      )
      assert.equal(turn.nextAfter, 'b')
    })
  })
})
