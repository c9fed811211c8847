import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { TurnBudget } from '../src/http/turn-budget.ts'

/**
 * The turn budget (README, REQUEST_TIME_PER_TURN_MS): a stretch of the event loop starts requests while it
 * is within its budget; the rest start in check phases after it, in the order they came, and a
 * request that finds the loop idle starts at once. Each request here "costs" 1 ms of a clock it
 * advances itself.
 */
function burst(budgetMs: number, count: number, how: 'run' | 'later' = 'run') {
  let clockMs = 0
  const turns = new TurnBudget(budgetMs, () => clockMs)
  const started: { request: number; turn: number }[] = []
  // Counts the loop's check phases: queued before the burst, it runs first in each of them.
  let turn = 0
  const allStarted = new Promise<void>((resolve) => {
    const tick = () => {
      if (started.length === count || turn > count + 2) return resolve()
      turn += 1
      setImmediate(tick)
    }
    setImmediate(tick)
  })
  for (let request = 0; request < count; request++) {
    turns[how](() => {
      started.push({ request, turn })
      clockMs += 1
    })
  }
  return { started, startedAtOnce: started.length, allStarted }
}

function startsPerTurn(started: { turn: number }[]): Map<number, number> {
  const perTurn = new Map<number, number>()
  for (const { turn } of started) perTurn.set(turn, (perTurn.get(turn) ?? 0) + 1)
  return perTurn
}

describe('TurnBudget', () => {
  test('a request alone starts at once, in the same turn', () => {
    const { startedAtOnce } = burst(4, 1)
    assert.equal(startedAtOnce, 1)
  })

  test('a burst starts as many as the budget holds now, the rest later, every one in order', async () => {
    const { started, startedAtOnce, allStarted } = burst(4, 10)
    assert.equal(startedAtOnce, 4, '4 ms of budget, 1 ms a request')
    await allStarted
    assert.deepEqual(
      started.map((s) => s.request),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    )
    const perTurn = startsPerTurn(started)
    assert.ok(perTurn.size >= 3, `spread over ${perTurn.size} turns`)
    for (const [turn, count] of perTurn) assert.ok(count <= 4, `turn ${turn} started ${count}`)
  })

  test('requests let in together for later (the admission line) start within the budget too, in order', async () => {
    const { started, startedAtOnce, allStarted } = burst(4, 10, 'later')
    assert.equal(startedAtOnce, 0)
    await allStarted
    assert.deepEqual(
      started.map((s) => s.request),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    )
    for (const [turn, count] of startsPerTurn(started)) assert.ok(count <= 4, `turn ${turn} started ${count}`)
  })

  test('a request that comes while earlier ones wait starts after them, though the budget has time', async () => {
    const turns = new TurnBudget(4, () => 0)
    const order: string[] = []
    turns.later(() => order.push('waiting'))
    turns.run(() => order.push('newcomer'))
    assert.deepEqual(order, [], 'the newcomer did not go first')
    await new Promise((resolve) => setImmediate(() => setImmediate(resolve)))
    assert.deepEqual(order, ['waiting', 'newcomer'])
  })

  test('budget 0 starts everything at once', () => {
    assert.equal(burst(0, 10).startedAtOnce, 10)
    assert.equal(burst(0, 10, 'later').startedAtOnce, 10)
  })
})
