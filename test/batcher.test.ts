import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Batcher, failAll, type RunTogether, retryOneByOne } from '../src/batching/batcher.ts'

/**
 * A batch function that answers when the test says so: it keeps the items of every batch it was
 * given, how many ran at most at once, and answers each item `item * 10`, or fails.
 */
function heldBatches() {
  const batches: number[][] = []
  const held: { settle(error?: Error): void }[] = []
  let running = 0
  const state = { mostAtOnce: 0 }
  const together: RunTogether<number, number> = (items) => {
    batches.push([...items])
    running += 1
    state.mostAtOnce = Math.max(state.mostAtOnce, running)
    return new Promise((resolve, reject) => {
      held.push({
        settle: (error) => {
          running -= 1
          if (error) reject(error)
          else resolve(items.map((item) => item * 10))
        },
      })
    })
  }
  return {
    batches,
    state,
    together,
    /** Answers the oldest batch still running (or fails it), then lets what follows from it run. */
    async answerNext(error?: Error) {
      held.shift()!.settle(error)
      await microtasks()
    },
  }
}

/** Lets every continuation already due run, without a turn of the event loop. */
async function microtasks(): Promise<void> {
  for (let turn = 0; turn < 20; turn++) await Promise.resolve()
}

/** Where each promise stands, without waiting for it. */
function watch<T>(promises: Promise<T>[]) {
  const outcomes: (string | undefined)[] = promises.map(() => undefined)
  for (const [index, promise] of promises.entries()) {
    promise.then(
      (value) => {
        outcomes[index] = `resolved ${String(value)}`
      },
      (error: Error) => {
        outcomes[index] = `rejected ${error.message}`
      },
    )
  }
  return outcomes
}

describe('Batcher: queue, limits and order', () => {
  test('an item submitted while fewer than inFlight batches run starts a batch at once, in the same call, alone', () => {
    const held = heldBatches()
    const batcher = new Batcher({ inFlight: 2, largestBatch: 64, run: failAll(held.together) })
    void batcher.submit(1)
    assert.deepEqual(held.batches, [[1]])
    void batcher.submit(2)
    assert.deepEqual(held.batches, [[1], [2]], 'a second batch runs beside the first')
    void batcher.submit(3)
    assert.deepEqual(held.batches, [[1], [2]], 'the third waits: inFlight batches run')
  })

  test('items that wait go in the order they came, at most largestBatch a batch, at most inFlight batches at once', async () => {
    const held = heldBatches()
    const batcher = new Batcher({ inFlight: 2, largestBatch: 3, run: failAll(held.together) })
    const all = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((item) => batcher.submit(item))
    assert.deepEqual(held.batches, [[1], [2]])
    await held.answerNext()
    assert.deepEqual(held.batches, [[1], [2], [3, 4, 5]], 'a batch that ends starts the next')
    await held.answerNext()
    await held.answerNext()
    await held.answerNext()
    await held.answerNext()
    assert.deepEqual(held.batches, [[1], [2], [3, 4, 5], [6, 7, 8], [9, 10]])
    assert.equal(held.state.mostAtOnce, 2)
    assert.deepEqual(await Promise.all(all), [10, 20, 30, 40, 50, 60, 70, 80, 90, 100])
  })

  test('each item is answered when its own batch ends, not before', async () => {
    const held = heldBatches()
    const batcher = new Batcher({ inFlight: 1, largestBatch: 64, run: failAll(held.together) })
    const outcomes = watch([1, 2, 3].map((item) => batcher.submit(item)))
    await microtasks()
    assert.deepEqual(outcomes, [undefined, undefined, undefined])
    await held.answerNext()
    assert.deepEqual(outcomes, ['resolved 10', undefined, undefined])
    await held.answerNext()
    assert.deepEqual(outcomes, ['resolved 10', 'resolved 20', 'resolved 30'])
  })

  test('batches follow one another within one turn of the event loop: nothing waits for a timer or a check phase', async () => {
    const batches: number[][] = []
    const batcher = new Batcher({
      inFlight: 1,
      largestBatch: 3,
      run: failAll(async (items: readonly number[]) => {
        batches.push([...items])
        return [...items]
      }),
    })
    let turned = false
    setImmediate(() => {
      turned = true
    })
    assert.deepEqual(
      await Promise.all([1, 2, 3, 4, 5, 6, 7].map((item) => batcher.submit(item))),
      [1, 2, 3, 4, 5, 6, 7],
    )
    assert.equal(turned, false)
    assert.deepEqual(batches, [[1], [2, 3, 4], [5, 6, 7]])
  })

  test('with no largest batch, every item waiting goes in the next batch', async () => {
    const held = heldBatches()
    const batcher = new Batcher({
      inFlight: 1,
      largestBatch: Number.POSITIVE_INFINITY,
      run: failAll(held.together),
    })
    const all = Array.from({ length: 100 }, (_, item) => batcher.submit(item))
    await held.answerNext()
    await held.answerNext()
    assert.equal(held.batches.length, 2)
    assert.equal(held.batches[1]!.length, 99)
    await Promise.all(all)
  })

  test('busy while a batch runs or an item waits; onIdle once the last batch ends with nothing waiting', async () => {
    const held = heldBatches()
    let idle = 0
    const batcher = new Batcher({
      inFlight: 2,
      largestBatch: 64,
      run: failAll(held.together),
      onIdle: () => {
        idle += 1
      },
    })
    assert.equal(batcher.busy, false)
    const all = [1, 2, 3].map((item) => batcher.submit(item))
    assert.equal(batcher.busy, true)
    await held.answerNext()
    await held.answerNext()
    assert.equal(idle, 0, 'the third is running')
    assert.equal(batcher.busy, true)
    await held.answerNext()
    assert.equal(idle, 1)
    assert.equal(batcher.busy, false)
    await Promise.all(all)
  })
})

describe('Batcher: failure policies', () => {
  test('failAll: a batch that fails fails each of its items with its error; the items after it still go', async () => {
    const held = heldBatches()
    const batcher = new Batcher({ inFlight: 1, largestBatch: 64, run: failAll(held.together) })
    const outcomes = watch([1, 2, 3, 4].map((item) => batcher.submit(item)))
    await held.answerNext()
    await held.answerNext(new Error('cannot answer'))
    assert.deepEqual(outcomes, [
      'resolved 10',
      'rejected cannot answer',
      'rejected cannot answer',
      'rejected cannot answer',
    ])
    assert.equal(batcher.busy, false)
    const after = batcher.submit(5)
    assert.deepEqual(held.batches.at(-1), [5], 'nothing runs: the next item goes at once')
    await held.answerNext()
    assert.equal(await after, 50)
  })

  test('retryOneByOne: a failed batch of several runs each item again alone, in order, each answered as it ends', async () => {
    const held = heldBatches()
    const batcher = new Batcher({ inFlight: 1, largestBatch: 64, run: retryOneByOne(held.together) })
    const outcomes = watch([1, 2, 3, 4].map((item) => batcher.submit(item)))
    await held.answerNext()
    await held.answerNext(new Error('the group is refused'))
    assert.deepEqual(held.batches, [[1], [2, 3, 4], [2]], 'one retry at a time')
    await held.answerNext()
    assert.deepEqual(
      outcomes,
      ['resolved 10', 'resolved 20', undefined, undefined],
      'answered before the next retry ends',
    )
    await held.answerNext(new Error('3 is refused'))
    await held.answerNext()
    assert.deepEqual(held.batches, [[1], [2, 3, 4], [2], [3], [4]])
    assert.deepEqual(outcomes, ['resolved 10', 'resolved 20', 'rejected 3 is refused', 'resolved 40'])
  })

  test('retryOneByOne: a batch of one that fails fails its item, without a retry', async () => {
    const held = heldBatches()
    const batcher = new Batcher({ inFlight: 1, largestBatch: 64, run: retryOneByOne(held.together) })
    const outcomes = watch([batcher.submit(1)])
    await held.answerNext(new Error('1 is refused'))
    assert.deepEqual(outcomes, ['rejected 1 is refused'])
    assert.deepEqual(held.batches, [[1]])
  })

  test('retryOneByOne: items queued behind a failed batch wait until its retries end', async () => {
    const held = heldBatches()
    const batcher = new Batcher({ inFlight: 1, largestBatch: 64, run: retryOneByOne(held.together) })
    const all = [1, 2, 3].map((item) => batcher.submit(item))
    await held.answerNext()
    await held.answerNext(new Error('the group is refused'))
    const later = batcher.submit(4)
    await held.answerNext()
    assert.deepEqual(held.batches.at(-1), [3], 'the retries go first')
    await held.answerNext()
    assert.deepEqual(held.batches.at(-1), [4])
    await held.answerNext()
    assert.deepEqual(await Promise.all([...all, later]), [10, 20, 30, 40])
  })

  test('caller-defined: the run function answers each item itself, each with its own outcome', async () => {
    const batcher = new Batcher<number, string>({
      inFlight: 1,
      largestBatch: 64,
      run: async (batch) => {
        for (const pending of batch)
          if (pending.item % 2 === 0) pending.resolve(`even ${pending.item}`)
          else pending.reject(new Error(`odd ${pending.item}`))
      },
    })
    const outcomes = watch([1, 2, 3].map((item) => batcher.submit(item)))
    await microtasks()
    assert.deepEqual(outcomes, ['rejected odd 1', 'resolved even 2', 'rejected odd 3'])
  })

  test('caller-defined: a run that throws fails only the items it had not answered; the first answer counts', async () => {
    const batcher = new Batcher<number, number>({
      inFlight: 1,
      largestBatch: 64,
      run: async (batch) => {
        batch[0]!.resolve(1)
        batch[0]!.reject(new Error('too late'))
        throw new Error('the rest fail')
      },
    })
    void batcher.submit(0)
    const outcomes = watch([1, 2].map((item) => batcher.submit(item)))
    await microtasks()
    assert.deepEqual(outcomes, ['resolved 1', 'rejected the rest fail'])
  })

  test('caller-defined: a run that throws before its first await fails its batch like one that rejects', async () => {
    const batcher = new Batcher<number, number>({
      inFlight: 1,
      largestBatch: 64,
      run: () => {
        throw new Error('thrown at once')
      },
    })
    await assert.rejects(batcher.submit(1), /thrown at once/)
    assert.equal(batcher.busy, false)
  })

  test('an item its batch never answers is failed when the batch ends, not left waiting', async () => {
    const batcher = new Batcher<number, number>({ inFlight: 1, largestBatch: 64, run: async () => {} })
    await assert.rejects(batcher.submit(1), /without answering/)
  })

  test('failQueued answers every waiting item with the error; the running batch goes on, and later items run', async () => {
    const held = heldBatches()
    const batcher = new Batcher({ inFlight: 1, largestBatch: 64, run: failAll(held.together) })
    const outcomes = watch([1, 2, 3].map((item) => batcher.submit(item)))
    batcher.failQueued(new Error('unavailable'))
    await microtasks()
    assert.deepEqual(outcomes, [undefined, 'rejected unavailable', 'rejected unavailable'])
    await held.answerNext()
    assert.deepEqual(outcomes, ['resolved 10', 'rejected unavailable', 'rejected unavailable'])
    assert.deepEqual(held.batches, [[1]])
    const after = batcher.submit(4)
    await held.answerNext()
    assert.equal(await after, 40)
  })
})
