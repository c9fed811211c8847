import { Worker } from 'node:worker_threads'
import type { CheckpointThreadData } from './wal-checkpoint-thread.mjs'

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
  private readonly exited: Promise<unknown>

  constructor(path: string, onProblem: (message: string) => void, intervalMs = 100) {
    this.worker = new Worker(threadModule, {
      workerData: { path, intervalMs } satisfies CheckpointThreadData,
    })
    // Its end, however it came: an 'error' is reported below and still ends in 'exit'.
    this.exited = new Promise((resolve) => this.worker.once('exit', resolve))
    this.worker.on('error', (error) => onProblem(`the WAL checkpointer stopped: ${error.message}`))
    // It never keeps the process alive by itself.
    this.worker.unref()
  }

  /**
   * Asks the thread to close its connection and end, and waits until it has. Terminating it
   * instead can land inside better-sqlite3's native code (loading the addon, a checkpoint), which
   * aborts the whole process: a short command that closes its store at once did. Terminated only
   * if it has not ended within `stopWithinMs`.
   */
  async close(stopWithinMs = 5000): Promise<void> {
    this.worker.postMessage('stop')
    const late = setTimeout(() => void this.worker.terminate(), stopWithinMs)
    try {
      await this.exited
    } finally {
      clearTimeout(late)
    }
  }
}

/**
 * The thread's module: beside this one in the sources, and beside the service's bundle in dist/,
 * built from it under the same name (scripts/build.mjs).
 */
const threadModule = new URL('./wal-checkpoint-thread.mjs', import.meta.url)

/** The writer's own automatic checkpoint, as a backstop: 10,000 pages of 4 KiB. */
export const backstopPages = 10_000
