import assert from 'node:assert/strict'
import { test } from 'node:test'
import { LongWorkTurns } from '../src/app/mechanisms/long-work-turns.ts'
import { StatementSlots } from '../src/app/mechanisms/statement-slots.ts'

/** The mechanisms behind statements that yield (test/statements-under-load.test.ts measures them). */

test('long reads run one batch at a time, each after a turn of the event loop', async () => {
  const turns = new LongWorkTurns()
  const owner = { mode: 'sandbox', merchantId: 'mer_a' }
  let running = 0
  let mostAtOnce = 0
  const timersBetween: number[] = []
  let timers = 0
  const ticking = setInterval(() => {
    timers += 1
  }, 0)
  const read = async (batches: number) => {
    for (let batch = 0; batch < batches; batch++) {
      await turns.run(owner, async () => {
        running += 1
        mostAtOnce = Math.max(mostAtOnce, running)
        timersBetween.push(timers)
        await new Promise((resolve) => setImmediate(resolve))
        running -= 1
      })
    }
  }
  await Promise.all([read(20), read(20), read(20)])
  clearInterval(ticking)
  assert.equal(mostAtOnce, 1)
  assert.ok(timers > 0, 'timers ran between the batches')
})

test('turns go round the modes, then the merchants, then each merchant’s reads in order', async () => {
  const turns = new LongWorkTurns()
  const order: string[] = []
  const batch = (mode: string, merchantId: string, name: string) =>
    turns.run({ mode, merchantId }, async () => {
      order.push(name)
    })
  await Promise.all([
    batch('sandbox', 'a', 'a1'),
    batch('sandbox', 'a', 'a2'),
    batch('sandbox', 'a', 'a3'),
    batch('sandbox', 'b', 'b1'),
    batch('sandbox', 'c', 'c1'),
    batch('live', 'd', 'd1'),
    batch('live', 'd', 'd2'),
  ])
  assert.deepEqual(order, ['a1', 'd1', 'b1', 'd2', 'c1', 'a2', 'a3'])
})

test('a batch that fails gives its turn back and rejects', async () => {
  const turns = new LongWorkTurns()
  const owner = { mode: 'live', merchantId: 'mer_a' }
  await assert.rejects(
    turns.run(owner, async () => {
      throw new Error('the database went away')
    }),
    /went away/,
  )
  assert.equal(await turns.run(owner, async () => 'next'), 'next')
})

test('statement slots: two per merchant and mode, given back once however often released', () => {
  const slots = new StatementSlots()
  const sandbox = { merchantId: 'mer_a', mode: 'sandbox' }
  const first = slots.claim(sandbox)
  const second = slots.claim(sandbox)
  assert.ok(first && second)
  assert.equal(slots.claim(sandbox), undefined)
  assert.ok(slots.claim({ merchantId: 'mer_a', mode: 'live' }), 'live has its own')
  assert.ok(slots.claim({ merchantId: 'mer_b', mode: 'sandbox' }), 'another merchant has its own')
  first()
  first()
  const third = slots.claim(sandbox)
  assert.ok(third)
  assert.equal(slots.claim(sandbox), undefined, 'a second release of the same slot gave nothing back')
})
