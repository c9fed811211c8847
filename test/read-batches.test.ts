import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { ReadBatches } from '../src/store/read-batches.ts'

/** A statement that answers when the test says so, keeping the keys of every batch it was sent. */
function heldStatements() {
  const batches: number[][] = []
  const pending: { settle(error?: Error): void }[] = []
  return {
    batches,
    readAll(keys: readonly number[]): Promise<string[]> {
      batches.push([...keys])
      return new Promise((resolve, reject) => {
        pending.push({
          settle: (error) => (error ? reject(error) : resolve(keys.map((key) => `row ${key}`))),
        })
      })
    },
    /** Answers the oldest statement still running (or fails it). */
    async answerNext(error?: Error) {
      pending.shift()!.settle(error)
      // Lets the answers and the next statement's sending run.
      await new Promise((resolve) => setImmediate(resolve))
    },
  }
}

describe('Point reads sent together when they queue', () => {
  test('reads made while fewer than the limit run go at once, each alone', async () => {
    const statements = heldStatements()
    const reads = new ReadBatches(statements.readAll, 2, 64)
    const first = reads.read(1)
    const second = reads.read(2)
    assert.deepEqual(statements.batches, [[1], [2]])
    await statements.answerNext()
    await statements.answerNext()
    assert.deepEqual(await Promise.all([first, second]), ['row 1', 'row 2'])
  })

  test('reads made while the limit runs wait, then go as one statement, each getting its own row', async () => {
    const statements = heldStatements()
    const reads = new ReadBatches(statements.readAll, 1, 64)
    const all = [1, 2, 3, 4].map((key) => reads.read(key))
    assert.deepEqual(statements.batches, [[1]], 'the others wait for the one running')
    await statements.answerNext()
    assert.deepEqual(statements.batches, [[1], [2, 3, 4]])
    await statements.answerNext()
    assert.deepEqual(await Promise.all(all), ['row 1', 'row 2', 'row 3', 'row 4'])
  })

  test('a batch holds at most the largest number of reads; the rest go next', async () => {
    const statements = heldStatements()
    const reads = new ReadBatches(statements.readAll, 1, 2)
    const all = [1, 2, 3, 4, 5].map((key) => reads.read(key))
    await statements.answerNext()
    await statements.answerNext()
    await statements.answerNext()
    assert.deepEqual(statements.batches, [[1], [2, 3], [4, 5]])
    assert.deepEqual(await Promise.all(all), ['row 1', 'row 2', 'row 3', 'row 4', 'row 5'])
  })

  test('a failed statement fails each of its reads, and the reads after it still go', async () => {
    const statements = heldStatements()
    const reads = new ReadBatches(statements.readAll, 1, 64)
    const first = reads.read(1)
    // Each read's verdict is awaited from the start, as a caller awaits it.
    const queued = [2, 3, 4].map((key) => assert.rejects(reads.read(key), /cannot answer/))
    await statements.answerNext()
    assert.equal(await first, 'row 1')
    await statements.answerNext(new Error('the database cannot answer'))
    await Promise.all(queued)
    assert.deepEqual(statements.batches, [[1], [2, 3, 4]])
    const afterwards = reads.read(5)
    assert.deepEqual(statements.batches.at(-1), [5], 'nothing runs: the next read goes at once')
    await statements.answerNext()
    assert.equal(await afterwards, 'row 5')
  })
})
