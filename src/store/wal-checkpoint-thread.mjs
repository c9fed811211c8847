// @ts-check
// The WAL checkpointer's thread (wal-checkpointer.ts). Plain JavaScript, checked by the type
// checker through its JSDoc, so that it has one name in src/ and in dist/, where a service's bundle
// of it lies beside sika.mjs (scripts/build.mjs): wal-checkpointer.ts finds it beside itself, from
// the sources or from the bundle.
import { parentPort, workerData } from 'node:worker_threads'
import Database from 'better-sqlite3'

/**
 * @typedef {object} CheckpointThreadData
 * @property {string} path The database file.
 * @property {number} intervalMs How often a passive checkpoint runs.
 */

const { path, intervalMs } = /** @type {CheckpointThreadData} */ (workerData)
const database = new Database(path, { fileMustExist: true })
database.pragma('busy_timeout = 0')
const checkpoints = setInterval(() => {
  try {
    database.pragma('wal_checkpoint(PASSIVE)')
  } catch (error) {
    // Another connection's checkpoint, or a writer's lock on the WAL's start: the next turn will do.
    if (!(error instanceof Database.SqliteError && /^SQLITE_(BUSY|LOCKED)/.test(error.code))) throw error
  }
}, intervalMs)

// Asked to stop (WalCheckpointer.close): the thread ends by itself, never in the middle of a call.
parentPort?.once('message', () => {
  clearInterval(checkpoints)
  database.close()
  parentPort?.close()
})
