import type BetterSqlite3 from 'better-sqlite3'
import {
  CompiledQuery,
  type DatabaseConnection,
  SqliteDialect,
  SqliteDriver,
  type TransactionSettings,
} from 'kysely'

/**
 * Transactions take the write lock at BEGIN. With a deferred BEGIN, two processes that both
 * read then write (the server and the CLI) can deadlock on the upgrade, which the busy
 * timeout cannot resolve. With the lock taken first, a busy timeout can only strike at BEGIN,
 * before anything was written: the request answers 503 and nothing is half done.
 *
 * better-sqlite3 is synchronous, so SQLite's own busy timeout would stop the whole process while
 * it waits for another process's lock. The wait for BEGIN is therefore asynchronous here, with a
 * short backoff, up to `lockWaitMs`, and reads go on meanwhile; the busy timeout itself stays a
 * few milliseconds.
 *
 * The one connection is never handed on inside a transaction: better-sqlite3 knows the state
 * for certain (`inTransaction`), so whatever is left open is rolled back on release, and a
 * transaction SQLite already rolled back by itself (SQLITE_FULL, IOERR) is not rolled back twice,
 * which would hide the original error behind "no transaction is active".
 */
class GuardedSqliteDriver extends SqliteDriver {
  /** When the current holder of the one connection stops waiting for the write lock (read at BEGIN). */
  private giveUpAt = 0

  constructor(
    private readonly database: BetterSqlite3.Database,
    private readonly lockWaitMs: number,
  ) {
    super({ database })
  }

  /**
   * Requests take turns on the one connection; a turn that does not come within `lockWaitMs` is
   * "busy" (503) rather than a wait that grows with the queue.
   */
  override async acquireConnection(): Promise<DatabaseConnection> {
    const giveUpAt = performance.now() + this.lockWaitMs
    const acquiring = super.acquireConnection()
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), this.lockWaitMs)
    })
    const connection = await Promise.race([acquiring, late])
    clearTimeout(timer)
    if (!connection) {
      // Still queued: the turn, when it comes, is handed straight on.
      void acquiring.then(() => super.releaseConnection())
      throw busyError(`no turn on the database connection within ${this.lockWaitMs} ms`)
    }
    this.giveUpAt = giveUpAt
    return connection
  }

  override async beginTransaction(
    connection: DatabaseConnection,
    settings?: TransactionSettings,
  ): Promise<void> {
    // A read-only snapshot takes no write lock: in WAL mode it reads as of its first statement while writers go on.
    if (settings?.accessMode === 'read only') {
      await connection.executeQuery(CompiledQuery.raw('begin deferred'))
      return
    }
    const giveUpAt = this.giveUpAt
    for (let pauseMs = 2; ; pauseMs = Math.min(pauseMs * 2, 50)) {
      try {
        await connection.executeQuery(CompiledQuery.raw('begin immediate'))
        return
      } catch (error) {
        if (!isBusy(error) || performance.now() + pauseMs > giveUpAt) throw error
      }
      // Another process holds the write lock. This process's reads do not need it, so the one
      // connection is handed on while this transaction waits, then taken back to try again.
      await super.releaseConnection()
      await new Promise((resolve) => setTimeout(resolve, pauseMs))
      await super.acquireConnection()
    }
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.database.inTransaction) await super.rollbackTransaction(connection)
  }

  override async releaseConnection(): Promise<void> {
    if (this.database.inTransaction) this.database.exec('rollback')
    await super.releaseConnection()
  }
}

function busyError(message: string): Error {
  return Object.assign(new Error(`the database is busy: ${message}`), { code: 'SQLITE_BUSY' })
}

function isBusy(error: unknown): boolean {
  return (error as { code?: unknown })?.code === 'SQLITE_BUSY'
}

export class GuardedSqliteDialect extends SqliteDialect {
  constructor(
    private readonly database: BetterSqlite3.Database,
    private readonly lockWaitMs: number,
  ) {
    super({ database })
  }
  override createDriver(): SqliteDriver {
    return new GuardedSqliteDriver(this.database, this.lockWaitMs)
  }
}
