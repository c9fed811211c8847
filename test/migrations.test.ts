import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { parseDatabaseLocation } from '../src/store/database-location.ts'
import { migrate, openStore, rawDatabase, type Store } from '../src/store/store.ts'
import { describeEachStore } from './support/stores.ts'

const seededTables = ['channel_routes', 'fee_schedule'] as const

async function rowCounts(store: Store): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const table of seededTables) {
    const row = await rawDatabase(store)
      .selectFrom(table)
      .select((expression) => expression.fn.countAll().as('count'))
      .executeTakeFirstOrThrow()
    counts[table] = Number(row.count)
  }
  return counts
}

describeEachStore('Migrations', (target) => {
  let store: Store
  let firstRun: string[]
  let countsAfterFirstRun: Record<string, number>
  before(async () => {
    store = openStore(parseDatabaseLocation(target().databaseUrl))
    firstRun = await migrate(store)
    countsAfterFirstRun = await rowCounts(store)
  })
  after(() => store.close())

  test('the first run on an empty database applies every migration, in order', () => {
    assert.ok(firstRun.length > 0, 'something was applied')
    assert.equal(firstRun[0], '0001-foundation')
    assert.deepEqual([...firstRun].sort(), firstRun, 'applied in name order')
    assert.equal(new Set(firstRun).size, firstRun.length, 'each applied once')
    for (const table of seededTables) assert.ok(countsAfterFirstRun[table]! > 0, `${table} is seeded`)
  })

  test('a second run applies nothing and leaves the seeded rows as they were', async () => {
    assert.deepEqual(await migrate(store), [])
    assert.deepEqual(await rowCounts(store), countsAfterFirstRun)
  })

  test('a run from another connection (a restart, another instance) applies nothing either', async () => {
    const reopened = openStore(parseDatabaseLocation(target().databaseUrl))
    try {
      assert.deepEqual(await migrate(reopened), [])
      assert.deepEqual(await rowCounts(reopened), countsAfterFirstRun)
    } finally {
      await reopened.close()
    }
  })
})
