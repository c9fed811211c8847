import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

/**
 * Copies the WAL's pages back into the database file (a checkpoint) from a worker thread with its
 * own connection. SQLite checkpoints by itself inside the COMMIT that grows the WAL past its limit,
 * on the thread that committed: reading the WAL's pages back, writing them and two fsyncs would
 * hold the event loop for as long as the disk takes, every few commits under write load. Here a
 * passive checkpoint runs every `intervalMs` beside the writer (it never blocks it, nor waits for
 * readers); the writer's own automatic checkpoint stays on at `backstopPages`, so the WAL cannot
 * grow without bound should this thread fall behind or stop.
 */
export class WalCheckpointer {
  private readonly worker: Worker

  constructor(path: string, onProblem: (message: string) => void, intervalMs = 100) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3')
    this.worker = new Worker(workerSource, { eval: true, workerData: { driver, path, intervalMs } })
    this.worker.on('error', (error) => onProblem(`the WAL checkpointer stopped: ${error.message}`))
    // It never keeps the process alive by itself.
    this.worker.unref()
  }

  async close(): Promise<void> {
    await this.worker.terminate()
  }
}

/** The writer's own automatic checkpoint, as a backstop: 10,000 pages of 4 KiB. */
export const backstopPages = 10_000

// Plain CommonJS: the worker runs it as it is, without the TypeScript loader or the bundle.
const workerSource = `
const { workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const db = new Database(workerData.path, { fileMustExist: true })
db.pragma('busy_timeout = 0')
setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)')
  } catch (error) {
    // Another connection's checkpoint, or a writer's lock on the WAL's start: the next turn will do.
    if (!/^SQLITE_(BUSY|LOCKED)/.test(error.code)) throw error
  }
}, workerData.intervalMs)
`
