import assert from 'node:assert/strict'
import { test } from 'node:test'
import { PasswordWork } from '../../src/app/mechanisms/password-work.ts'

/**
 * The instance's line of argon2 work (app/mechanisms/password-work.ts): so many run at once, so
 * many wait in order, each address holds at most its share of places, and the rest are refused at
 * once rather than queued.
 */

/** Work that runs until `finish` is called, and says when it started. */
function held() {
  let finish: () => void = () => {}
  let started = false
  const done = new Promise<void>((resolve) => {
    finish = resolve
  })
  return {
    work: async () => {
      started = true
      await done
      return 'hashed'
    },
    finish: () => finish(),
    started: () => started,
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve))

test('one runs at a time, the next waits its turn in order, and a full line refuses at once', async () => {
  const line = new PasswordWork({ running: 1, waiting: 2, perAddress: 5 })
  const [a, b, c] = [held(), held(), held()]
  const turns = ['198.51.100.1', '198.51.100.2', '198.51.100.3'].map((address) => line.take(address))
  assert.ok(turns.every((turn) => turn !== undefined))
  assert.equal(line.take('198.51.100.4'), undefined, 'one running and two waiting: the line is full')
  const runs = [a, b, c].map((work, index) =>
    turns[index]?.run(work.work).finally(() => turns[index]?.release()),
  )
  await tick()
  assert.deepEqual([a.started(), b.started(), c.started()], [true, false, false])
  a.finish()
  await tick()
  assert.deepEqual([b.started(), c.started()], [true, false], 'the next in order')
  assert.ok(line.take('198.51.100.4'), 'a place is free again')
  b.finish()
  c.finish()
  assert.deepEqual(await Promise.all(runs), ['hashed', 'hashed', 'hashed'])
})

test('an address holds at most its share of the places; a released place is its own again', () => {
  const line = new PasswordWork({ running: 1, waiting: 16, perAddress: 2 })
  const first = line.take('203.0.113.7')
  const second = line.take('203.0.113.7')
  assert.ok(first && second)
  assert.equal(line.take('203.0.113.7'), undefined, 'the address has its two places')
  assert.ok(line.take('203.0.113.8'), 'another address is served')
  first.release()
  first.release()
  assert.ok(line.take('203.0.113.7'), 'released once, however often it is called')
  assert.equal(line.take('203.0.113.7'), undefined)
})

test('work that fails passes the turn on', async () => {
  const line = new PasswordWork({ running: 1, waiting: 1, perAddress: 2 })
  const [failing, next] = [line.take('192.0.2.1'), line.take('192.0.2.1')]
  assert.ok(failing && next)
  const failed = failing.run(async () => {
    throw new Error('argon2 failed')
  })
  const after = next.run(async () => 'hashed')
  await assert.rejects(failed, /argon2 failed/)
  assert.equal(await after, 'hashed')
})
