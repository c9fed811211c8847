import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql } from 'kysely'
import { parseDatabaseLocation } from '../src/store/database-location.ts'
import { operationColumns, operationRow, rowBuilderFor } from '../src/store/row-builders.ts'
import { migrate, openStore, rawDatabase, type Store } from '../src/store/store.ts'
import { describeEachStore } from './support/stores.ts'

/**
 * Row objects from the arrays the drivers read (src/store/row-builders.ts): every column under its
 * name with its own value, whichever way the row is built.
 */
describe('row builders', () => {
  const positions = (names: readonly string[]) => names.map((_, index) => index)

  test('the operation row takes each column from its own position, in the table’s order', () => {
    const row = operationRow(positions(operationColumns))
    assert.deepEqual(Object.keys(row), [...operationColumns])
    for (const [index, column] of operationColumns.entries()) assert.equal(row[column], index, column)
  })

  const lists: [string, string[]][] = [
    ['an operation’s columns', [...operationColumns]],
    ['an operation’s columns and a join’s', [...operationColumns, 'merchant_name', 'merchant_status']],
    ['a few columns', ['id', 'status', 'created_at_us']],
    ['more columns than a dictionary-free object built field by field holds', columnsNamed(40)],
    ['an operation’s columns after another', ['side_role', ...operationColumns]],
  ]
  for (const [what, names] of lists)
    test(`${what}: every column under its name, in order, on a plain object`, () => {
      const build = rowBuilderFor(names)
      const row = build(positions(names))
      assert.deepEqual(Object.keys(row), names)
      for (const [index, name] of names.entries()) assert.equal(row[name], index, name)
      assert.equal(Object.getPrototypeOf(row), Object.prototype)
      assert.notEqual(build(positions(names)), row, 'a new object for every row')
    })

  test('a later column of the same name wins, and __proto__ is an own field, not the prototype', () => {
    for (const names of [
      ['a', '__proto__', 'a'],
      [...operationColumns, '__proto__', 'status'],
    ]) {
      const row = rowBuilderFor(names)(names.map((name, index) => `${name}${index}`))
      assert.equal(Object.getPrototypeOf(row), Object.prototype)
      assert.ok(Object.hasOwn(row, '__proto__'))
      assert.equal(
        Object.getOwnPropertyDescriptor(row, '__proto__')?.value,
        `__proto__${names.indexOf('__proto__')}`,
      )
      const last = names.length - 1
      assert.equal(row[names[last]!], `${names[last]}${last}`)
    }
  })
})

describeEachStore('rows read from the store', (target) => {
  let store: Store
  before(async () => {
    store = openStore(parseDatabaseLocation(target().databaseUrl))
    await migrate(store)
  })
  after(() => store.close())

  test('the operations table’s columns are, in order, those its row is written out for', async () => {
    const query =
      target().name === 'sqlite'
        ? sql<{ name: string }>`select name from pragma_table_info('operations') order by cid`
        : sql<{ name: string }>`select column_name as name from information_schema.columns
            where table_schema = current_schema() and table_name = 'operations' order by ordinal_position`
    const { rows } = await query.execute(rawDatabase(store))
    assert.deepEqual(
      rows.map((row) => row.name),
      [...operationColumns],
    )
  })

  test('a row with repeated names and a __proto__ column reads as the database answered it', async () => {
    const { rows } = await sql<Record<string, unknown>>`select 1 as "a", 2 as "__proto__", 3 as "a"`.execute(
      rawDatabase(store),
    )
    assert.equal(rows.length, 1)
    const row = rows[0]!
    assert.deepEqual(Object.keys(row), ['a', '__proto__'])
    assert.equal(Number(row.a), 3)
    assert.equal(Number(Object.getOwnPropertyDescriptor(row, '__proto__')?.value), 2)
    assert.equal(Object.getPrototypeOf(row), Object.prototype)
  })
})

function columnsNamed(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `column_${index}`)
}
