import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import BetterSqlite3 from 'better-sqlite3'
import { WalCheckpointer } from '../src/store/wal-checkpointer.ts'
import { waitFor } from './support/wait.ts'

/**
 * The WAL checkpointer (src/store/wal-checkpointer.ts, SQLite only): its thread, loaded from its
 * own module, copies what the writer committed to the WAL back into the database file while the
 * writer's connection stays open, and a thread that stops is reported.
 */
describe('WAL checkpointer', () => {
  let folder: string
  before(() => {
    folder = mkdtempSync(join(tmpdir(), 'sika-checkpoints-'))
  })
  after(() => rmSync(folder, { recursive: true, force: true }))

  test('copies the committed pages from the WAL into the database file', async () => {
    const path = join(folder, 'copied.db')
    const writer = new BetterSqlite3(path)
    writer.pragma('journal_mode = WAL')
    writer.pragma('wal_autocheckpoint = 0')
    writer.exec('create table filler (body text)')
    const insert = writer.prepare('insert into filler (body) values (?)')
    writer.transaction(() => {
      for (let row = 0; row < 256; row++) insert.run('x'.repeat(4000))
    })()
    const sizeBefore = statSync(path).size
    assert.ok(statSync(`${path}-wal`).size > 1_000_000, 'the rows are in the WAL')
    const problems: string[] = []
    const checkpointer = new WalCheckpointer(path, (problem) => problems.push(problem), 10)
    try {
      await waitFor('the database file to hold the rows', () => statSync(path).size > sizeBefore + 1_000_000)
      assert.deepEqual(problems, [])
    } finally {
      await checkpointer.close()
      writer.close()
    }
  })

  test('a thread that cannot open the database is reported', async () => {
    const problems: string[] = []
    const checkpointer = new WalCheckpointer(join(folder, 'missing.db'), (problem) => problems.push(problem))
    try {
      await waitFor('a problem to be reported', () => problems.length > 0)
      assert.match(problems[0]!, /^the WAL checkpointer stopped: /)
    } finally {
      await checkpointer.close()
    }
  })

  test('a store closed at any moment of its thread’s start waits for the thread to end by itself, and nothing aborts', async () => {
    const path = join(folder, 'closed-at-once.db')
    const writer = new BetterSqlite3(path)
    writer.pragma('journal_mode = WAL')
    try {
      for (let waitMs = 0; waitMs < 40; waitMs += 2) {
        const problems: string[] = []
        const checkpointer = new WalCheckpointer(path, (problem) => problems.push(problem), 1)
        await new Promise((resolve) => setTimeout(resolve, waitMs))
        await checkpointer.close(60_000)
        assert.deepEqual(problems, [], `closed after ${waitMs} ms`)
      }
      writer.exec('create table after_the_threads (id integer)')
    } finally {
      writer.close()
    }
  })
})
