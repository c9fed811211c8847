import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { CompiledQuery, type Kysely } from 'kysely'
import { parseDatabaseLocation } from '../src/store/database-location.ts'
import { openStore, rawDatabase, type Store } from '../src/store/store.ts'
import { markWriteOnly } from '../src/store/write-only.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * A statement whose result nobody reads is held on PostgreSQL and goes out with the next
 * statement that needs an answer (as its WITH items), or on its own before anything that names
 * its table, or before COMMIT (src/store/postgres-driver.ts). Whichever way it goes, the
 * transaction must read and commit exactly what it would have sent one statement at a time.
 */
describeEachStore('writes held for a later statement', (target) => {
  let store: Store
  // Two scratch tables of this test, outside the schema.
  let db: Kysely<any>

  before(async () => {
    store = openStore(parseDatabaseLocation(target().databaseUrl))
    db = rawDatabase(store)
    await db.executeQuery(CompiledQuery.raw('create table held_a (id integer primary key)'))
    await db.executeQuery(CompiledQuery.raw('create table held_b (id integer primary key)'))
    await db.executeQuery(CompiledQuery.raw('insert into held_b (id) values (1), (2)'))
  })
  after(() => store.close())

  const held = (sql: string, table: string) => markWriteOnly(CompiledQuery.raw(sql), { table })
  const countOf = async (table: string) =>
    Number(
      (await db.executeQuery<{ n: number }>(CompiledQuery.raw(`select count(*) as n from ${table}`))).rows[0]!
        .n,
    )

  test('a held write sent with a read of another table: the read answers, the write commits', async () => {
    const read = await db.transaction().execute(async (trx) => {
      await trx.executeQuery(held('insert into held_a (id) values (10)', 'held_a'))
      return (await trx.executeQuery<{ id: number }>(CompiledQuery.raw('select id from held_b order by id')))
        .rows
    })
    assert.deepEqual(
      read.map((row) => Number(row.id)),
      [1, 2],
    )
    assert.equal(await countOf('held_a'), 1)
  })

  test('a held write sent with a write of another table: both commit, and its count is that write’s', async () => {
    const result = await db.transaction().execute(async (trx) => {
      await trx.executeQuery(held('insert into held_a (id) values (11), (12)', 'held_a'))
      return trx.executeQuery(CompiledQuery.raw('update held_b set id = id + 10 where id = 2'))
    })
    assert.equal(result.numAffectedRows, 1n)
    assert.equal(await countOf('held_a'), 3)
    await db.executeQuery(CompiledQuery.raw('update held_b set id = 2 where id = 12'))
  })

  test('a statement that reads the held table sees the held write', async () => {
    const seen = await db.transaction().execute(async (trx) => {
      await trx.executeQuery(held('insert into held_a (id) values (20)', 'held_a'))
      return (
        await trx.executeQuery<{ id: number }>(CompiledQuery.raw('select id from held_a where id = 20'))
      ).rows
    })
    assert.equal(seen.length, 1)
  })

  test('a row lock taken after a held write: the write goes first, and both hold', async () => {
    const locked = await db.transaction().execute(async (trx) => {
      await trx.executeQuery(held('insert into held_a (id) values (30)', 'held_a'))
      const lock = target().name === 'postgres' ? ' for update' : ''
      return (await trx.executeQuery(CompiledQuery.raw(`select id from held_b where id = 1${lock}`))).rows
    })
    assert.equal(locked.length, 1)
    assert.equal(await countOf('held_a'), 5)
  })

  test('a held write that fails fails the statement it went with, and the transaction writes nothing', async () => {
    const before = await countOf('held_a')
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await trx.executeQuery(held('insert into held_a (id) values (40), (10)', 'held_a'))
        await trx.executeQuery(CompiledQuery.raw('update held_b set id = id where id = 1'))
      }),
      /unique|UNIQUE|duplicate/,
    )
    assert.equal(await countOf('held_a'), before, 'id 40 was rolled back with the rest')
  })
})
