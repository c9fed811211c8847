import { closeSync, fdatasync, openSync } from 'node:fs'

/**
 * Makes SQLite's commits durable off the event loop. In WAL mode `synchronous = FULL` differs from
 * NORMAL by one thing only: after each commit, an fsync of the WAL file. better-sqlite3 runs that
 * fsync inside COMMIT, on the one thread every request shares, so every request would wait for the
 * disk at every commit. The writer runs NORMAL instead and this issues the same fdatasync of the WAL in libuv's thread pool;
 * a commit counts as durable once a sync that started after it has finished. Syncs never overlap:
 * the commits made while one runs are covered together by the next (group commit, one level down).
 * SQLite's own syncs (the WAL before a checkpoint, the database after it, the WAL header when it
 * is reused) are unchanged.
 */
export class WalSync {
  private descriptor: number | undefined
  private syncing = false
  /** Committed, not yet covered by a sync that started after the commit. */
  private uncovered: Waiter[] = []
  /** Covered by the sync now running. */
  private covered: Waiter[] = []
  /** Since the store opened. */
  syncs = 0

  constructor(private readonly walPath: string) {}

  /** Resolves once everything committed before this call is on disk. */
  durable(): Promise<void> {
    if (!this.pending) return Promise.resolve()
    return new Promise((resolve, reject) => {
      // The newest commit waits for the next sync if it came after the running one's start.
      if (this.uncovered.length > 0) this.uncovered.push({ resolve, reject })
      else this.covered.push({ resolve, reject })
    })
  }

  /** True while some commit is not yet known to be on disk: a read now may see it. */
  get pending(): boolean {
    return this.syncing || this.uncovered.length > 0
  }

  /** Call right after a COMMIT: `waiter` hears once that commit is on disk, or that its sync failed. */
  cover(waiter: Waiter): void {
    this.uncovered.push(waiter)
    if (!this.syncing) this.startSync()
  }

  private startSync(): void {
    this.syncing = true
    this.covered = this.uncovered
    this.uncovered = []
    try {
      this.descriptor ??= openSync(this.walPath, 'r+')
    } catch (error) {
      this.synced(error as Error)
      return
    }
    fdatasync(this.descriptor, (error) => this.synced(error))
  }

  private synced(error: Error | null): void {
    this.syncs += 1
    const covered = this.covered
    this.covered = []
    this.syncing = false
    // A failed sync leaves the commits' durability unknown: none of them is acknowledged (503).
    for (const waiter of covered) {
      if (error) waiter.reject(Object.assign(error, { code: 'SQLITE_IOERR' }))
      else waiter.resolve()
    }
    if (this.uncovered.length > 0) this.startSync()
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
