import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { IssuedMerchant } from '../../src/app/merchants.ts'
import { type ApiClient, manualClock, startApp, type TestApp } from '../support/app.ts'
import { entriesOfOperation, holdsOf, postingsOf, readLedgerEntries, xofBalance } from '../support/ledger.ts'
import { type Receiver, startReceiver } from '../support/receiver.ts'
import { postSignedNotification, sandboxNotification } from '../support/sandbox-notifications.ts'
import { describeEachStore } from '../support/stores.ts'

// CONTRACT.md, Statuses: pending moves once, to one final status. Two transitions racing for one
// operation: exactly one wins, one final event is written, and the money moves once.
const delayMs = 5_000
const ttlMs = 15 * 60_000
const rounds = 5
const unusedCallback = 'http://127.0.0.1:9/unused'

type Kind = 'collect' | 'disbursement'
type Racer = { notify: 'SUCCESSFUL' | 'FAILED' | 'REJECTED' | 'ERROR' } | { worker: 'poll' | 'expiry' }

const scenarios: { kind: Kind; ending: string; racers: [Racer, Racer]; possible: string[] }[] = [
  {
    kind: 'collect',
    ending: '906',
    racers: [{ notify: 'SUCCESSFUL' }, { notify: 'REJECTED' }],
    possible: ['succeeded', 'canceled'],
  },
  {
    kind: 'disbursement',
    ending: '906',
    racers: [{ notify: 'SUCCESSFUL' }, { notify: 'FAILED' }],
    possible: ['succeeded', 'failed'],
  },
  {
    kind: 'collect',
    ending: '905',
    racers: [{ notify: 'SUCCESSFUL' }, { worker: 'expiry' }],
    possible: ['succeeded', 'canceled'],
  },
  {
    kind: 'disbursement',
    ending: '905',
    racers: [{ notify: 'SUCCESSFUL' }, { worker: 'expiry' }],
    possible: ['succeeded', 'canceled'],
  },
  {
    kind: 'collect',
    ending: '900',
    racers: [{ notify: 'REJECTED' }, { worker: 'poll' }],
    possible: ['canceled', 'succeeded'],
  },
  {
    kind: 'disbursement',
    ending: '900',
    racers: [{ notify: 'ERROR' }, { worker: 'poll' }],
    possible: ['error', 'succeeded'],
  },
  {
    kind: 'collect',
    ending: '906',
    racers: [{ notify: 'SUCCESSFUL' }, { notify: 'SUCCESSFUL' }],
    possible: ['succeeded'],
  },
]

const describeRacer = (racer: Racer) =>
  'notify' in racer ? `notification ${racer.notify}` : `the ${racer.worker}`

describeEachStore('racing transitions of one operation', (store) => {
  let app: TestApp
  let clock: ReturnType<typeof manualClock>
  let sequence = 0

  before(async () => {
    clock = manualClock(Date.now() * 1000)
    app = await startApp(store(), {
      clock,
      workers: 'manual',
      environment: { SANDBOX_DELAY_MS: String(delayMs), OPERATION_TTL: String(ttlMs) },
    })
  })
  after(() => app.close())

  /** A signed notification: answered 200, and the answer names nothing of the operation. */
  async function notify(token: string, wire: string) {
    const response = await postSignedNotification(app, sandboxNotification(token, wire))
    assert.equal(response.status, 200, response.text)
    assert.deepEqual(response.body, { received: true })
  }

  /** Runs one racer: a notification, or a pass of the workers. */
  async function run(racer: Racer, token: string): Promise<void> {
    if ('notify' in racer) await notify(token, racer.notify)
    else await app.workers.runDue()
  }

  async function finalEvents(token: string) {
    return app.db
      .selectFrom('events')
      .innerJoin('operations', 'operations.id', 'events.operation_id')
      .select('events.type')
      .where('operations.token', '=', token)
      .where('events.type', 'not like', '%.pending')
      .execute()
  }

  /** CONTRACT.md: the sum of postings always equals the balances. */
  async function assertBalanceMatchesLedger(merchant: IssuedMerchant) {
    const entries = (await readLedgerEntries(app, merchant.id)).filter(
      (entry) => entry.mode === 'sandbox' && entry.currency === 'XOF',
    )
    assert.deepEqual(await xofBalance(app, merchant.id), {
      posted: postingsOf(entries),
      held: holdsOf(entries),
    })
  }

  for (const scenario of scenarios) {
    const title = scenario.racers.map(describeRacer).join(' against ')
    test(`${scenario.kind} ending ${scenario.ending}: ${title}: exactly one wins, ${rounds} rounds`, async () => {
      const merchant = await app.createMerchant('Racing merchant')
      const client: ApiClient = app.client(merchant.sandbox)
      for (let round = 0; round < rounds; round++) {
        const created = await client.post(`/api/v1/${scenario.kind}`, {
          amount: 10_000,
          channel: 'orange-money',
          country: 'CI',
          customer: { phoneNumber: `+2250702${String(sequence % 1000).padStart(3, '0')}${scenario.ending}` },
          merchantReference: `race-${sequence++}`,
          callbackUrl: unusedCallback,
        })
        assert.equal(created.status, 200, created.text)
        const record = created.body.data[scenario.kind]
        assert.equal(record.status, 'pending')
        if (scenario.racers.some((racer) => 'worker' in racer && racer.worker === 'poll'))
          clock.advance(delayMs + 100)
        if (scenario.racers.some((racer) => 'worker' in racer && racer.worker === 'expiry'))
          clock.advance(ttlMs + 1_000)

        // Alternate who starts first: SQLite serialises the two, so both orders get their turn.
        const racers = round % 2 === 0 ? scenario.racers : [...scenario.racers].reverse()
        await Promise.all(racers.map((racer) => run(racer, record.token)))
        const final = (await client.get(`/api/v1/${scenario.kind}/${record.token}`)).body.data[scenario.kind]
        assert.ok(scenario.possible.includes(final.status), `${final.status} is one of ${scenario.possible}`)

        const events = await finalEvents(record.token)
        assert.deepEqual(
          events.map((event) => event.type),
          [`${scenario.kind}.${final.status}`],
          'exactly one final event',
        )
        const moved = (await entriesOfOperation(app, record.token)).map(
          (entry) => `${entry.type}:${entry.status}`,
        )
        if (scenario.kind === 'collect') {
          assert.deepEqual(
            moved,
            final.status === 'succeeded' ? ['cash-in:succeeded'] : [],
            'credited once at most',
          )
        } else {
          assert.deepEqual(
            moved,
            [final.status === 'succeeded' ? 'cash-out:succeeded' : 'cash-out:canceled'],
            'the hold is posted xor released',
          )
        }
      }
      await assertBalanceMatchesLedger(merchant)
    })
  }

  test('a burst of eight mixed notifications for one disbursement: one final event, the hold resolved once', async () => {
    const merchant = await app.createMerchant('Burst merchant')
    const client = app.client(merchant.sandbox)
    const wires = ['SUCCESSFUL', 'FAILED', 'REJECTED', 'ERROR'] as const
    for (let round = 0; round < 3; round++) {
      const created = await client.post('/api/v1/disbursement', {
        amount: 10_000,
        channel: 'orange-money',
        country: 'CI',
        customer: { phoneNumber: `+2250704${String(round).padStart(3, '0')}906` },
        merchantReference: `burst-${sequence++}`,
        callbackUrl: unusedCallback,
      })
      assert.equal(created.status, 200, created.text)
      const token = created.body.data.disbursement.token
      await Promise.all(
        Array.from({ length: 8 }, (_, index) => notify(token, wires[(index + round) % wires.length]!)),
      )
      const final = (await client.get(`/api/v1/disbursement/${token}`)).body.data.disbursement
      assert.notEqual(final.status, 'pending', 'one of them settled it')
      assert.deepEqual(
        (await finalEvents(token)).map((event) => event.type),
        [`disbursement.${final.status}`],
      )
      assert.deepEqual(
        (await entriesOfOperation(app, token)).map((entry) => `${entry.type}:${entry.status}`),
        [final.status === 'succeeded' ? 'cash-out:succeeded' : 'cash-out:canceled'],
      )
    }
    await assertBalanceMatchesLedger(merchant)
  })
})

describeEachStore('two instances sharing one store', (store) => {
  let first: TestApp
  let second: TestApp
  let receiver: Receiver
  let clock: ReturnType<typeof manualClock>

  before(async () => {
    receiver = await startReceiver()
    clock = manualClock(Date.now() * 1000)
    const environment = { SANDBOX_DELAY_MS: String(delayMs), OPERATION_TTL: String(ttlMs) }
    first = await startApp(store(), { clock, workers: 'manual', environment })
    second = await startApp(store(), { clock, workers: 'manual', environment })
  })
  after(async () => {
    await first.close()
    await second.close()
    await receiver.close()
  })

  async function runBothUntilIdle() {
    for (let round = 0; round < 20; round++) {
      const handled = await Promise.all([first.workers.runDue(), second.workers.runDue()])
      if (handled[0] + handled[1] === 0) return
    }
    assert.fail('the workers still had work after 20 rounds')
  }

  test('running their workers at the same time delivers every event exactly once, and settles each operation once', async () => {
    const merchant = await first.createMerchant('Shared merchant')
    const clients = [first.client(merchant.sandbox), second.client(merchant.sandbox)]
    const path = '/shared'
    const tokens: string[] = []
    for (let index = 0; index < 24; index++) {
      // Half settle at once (two events each), half after the delay (900), through either instance.
      const response = await clients[index % 2]!.post('/api/v1/collect', {
        amount: 10_000,
        channel: 'orange-money',
        country: 'CI',
        customer: {
          phoneNumber: `+2250703${String(index).padStart(3, '0')}${index % 2 === 0 ? '001' : '900'}`,
        },
        merchantReference: `shared-${index}`,
        callbackUrl: receiver.url(path),
      })
      assert.equal(response.status, 200, response.text)
      tokens.push(response.body.data.collect.token)
    }
    await runBothUntilIdle()
    clock.advance(delayMs + 100)
    await runBothUntilIdle()

    const db = first.db
    const events = await db
      .selectFrom('events')
      .select(['id', 'type', 'delivery_status', 'attempts'])
      .where('merchant_id', '=', merchant.id)
      .where('callback_url', 'is not', null)
      .execute()
    assert.equal(events.length, tokens.length * 2, 'pending and succeeded for each operation')
    assert.ok(events.every((event) => event.delivery_status === 'delivered' && event.attempts === 1))

    const seen = new Map<string, number>()
    for (const request of receiver.requestsTo(path)) {
      const id = String(request.headers['webhook-id'])
      seen.set(id, (seen.get(id) ?? 0) + 1)
    }
    const duplicated = [...seen].filter(([, count]) => count > 1)
    assert.deepEqual(duplicated, [], 'no webhook-id arrives twice')
    assert.deepEqual([...seen.keys()].sort(), events.map((event) => event.id).sort())

    const attempts = await db
      .selectFrom('event_attempts')
      .select('event_id')
      .where(
        'event_id',
        'in',
        events.map((event) => event.id),
      )
      .execute()
    assert.equal(attempts.length, events.length, 'one attempt row per event')

    for (const token of tokens) {
      const details = await clients[0]!.get(`/api/v1/collect/${token}`)
      assert.equal(details.body.data.collect.status, 'succeeded')
    }
    const credits = await db
      .selectFrom('ledger_entries')
      .select('operation_id')
      .where('merchant_id', '=', merchant.id)
      .where('mode', '=', 'sandbox')
      .where('operation_kind', '=', 'collect')
      .where('type', '=', 'cash-in')
      .execute()
    assert.equal(credits.length, tokens.length, 'each collect credited once')
    assert.equal(new Set(credits.map((credit) => credit.operation_id)).size, tokens.length)
  })
})
