import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { sql } from 'kysely'
import type { IssuedMerchant } from '../../src/app/merchants.ts'
import { startApp, type TestApp } from '../support/app.ts'
import { sandboxPhone } from '../support/sandbox-requests.ts'
import { describeEachStore } from '../support/stores.ts'

/**
 * An endpoint that takes nothing (silent, or its circuit open) has its due backlog given later
 * turns in one statement a chunk (`OutboxRepository.park`), instead of each event being claimed
 * and given back. Only that endpoint's events of that merchant and mode, none held by a claim,
 * none already attempted, in due order; never another endpoint's whose URL merely starts the
 * same, nor another merchant's to the same endpoint.
 */
describeEachStore('parking an endpoint’s due callbacks', (target) => {
  let app: TestApp
  let merchant: IssuedMerchant
  let another: IssuedMerchant
  let sequence = 0

  before(async () => {
    app = await startApp(target())
    merchant = await app.createMerchant('Parked endpoint')
    another = await app.createMerchant('Same endpoint, another merchant')
  })
  after(() => app.close())

  /** The merchant's sandbox events to `endpoint`: what a park moves. */
  const parkTarget = (endpoint: string) => ({ mode: 'sandbox' as const, merchantId: merchant.id, endpoint })

  /** A collect that succeeds at once: two events (pending, succeeded), both due now. */
  async function collectTo(callbackUrl: string, by = merchant): Promise<number> {
    const response = await app.client(by.sandbox).post('/api/v1/collect', {
      amount: 1000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: sandboxPhone('001') },
      merchantReference: `park-${sequence++}`,
      callbackUrl,
    })
    assert.equal(response.status, 200, response.text)
    const operation = await app.context.store.operations.findByToken(
      by.id,
      'sandbox',
      response.body.data.collect.token,
    )
    return operation!.id
  }

  function eventsOf(operationIds: number[]) {
    return app.db
      .selectFrom('events')
      .select(['id', 'operation_id', 'position', 'next_attempt_at_us', 'lease_owner', 'attempts'])
      .where('operation_id', 'in', operationIds)
      .orderBy('position')
      .execute()
  }

  test('the endpoint’s due, unclaimed, never-attempted events get turns from fromUs, one a step, in due order; a limit parks the first; nothing else moves', async () => {
    const endpoint = 'http://127.0.0.1:7'
    const parkedOnes = [
      await collectTo(`${endpoint}/a`),
      await collectTo(`${endpoint}?x=1`),
      await collectTo(`${endpoint}/b`),
    ]
    const otherPort = await collectTo('http://127.0.0.1:70/a')
    const otherMerchant = await collectTo(`${endpoint}/a`, another)
    const claimedOne = await collectTo(`${endpoint}/claimed`)
    const attemptedOne = await collectTo(`${endpoint}/attempted`)
    const store = app.context.store
    const nowUs = app.context.clock.nowUs()
    const [claimed] = await store.outbox.claimDue('another-instance', nowUs, 30_000, 1, {
      operationId: claimedOne,
      payoutBatchId: null,
    })
    assert.ok(claimed, 'one event claimed by another instance')
    // Set-up only: an event whose first attempt failed waits for its retry, on CONTRACT.md's schedule.
    await app.db.updateTable('events').set({ attempts: 1 }).where('operation_id', '=', attemptedOne).execute()
    const stays = async () =>
      (await eventsOf([otherPort, otherMerchant, claimedOne, attemptedOne])).filter(
        (event) => event.operation_id !== claimedOne || event.id === claimed.id,
      )
    const untouched = await stays()

    const turn = { fromUs: nowUs + 1_000_000, stepUs: 1_000, holdUs: 300_000_000 }
    // Created now: a hold of 1 µs past creation would already be exceeded at fromUs.
    const target = parkTarget(endpoint)
    assert.equal(await store.outbox.park(target, nowUs, { ...turn, holdUs: 1 }, 256), 0)
    assert.equal(await store.outbox.park(target, nowUs, turn, 2), 2)
    const rest = { ...turn, fromUs: turn.fromUs + 2 * turn.stepUs }
    // The four left of those three, and the claimed one's later event: nobody holds it.
    assert.equal(await store.outbox.park(target, nowUs, rest, 256), 5)
    assert.equal(await store.outbox.park(target, nowUs, rest, 256), 0)
    assert.equal(await store.outbox.park({ ...target, mode: 'live' }, nowUs, rest, 256), 0)

    // Two events an operation, created one after the other: due order is position order here.
    const parked = (await eventsOf([...parkedOnes, claimedOne])).filter((event) => event.id !== claimed.id)
    assert.equal(parked.length, 7)
    assert.deepEqual(
      parked.map((event) => Number(event.next_attempt_at_us)),
      parked.map((_, rank) => turn.fromUs + rank * turn.stepUs),
    )
    assert.ok(parked.every((event) => event.lease_owner === null && event.attempts === 0))
    assert.deepEqual(await stays(), untouched)
    const due = await store.outbox.claimDue('this-instance', nowUs, 30_000, 100)
    assert.ok(
      due.every((event) => !parkedOnes.includes(event.operationId)),
      'parked events are not due before their turn',
    )
    assert.ok(
      due.some((event) => event.operationId === otherPort),
      'the other port’s events still are',
    )
    assert.ok(
      due.some((event) => event.operationId === otherMerchant),
      'and another merchant’s to the same endpoint',
    )
  })

  test('a backlog longer than one SQLite statement’s 256 is parked in due order across its statements', async () => {
    const endpoint = 'http://127.0.0.1:9'
    const operations: number[] = []
    for (let i = 0; i < 150; i++) operations.push(await collectTo(`${endpoint}/many`))
    const nowUs = app.context.clock.nowUs()
    const turn = { fromUs: nowUs + 1_000_000, stepUs: 1_000, holdUs: 300_000_000 }
    assert.equal(await app.context.store.outbox.park(parkTarget(endpoint), nowUs, turn, 4_096), 300)
    const parked = await eventsOf(operations)
    assert.deepEqual(
      parked.map((event) => Number(event.next_attempt_at_us)),
      parked.map((_, rank) => turn.fromUs + rank * turn.stepUs),
      'one step apart, the 257th right after the 256th',
    )
  })

  test('a park does not wait for an event another transaction holds: it parks the others', async (t) => {
    if (target().name !== 'postgres') return t.skip('row locks: SQLite has one writer at a time')
    const endpoint = 'http://127.0.0.1:8'
    const operations = [await collectTo(`${endpoint}/x`), await collectTo(`${endpoint}/y`)]
    const [held, ...others] = await eventsOf(operations)
    const nowUs = app.context.clock.nowUs()
    const turn = { fromUs: nowUs + 1_000_000, stepUs: 1_000, holdUs: 300_000_000 }
    const parked = await app.db.transaction().execute(async (trx) => {
      // As a give-back does: it holds an event while it waits for another statement.
      await sql`select id from events where id = ${held!.id} for update`.execute(trx)
      return app.context.store.outbox.park(parkTarget(endpoint), nowUs, turn, 256)
    })
    assert.equal(parked, 3)
    const after = await eventsOf(operations)
    assert.equal(after.find((event) => event.id === held!.id)!.next_attempt_at_us, held!.next_attempt_at_us)
    assert.equal(others.length, 3)
  })
})
