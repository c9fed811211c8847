import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import BetterSqlite3 from 'better-sqlite3'
import { sql } from 'kysely'
import { parseDatabaseLocation } from '../src/store/database-location.ts'
import { migrate, openStore, rawDatabase, type Store } from '../src/store/store.ts'

/**
 * SQLite reads (src/store/sqlite-driver.ts). A read outside a transaction runs on the reader
 * connection and sees every commit made before it began: another process's (the CLI, a second
 * instance on the same file), and a write this store acknowledged, even later in the same turn of
 * the event loop. (A read transaction shared by one turn's reads broke this and was removed:
 * `git show f72dada:BENCHMARKS.md`, What changed.) And a statement with a bound LIMIT is prepared once, not every
 * time it runs.
 */
describe('SQLite reads', () => {
  let folder: string
  let store: Store
  /** Another connection to the same file: what the CLI or a second process writes through. */
  let other: BetterSqlite3.Database
  const insertOther = (id: string) =>
    other
      .prepare(`insert into merchants (id, name, status, created_at_us) values (?, 'Other', 'active', 0)`)
      .run(id)

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'sika-reads-'))
    const path = join(folder, 'sika.db')
    store = openStore(parseDatabaseLocation(path))
    await migrate(store)
    other = new BetterSqlite3(path)
    other.pragma('busy_timeout = 2000')
  })
  after(async () => {
    other.close()
    await store.close()
    rmSync(folder, { recursive: true, force: true })
  })

  test('a read sees what another connection committed just before it, in the same turn', async () => {
    assert.equal(await store.merchants.exists('m_from_cli'), false)
    insertOther('m_from_cli')
    assert.equal(await store.merchants.exists('m_from_cli'), true)
  })

  test('a write this store acknowledged is read at once, through the builder or the raw handle', async () => {
    assert.equal(await store.merchants.exists('m_own'), false)
    await store.merchants.insert({ id: 'm_own', name: 'Own', createdAtUs: 1 })
    assert.equal(await store.merchants.exists('m_own'), true)
    await rawDatabase(store)
      .insertInto('merchants')
      .values({ id: 'm_raw', name: 'Raw', status: 'active', created_at_us: 2 })
      .execute()
    assert.equal(await store.merchants.exists('m_raw'), true)
  })

  test('a store opened on an existing file may begin with a write outside any transaction', async () => {
    // Its writer had not run a statement of its own yet: this write once found no connection and
    // was refused as busy at once, every time (the delivery thread's first claim met it).
    const second = openStore(parseDatabaseLocation(join(folder, 'sika.db')))
    try {
      await second.merchants.insert({ id: 'm_first_write', name: 'First', createdAtUs: 3 })
      assert.equal(await store.merchants.exists('m_first_write'), true)
    } finally {
      await second.close()
    }
  })

  test('such a store, closed, leaves none of its files open', async () => {
    const path = join(folder, 'alone.db')
    const first = openStore(parseDatabaseLocation(path))
    await migrate(first)
    await first.close()
    const second = openStore(parseDatabaseLocation(path))
    await second.merchants.insert({ id: 'm_alone', name: 'Alone', createdAtUs: 4 })
    await second.close()
    const open = readdirSync('/proc/self/fd')
      .map((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`)
        } catch {
          return ''
        }
      })
      .filter((target) => target.startsWith(path))
    assert.deepEqual(open, [], 'the database, its WAL and its shared memory are all closed')
  })

  test('a bound LIMIT is compiled as an expression SQLite does not read while planning, and still limits', async () => {
    // SQLite prepares a statement again each time a LIMIT it read while planning is bound
    // (sqlite-driver.ts, SqliteStatementCompiler): `? + 0` keeps the prepared statement.
    const db = rawDatabase(store)
    const query = db.selectFrom('merchants').select('id').orderBy('id').limit(2)
    assert.match(query.compile().sql, /limit \? \+ 0$/)
    assert.equal((await query.execute()).length, 2)
    const literal = db.selectFrom('merchants').select('id').limit(sql.lit(1))
    assert.match(literal.compile().sql, /limit 1$/, 'a literal limit stays as it is')
  })
})
