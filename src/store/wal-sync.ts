import { closeSync, fdatasync, openSync } from 'node:fs'
import { Batcher, failAll } from '../batching/batcher.ts'

/**
 * Makes SQLite's commits durable off the event loop. In WAL mode `synchronous = FULL` differs from
 * NORMAL by one thing only: after each commit, an fsync of the WAL file. better-sqlite3 runs that
 * fsync inside COMMIT, on the one thread every request shares, so every request would wait for the
 * disk at every commit. The writer runs NORMAL instead and this issues the same fdatasync of the WAL in libuv's thread pool;
 * a commit counts as durable once a sync that started after it has finished. Syncs never overlap:
 * the commits made while one runs are covered together by the next (group commit, one level down:
 * a batch of every commit waiting, one at a time).
 * SQLite's own syncs (the WAL before a checkpoint, the database after it, the WAL header when it
 * is reused) are unchanged.
 */
export class WalSync {
  private descriptor: number | undefined
  /** Commits waiting for a sync that starts after them; the batch running is the sync running. */
  private readonly commits = new Batcher<undefined, void>({
    inFlight: 1,
    largestBatch: Number.POSITIVE_INFINITY,
    // A failed sync leaves the commits' durability unknown: none of them is acknowledged (503).
    run: failAll(async (commits) => {
      await this.sync()
      return commits.map(() => undefined)
    }),
  })
  /** The latest commit's durability: every commit before it is covered by the same sync or an earlier one. */
  private newest: Promise<void> = Promise.resolve()
  /** Since the store opened. */
  syncs = 0

  constructor(private readonly walPath: string) {}

  /** Resolves once everything committed before this call is on disk. */
  durable(): Promise<void> {
    return this.pending ? this.newest : Promise.resolve()
  }

  /** True while some commit is not yet known to be on disk: a read now may see it. */
  get pending(): boolean {
    return this.commits.busy
  }

  /** Call right after a COMMIT: `waiter` hears once that commit is on disk, or that its sync failed. */
  cover(waiter: Waiter): void {
    this.newest = this.commits.submit(undefined)
    this.newest.then(
      () => waiter.resolve(),
      (error: unknown) => waiter.reject(error),
    )
  }

  private sync(): Promise<void> {
    return new Promise((resolve, reject) => {
      const synced = (error: Error | null) => {
        this.syncs += 1
        if (error) reject(Object.assign(error, { code: 'SQLITE_IOERR' }))
        else resolve()
      }
      try {
        this.descriptor ??= openSync(this.walPath, 'r+')
      } catch (error) {
        synced(error as Error)
        return
      }
      fdatasync(this.descriptor, synced)
    })
  }

  /** After the last commit's sync: nothing may be waiting. */
  close(): void {
    if (this.descriptor !== undefined) closeSync(this.descriptor)
    this.descriptor = undefined
  }
}

interface Waiter {
  resolve(): void
  reject(error: unknown): void
}
