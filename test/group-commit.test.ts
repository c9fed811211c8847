import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { sql } from 'kysely'
import type { IssuedMerchant } from '../src/app/merchants.ts'
import { startApp, type TestApp } from './support/app.ts'
import { xofBalance } from './support/ledger.ts'
import { recordPostgresStatements } from './support/postgres-statements.ts'
import { describeEachStore } from './support/stores.ts'
import { assertStoreConsistent } from './support/verify.ts'

/**
 * Group commit (SQLite): concurrent writes share one COMMIT, made durable by one sync of the WAL
 * (or fewer: commits made while a sync runs share the next), yet each request is answered as if it
 * had committed alone, after the sync. A command that fails fails alone; the others
 * of its group are written. One client at a time commits each write by itself, at once.
 * On PostgreSQL the initiations of one merchant and mode are grouped instead (they all wait for
 * the same counters' row lock): those that arrive while one of its transactions commits are made
 * together in the next, under the same rules; two merchants never share a transaction.
 */

const callbackUrl = 'http://127.0.0.1:9/callback'
const collect = (reference: string, amount = 5000, ending = '123') => ({
  amount,
  channel: 'orange-money',
  country: 'CI',
  customer: { phoneNumber: `+2250700000${ending}` },
  merchantReference: reference,
  callbackUrl,
})
const withdraw = (reference: string, amount: number) => ({
  amount,
  channel: 'mtn-momo',
  country: 'CI',
  customer: { phoneNumber: '+2250500000123' },
  merchantReference: reference,
  callbackUrl,
})

describeEachStore('group commit', (target) => {
  let app: TestApp
  let merchant: IssuedMerchant

  before(async () => {
    app = await startApp(target(), { environment: { RATE_LIMIT_PER_SECOND: '0' } })
    merchant = await app.createMerchant('Group commit')
  })
  after(() => app.close())

  test('40 concurrent writes with failures among them: each answered alone, the failed ones wrote nothing', async () => {
    const client = app.client(merchant.sandbox)
    await client.post('/api/v1/collect', collect('taken', 5000))
    const before = app.context.store.commitStatistics()
    const requests = Array.from({ length: 40 }, (_, i) => {
      if (i % 10 === 3) return client.post('/api/v1/collect', collect('taken', 7000)) // same reference, other body
      if (i % 10 === 7) return client.post('/api/v1/withdraw', withdraw(`too-much-${i}`, 40_000_000)) // over the balance
      return client.post('/api/v1/collect', collect(`group-${i}`))
    })
    const answers = await Promise.all(requests)
    const statuses = answers.map((answer) => answer.status)
    assert.equal(statuses.filter((status) => status === 409).length, 4, JSON.stringify(statuses))
    assert.equal(statuses.filter((status) => status === 422).length, 4, JSON.stringify(statuses))
    const created = answers.filter((answer) => answer.status === 200)
    assert.equal(created.length, 32)
    for (const answer of created) {
      const token = answer.body.data.collect.token
      const read = await client.get(`/api/v1/collect/${token}`)
      assert.equal(read.status, 200, `${token} was acknowledged, so it must be stored`)
      assert.equal(read.body.data.collect.status, 'succeeded')
    }
    const rows = await app.db
      .selectFrom('operations')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow()
    const withdraws = await app.db
      .selectFrom('operations')
      .select('id')
      .where('kind', '=', 'withdraw')
      .execute()
    assert.equal(withdraws.length, 0, 'a refused withdraw writes nothing')
    assert.ok(Number(rows.count) >= 33)
    const after = app.context.store.commitStatistics()
    if (app.context.store.name === 'sqlite') {
      assert.ok(before && after)
      const commits = after.commits - before.commits
      const transactions = after.transactions - before.transactions
      assert.ok(transactions >= 32, `${transactions} transactions`)
      assert.ok(
        commits < transactions,
        `${transactions} transactions in ${commits} commits: none were grouped`,
      )
      const syncs = after.syncs - before.syncs
      assert.ok(syncs >= 1 && syncs <= commits, `${commits} commits made durable by ${syncs} syncs`)
    } else {
      assert.equal(after, undefined)
      const grouped = app.context.merchantGroupCommit.statistics()
      assert.ok(grouped.writes >= 33, `${grouped.writes} writes committed through the merchant group commit`)
      assert.ok(
        grouped.transactions < grouped.writes,
        `${grouped.writes} writes in ${grouped.transactions} transactions: none were grouped`,
      )
      assert.ok(grouped.refusedInGroups > 0, 'no refusal came after other writes of its transaction')
    }
    await assertStoreConsistent(app)
  })

  test('one client at a time: every write commits by itself before it is answered', async () => {
    const client = app.client(merchant.sandbox)
    const before = app.context.store.commitStatistics()
    const groupedBefore = app.context.merchantGroupCommit.statistics()
    for (let i = 0; i < 10; i++) {
      const answer = await client.post('/api/v1/collect', collect(`alone-${i}`))
      assert.equal(answer.status, 200)
      if (app.context.store.name === 'postgres') {
        // A write that finds its merchant's queue idle runs at once, in a transaction of its own.
        const grouped = app.context.merchantGroupCommit.statistics()
        assert.deepEqual(
          [grouped.transactions - groupedBefore.transactions, grouped.writes - groupedBefore.writes],
          [i + 1, i + 1],
        )
      }
      const stats = app.context.store.commitStatistics()
      // Each answer came after its own COMMIT, and after the WAL's sync that made it durable: a
      // group of one, not held back for company.
      if (before && stats)
        assert.deepEqual(
          [
            stats.commits - before.commits,
            stats.transactions - before.transactions,
            stats.syncs - before.syncs,
          ],
          [i + 1, i + 1, i + 1],
        )
    }
  })

  test('PostgreSQL: one merchant’s concurrent initiations share transactions, two merchants never do', async (t) => {
    if (app.context.store.name !== 'postgres') return t.skip('SQLite groups every transaction of the process')
    const other = await app.createMerchant('Group commit, other')
    const clients = [app.client(merchant.sandbox), app.client(other.sandbox)]
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => clients[i % 2]!.post('/api/v1/collect', collect(`lane-${i}`))),
    )
    assert.deepEqual(new Set(answers.map((answer) => answer.status)), new Set([200]))
    // Rows written by one transaction carry its id in xmin.
    const rows = await app.db
      .selectFrom('operations')
      .select(['merchant_id', 'position', 'initiated_at_us', sql<string>`xmin::text`.as('transaction')])
      .where('merchant_reference', 'like', 'lane-%')
      .orderBy('position')
      .execute()
    assert.equal(rows.length, 40)
    const merchantsOf = new Map<string, Set<string>>()
    for (const row of rows)
      merchantsOf.set(row.transaction, (merchantsOf.get(row.transaction) ?? new Set()).add(row.merchant_id))
    for (const [transaction, merchants] of merchantsOf)
      assert.equal(merchants.size, 1, `transaction ${transaction} wrote operations of two merchants`)
    assert.ok(merchantsOf.size < 40, `40 initiations in ${merchantsOf.size} transactions: none were grouped`)
    for (const id of [merchant.id, other.id]) {
      const own = rows.filter((row) => row.merchant_id === id)
      const first = own[0]!.position
      assert.deepEqual(
        own.map((row) => row.position),
        own.map((_, i) => first + i),
        'positions stay dense within a group',
      )
      for (let i = 1; i < own.length; i++)
        assert.ok(own[i]!.initiated_at_us >= own[i - 1]!.initiated_at_us, 'list order and date order agree')
    }
    await assertStoreConsistent(app)
  })

  test('PostgreSQL: in a merchant’s group, each opening after the first is one round trip', async (t) => {
    if (app.context.store.name !== 'postgres') return t.skip('SQLite sends no statement over a network')
    const client = app.client(merchant.sandbox)
    // Credentials and fee rules read once, before the count.
    await client.post('/api/v1/collect', collect('round-trips-warm'))
    const sent = recordPostgresStatements()
    const before = app.context.merchantGroupCommit.statistics()
    try {
      const answers = await Promise.all(
        Array.from({ length: 32 }, (_, i) => client.post('/api/v1/collect', collect(`round-trips-${i}`))),
      )
      assert.deepEqual(new Set(answers.map((answer) => answer.status)), new Set([200]))
    } finally {
      sent.stop()
    }
    // A cache kept 500 ms (credentials, fee rules) may be read again during the burst on a slow
    // machine: those reads are no part of any opening's transaction.
    const cacheReads = /from "(api_keys|merchants|fee_schedule|channel_routes|webhook_secrets)"/
    const statements = sent.texts.filter((text) => !cacheReads.test(text)).length
    const grouped = app.context.merchantGroupCommit.statistics()
    const transactions = grouped.transactions - before.transactions
    const writes = grouped.writes - before.writes
    assert.ok(transactions < writes, `32 collects in ${transactions} transactions: none were grouped`)
    // A transaction alone is 6 (begin, the position, the operation, the balance, the held writes,
    // commit); each later opening adds its operation's insert, which carries its other writes.
    assert.equal(
      statements,
      6 * transactions + (writes - transactions),
      `${statements} statements for ${writes} collects in ${transactions} transactions`,
    )
  })

  test('one merchant’s collects and withdrawals at once: every balance after follows from the one before, refusals write nothing', async () => {
    // Within a group's transaction the balance row stays locked, so after its first change the
    // rest are counted in the process (src/store/repositories/ledger.ts): the rows must say
    // exactly what one statement per change would have made them say.
    const { id, sandbox } = await app.createMerchant('Group commit, balances')
    const client = app.client(sandbox)
    const { posted } = await xofBalance(app, id)
    // Leaves room for a few withdrawals, so that some of those racing the collects are refused.
    const drain = await client.post(
      '/api/v1/withdraw',
      withdraw('drain', Math.floor((posted - 20_000) / 1.005)),
    )
    assert.equal(drain.status, 200, drain.text)
    const answers = await Promise.all(
      Array.from({ length: 48 }, (_, i) =>
        i % 2 === 0
          ? client.post('/api/v1/collect', collect(`credit-${i}`, 3000))
          : client.post('/api/v1/withdraw', withdraw(`debit-${i}`, 4000)),
      ),
    )
    const refused = answers.filter((answer) => answer.status !== 200)
    for (const answer of refused) {
      assert.equal(answer.body.code, 'insufficient_balance', answer.text)
      // What it names as available is what was left when its turn came: less than it needed.
      const available = Number(/balance \((\d+)\)/.exec(answer.body.message)?.[1])
      assert.ok(available >= 0 && available < 4020, answer.text)
    }
    assert.ok(refused.length > 0 && refused.length < 24, `${refused.length} of 24 withdrawals refused`)

    const entries = await app.db
      .selectFrom('ledger_entries')
      .select(['type', 'status', 'amount_minor', 'balance_after_minor', 'reference'])
      .where('merchant_id', '=', id)
      .where('mode', '=', 'sandbox')
      .where('currency', '=', 'XOF')
      .orderBy('sequence')
      .execute()
    let balance = 0
    for (const entry of entries) {
      assert.equal(entry.status, 'succeeded', entry.reference)
      balance += entry.type === 'cash-in' ? entry.amount_minor : -entry.amount_minor
      assert.equal(entry.balance_after_minor, balance, entry.reference)
    }
    assert.equal(
      entries.length,
      2 + answers.length - refused.length,
      'one entry per operation that moved money',
    )
    assert.deepEqual(await xofBalance(app, id), { posted: balance, held: 0 })
    if (app.context.store.name === 'postgres') {
      const transactions = await app.db
        .selectFrom('operations')
        .select(sql<string>`xmin::text`.as('transaction'))
        .where('merchant_id', '=', id)
        .where('merchant_reference', 'like', 'credit-%')
        .execute()
      const distinct = new Set(transactions.map((row) => row.transaction)).size
      assert.ok(
        distinct < transactions.length,
        `${transactions.length} collects in ${distinct} transactions: none were grouped`,
      )
    }
    await assertStoreConsistent(app)
  })
})
