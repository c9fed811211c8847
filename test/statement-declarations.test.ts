import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { CompiledQuery, Kysely, sql } from 'kysely'
import pg from 'pg'
import { parseDatabaseLocation } from '../src/store/database-location.ts'
import { sqlNumberedFrom } from '../src/store/numbered-from.ts'
import { GuardedPostgresDialect } from '../src/store/postgres-driver.ts'
import type { Executor } from '../src/store/repositories/executor.ts'
import { statementTemplate } from '../src/store/repositories/statement-template.ts'
import { openStore, rawDatabase, type Store } from '../src/store/store.ts'
import { recordPostgresStatements } from './support/postgres-statements.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * The PostgreSQL driver holds a write-only statement and sends it as a WITH item of the next
 * statement declared a carrier whose declared tables it does not write (src/store/write-only.ts);
 * it reads the declarations, never the SQL text.
 */

const untyped = (db: Executor) => db as unknown as Kysely<any>

const insertIntoC = statementTemplate(
  (db, row: { id: number }) => untyped(db).insertInto('declared_c').values({ id: row.id }),
  { writeOnly: 'declared_c' },
)
const readD = statementTemplate(
  (db, key: { from: number }) =>
    untyped(db).selectFrom('declared_d').select('id').where('id', '>=', key.from).orderBy('id'),
  { carries: { tables: ['declared_d'] } },
)
const readC = statementTemplate(
  (db, key: { id: number }) => untyped(db).selectFrom('declared_c').select('id').where('id', '=', key.id),
  { carries: { tables: ['declared_c'] } },
)
const undeclaredTable = statementTemplate(
  (db, key: { id: number }) => untyped(db).selectFrom('declared_c').select('id').where('id', '=', key.id),
  { carries: { tables: ['declared_d'] } },
)
const rowLock = statementTemplate(
  (db, key: { id: number }) =>
    untyped(db).selectFrom('declared_d').select('id').where('id', '=', key.id).forUpdate(),
  { carries: { tables: ['declared_d'] } },
)

test('a statement compiled at an offset numbers its parameters after it, in the same order', async () => {
  const pool = new pg.Pool()
  const db = new Kysely<any>({ dialect: new GuardedPostgresDialect(pool) })
  const compiled = db
    .selectFrom('declared_d')
    .select('id')
    .where('id', '>=', 1)
    .where('id', '<', sql<number>`${2} + 1`)
    .compile()
  assert.match(compiled.sql, /\$1 .*\$2 /)
  const atThree = sqlNumberedFrom(compiled.query, 3)
  assert.equal(atThree, compiled.sql.replace('$1', '$4').replace('$2', '$5'))
  assert.equal(sqlNumberedFrom(compiled.query, 3), atThree, 'the same text from the cache')
  await db.destroy()
})

describeEachStore('statements declared write-only or carriers', (target) => {
  let store: Store
  let db: Kysely<any>
  before(async () => {
    store = openStore(parseDatabaseLocation(target().databaseUrl))
    db = rawDatabase(store) as unknown as Kysely<any>
    await db.executeQuery(CompiledQuery.raw('create table declared_c (id integer primary key)'))
    await db.executeQuery(CompiledQuery.raw('create table declared_d (id integer primary key)'))
    await db.executeQuery(CompiledQuery.raw('insert into declared_d (id) values (1), (2)'))
  })
  after(() => store.close())

  test('a held write rides with a carrier of another table: one statement, the read answers, the write commits', async () => {
    const sent = recordPostgresStatements()
    const read = await db
      .transaction()
      .execute(async (trx) => {
        await insertIntoC(trx, { id: 10 })
        return (await readD(trx, { from: 2 })).rows
      })
      .finally(sent.stop)
    const statements = sent.texts
    assert.deepEqual(
      read.map((row) => Number(row.id)),
      [2],
    )
    if (target().name === 'postgres') {
      assert.equal(statements.length, 3, statements.join('\n'))
      assert.match(statements[1]!, /^with w0 as \(insert into "declared_c".*\$1.*\) select .*\$2/)
    }
    assert.equal((await readC(db, { id: 10 })).rows.length, 1)
  })

  test('a carrier that declares the held table is sent after it, and sees it', async () => {
    const seen = await db.transaction().execute(async (trx) => {
      await insertIntoC(trx, { id: 20 })
      return (await readC(trx, { id: 20 })).rows
    })
    assert.equal(seen.length, 1)
  })

  test('a carrier that names a table it did not declare, or takes a row lock, is refused when built', async () => {
    await assert.rejects(
      async () => undeclaredTable(db, { id: 1 }),
      /declare every table it names \(declared_c\)/,
    )
    await assert.rejects(async () => rowLock(db, { id: 1 }), /no row lock \(true\)/)
  })
})
