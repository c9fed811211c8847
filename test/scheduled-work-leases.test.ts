import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { manualClock, startApp, type TestApp } from './support/app.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * The leases of scheduled work (store/repositories/scheduled-work.ts), on real rows: a claim
 * leases each item to one owner; a failed item's lease ends at once, due again when told;
 * leases an owner took without holding the items end together; completions go in one statement.
 */

const delayMs = 400
const leaseMs = 60_000

describeEachStore('scheduled work leases', (store) => {
  let app: TestApp
  const clock = manualClock()

  before(async () => {
    app = await startApp(store(), { clock, environment: { SANDBOX_DELAY_MS: String(delayMs) } })
  })
  after(() => app.close())

  /** A sandbox collect that settles by a poll `delayMs` later: its poll is scheduled work. */
  async function pendingCollect(reference: string): Promise<void> {
    const merchant = await app.createMerchant()
    const response = await app.client(merchant.sandbox).post('/api/v1/collect', {
      amount: 1000,
      channel: 'orange-money',
      country: 'CI',
      customer: { phoneNumber: '+2250700000900' },
      merchantReference: reference,
      callbackUrl: 'http://127.0.0.1:9/callbacks',
    })
    assert.equal(response.status, 200, response.text)
  }

  const work = () => app.context.store.scheduledWork
  const polls = <T extends { kind: string }>(claimed: T[]) => claimed.filter((item) => item.kind === 'poll')

  test('a released item is due again when told, for any owner; until then nobody claims it', async () => {
    await pendingCollect('released')
    clock.advance(delayMs + 1)
    const [claimed] = polls(await work().claimDue('a', clock.nowUs(), leaseMs, 10))
    assert.ok(claimed, 'the poll is due and claimed')
    assert.deepEqual(polls(await work().claimDue('b', clock.nowUs(), leaseMs, 10)), [], 'leased to a')
    await work().release(claimed.id, 'b', clock.nowUs())
    assert.deepEqual(
      polls(await work().claimDue('b', clock.nowUs(), leaseMs, 10)),
      [],
      'only a may release it',
    )
    await work().release(claimed.id, 'a', clock.nowUs() + 1_000_000)
    assert.deepEqual(polls(await work().claimDue('b', clock.nowUs(), leaseMs, 10)), [], 'due in a second')
    clock.advance(1_001)
    const [again] = polls(await work().claimDue('b', clock.nowUs(), leaseMs, 10))
    assert.equal(again?.id, claimed.id, 'due again, long before the lease would have run out')
    assert.equal(again?.attempts, 2)
    await work().complete([again!.id], 'b', clock.nowUs())
  })

  test('the leases an owner does not hold end together; completions in one statement', async () => {
    await pendingCollect('unheld-1')
    await pendingCollect('unheld-2')
    await pendingCollect('unheld-3')
    clock.advance(delayMs + 1)
    const claimed = polls(await work().claimDue('c', clock.nowUs(), leaseMs, 10))
    assert.equal(claimed.length, 3)
    const [held, ...lost] = claimed
    await work().releaseUnheld('c', [held!.id])
    const retaken = polls(await work().claimDue('d', clock.nowUs(), leaseMs, 10))
    assert.deepEqual(
      retaken.map((item) => item.id).sort(),
      lost.map((item) => item.id).sort(),
      'every lease of c but the one it holds ended at once',
    )
    await work().complete([held!.id, ...retaken.map((item) => item.id)], 'd', clock.nowUs())
    const rows = await app.db
      .selectFrom('scheduled_work')
      .select(['id', 'done_at_us'])
      .where(
        'id',
        'in',
        claimed.map((item) => item.id),
      )
      .execute()
    const done = new Map(rows.map((row) => [row.id, row.done_at_us]))
    assert.equal(done.get(held!.id), null, 'still c’s: d cannot complete it')
    for (const item of lost) assert.notEqual(done.get(item.id), null)
  })
})
