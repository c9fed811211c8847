import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { GroupedWrites } from '../src/app/mechanisms/grouped-writes.ts'

/** Steps that keep what was written, group by group, and refuse the items named. */
function recordingSteps(refused: Set<number> = new Set()) {
  const groups: number[][] = []
  const ones: number[] = []
  return {
    groups,
    ones,
    steps: {
      async writeGroup(items: readonly number[]) {
        await Promise.resolve()
        if (items.some((item) => refused.has(item))) throw new Error('the group is refused')
        groups.push([...items])
        return items.map((item) => item * 10)
      },
      async writeOne(item: number) {
        await Promise.resolve()
        if (refused.has(item)) throw new Error(`${item} is refused`)
        ones.push(item)
        return item * 10
      },
    },
  }
}

describe('Grouped writes', () => {
  test('a write made while none is under way is made at once, alone', async () => {
    const recorded = recordingSteps()
    await new GroupedWrites(recorded.steps).write(1)
    assert.deepEqual(recorded.ones, [1])
    assert.deepEqual(recorded.groups, [])
  })

  test('writes made while one is being committed are committed together, next, in their order', async () => {
    const recorded = recordingSteps()
    const writes = new GroupedWrites(recorded.steps)
    const all = [1, 2, 3, 4, 5].map((item) => writes.write(item))
    assert.deepEqual(await Promise.all(all), [10, 20, 30, 40, 50], 'each caller has its own write’s result')
    assert.deepEqual(recorded.ones, [1])
    assert.deepEqual(recorded.groups, [[2, 3, 4, 5]])
  })

  test('a group is at most as large as allowed', async () => {
    const recorded = recordingSteps()
    const writes = new GroupedWrites(recorded.steps, 2)
    await Promise.all([1, 2, 3, 4, 5, 6].map((item) => writes.write(item)))
    assert.deepEqual(recorded.groups, [
      [2, 3],
      [4, 5],
    ])
    assert.deepEqual(recorded.ones, [1, 6])
  })

  test('a write that cannot be made fails alone: the others of its group are made and resolve', async () => {
    const recorded = recordingSteps(new Set([3]))
    const writes = new GroupedWrites(recorded.steps)
    const results = await Promise.allSettled([1, 2, 3, 4].map((item) => writes.write(item)))
    assert.deepEqual(
      results.map((result) => result.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
    )
    assert.deepEqual(recorded.ones, [1, 2, 4])
    assert.deepEqual(recorded.groups, [])
  })

  test('no caller resolves before the commit that holds its write', async () => {
    const gates = new Map<string, () => void>()
    const gate = (name: string) => new Promise<void>((resolve) => gates.set(name, resolve))
    const committed: number[] = []
    const writes = new GroupedWrites<number>({
      writeGroup: async (items) => {
        await gate('group')
        committed.push(...items)
        return items.map(() => undefined)
      },
      writeOne: async (item) => {
        await gate('one')
        committed.push(item)
      },
    })
    const resolved: number[] = []
    const all = [1, 2, 3].map((item) => writes.write(item).then(() => resolved.push(item)))
    await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(resolved, [])
    gates.get('one')?.()
    await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(resolved, [1], 'the first, alone, is committed; 2 and 3 wait for their group')
    gates.get('group')?.()
    await Promise.all(all)
    assert.deepEqual(committed, [1, 2, 3])
    assert.deepEqual(resolved, [1, 2, 3])
  })
})
