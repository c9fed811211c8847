import assert from 'node:assert/strict'
import { test } from 'node:test'
import { PayoutBatchLine } from '../src/app/mechanisms/payout-batch-line.ts'
import { ApiError } from '../src/errors.ts'

/** The mechanism behind a merchant's batches accepted one at a time (test/payout-batch-fairness.test.ts measures it). */

const merchant = { merchantId: 'mer_a', mode: 'sandbox' }

test('a merchant’s batches are accepted one at a time, in the order they came', async () => {
  const line = new PayoutBatchLine(4)
  const order: string[] = []
  const accept = async (name: string, ms: number) => {
    const release = await line.enter(merchant)
    order.push(`${name} starts`)
    await new Promise((resolve) => setTimeout(resolve, ms))
    order.push(`${name} ends`)
    release()
    release()
  }
  await Promise.all([accept('first', 20), accept('second', 5), accept('third', 1)])
  assert.deepEqual(order, [
    'first starts',
    'first ends',
    'second starts',
    'second ends',
    'third starts',
    'third ends',
  ])
})

test('another merchant, or the other mode, never waits in the line', async () => {
  const line = new PayoutBatchLine(4)
  const held = await line.enter(merchant)
  const other = await line.enter({ merchantId: 'mer_b', mode: 'sandbox' })
  const live = await line.enter({ merchantId: 'mer_a', mode: 'live' })
  other()
  live()
  held()
})

test('past the batches allowed to wait, one is refused at once: 429 rate_limited with Retry-After', async () => {
  const line = new PayoutBatchLine(2)
  const release = await line.enter(merchant)
  const waiting = [line.enter(merchant), line.enter(merchant)]
  await assert.rejects(line.enter(merchant), (error) => {
    assert.ok(error instanceof ApiError)
    assert.equal(error.code, 'rate_limited')
    assert.equal(error.status, 429)
    assert.equal(error.headers?.['retry-after'], '1')
    assert.match(error.message, /payout batches/)
    return true
  })
  release()
  ;(await waiting[0]!)()
  ;(await waiting[1]!)()
  // The line is empty again: the next one starts at once.
  ;(await line.enter(merchant))()
})
