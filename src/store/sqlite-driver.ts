import type BetterSqlite3 from 'better-sqlite3'
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type LimitNode,
  type QueryCompiler,
  type QueryResult,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  SqliteQueryCompiler,
  type TransactionSettings,
  ValueNode,
} from 'kysely'
import { type RowOf, rowBuilderFor } from './row-builders.ts'
import type { WalSync } from './wal-sync.ts'
import type { WriterTurns } from './writer-turns.ts'

/**
 * What a wait for the connection that ran out resolves to. Not undefined: that is what Kysely's
 * driver hands back until its init, which only a statement through the writer's own Kysely runs (a
 * write outside any transaction comes through `runAlone`), and the connection used is `writer`.
 */
const noTurn = Symbol('no turn')

/**
 * Transactions take the write lock at BEGIN. With a deferred BEGIN, two processes that both
 * read then write (the server and the CLI) can deadlock on the upgrade, which the busy
 * timeout cannot resolve. With the lock taken first, a busy timeout can only strike at BEGIN,
 * before anything was written: the request answers 503 and nothing is half done.
 *
 * better-sqlite3 is synchronous, so SQLite's own busy timeout would stop the whole process while
 * it waits for another connection's lock. When that connection belongs to this process too (two
 * instances sharing a file, as in tests), the process then cannot commit what the lock waits for:
 * each failed BEGIN would block everything for the whole timeout, and waiters would starve the
 * holder and keep its group open for seconds. The writer's busy timeout is therefore zero, and
 * the wait for BEGIN is asynchronous, with a short backoff, up to `lockWaitMs`; reads go on
 * meanwhile.
 *
 * Group commit: a durable commit costs an fsync, and one fsync can hold many transactions. Each
 * transaction runs as a savepoint inside a group transaction that stays open while other
 * transactions are waiting for the connection; the group commits once none is left waiting (or at
 * `groupLimit`), and its fsync of the WAL runs off the event loop (`WalSync`). A transaction's
 * caller hears of success only after its group's COMMIT and that sync (`Store.transaction` awaits
 * `groupCommitted`), so every acknowledged write is durable. A transaction that fails is rolled
 * back to its savepoint alone; the others in its group go on. If SQLite aborts the whole group
 * (SQLITE_FULL, IOERR), or the COMMIT or its sync fails, every transaction of the group fails and
 * none was acknowledged.
 *
 * Reads outside a transaction go to a second, read-only connection (`OutsideTransactionDialect`),
 * so nobody reads what a group has not committed yet, and reads do not cut groups short; one that
 * may have seen a commit whose sync is still running answers once it has ended. Anything else
 * outside a group (a write, a read-only snapshot) commits the open group first.
 *
 * Statements are prepared once per connection and reused (at most `statementCacheSize` each).
 */
class GuardedSqliteDriver extends SqliteDriver {
  /** When the current holder of the one connection stops waiting for the write lock (read at BEGIN). */
  private giveUpAt = 0
  private readonly writer: CachedConnection
  /** The group transaction, while one is open: its members and the promise of its COMMIT. */
  private group: Group | undefined
  private flushScheduled = false
  /** Since the store opened: group COMMITs, and the transactions they held. */
  readonly statistics = { commits: 0, transactions: 0 }

  /** Turns on the one connection, in the order they were asked for. */
  private readonly connectionTurns = new ConnectionTurns()
  private readonly lockWaitMs: number
  private readonly walSync: WalSync | undefined
  private readonly turns: WriterTurns | undefined
  private readonly groupLimit: number

  constructor(
    private readonly database: BetterSqlite3.Database,
    options: WriterOptions,
  ) {
    super({ database })
    this.lockWaitMs = options.lockWaitMs
    this.walSync = options.walSync
    this.turns = options.turns
    this.groupLimit = options.groupLimit
    this.writer = new CachedConnection(database, () => this.commitGroup())
  }

  /**
   * Requests take turns on the one connection; a turn that does not come within `lockWaitMs` is
   * "busy" (503) rather than a wait that grows with the queue.
   */
  override async acquireConnection(): Promise<DatabaseConnection> {
    const giveUpAt = performance.now() + this.lockWaitMs
    const acquiring = this.connectionTurns.take()
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<typeof noTurn>((resolve) => {
      timer = setTimeout(() => resolve(noTurn), this.lockWaitMs)
    })
    const outcome = await Promise.race([acquiring, late])
    clearTimeout(timer)
    if (outcome === noTurn) {
      // Still queued: the turn, when it comes, is handed straight on.
      void acquiring.then(() => this.connectionTurns.handOn())
      throw busyError(`no turn on the database connection within ${this.lockWaitMs} ms`)
    }
    this.giveUpAt = giveUpAt
    return this.writer
  }

  /** The promise that the transaction now running commits durably with its group. */
  groupCommitted(): Promise<void> | undefined {
    return this.group?.committed.promise
  }

  override async beginTransaction(
    _connection: DatabaseConnection,
    settings?: TransactionSettings,
  ): Promise<void> {
    // A read-only snapshot takes no write lock: in WAL mode it reads as of its first statement while writers go on.
    if (settings?.accessMode === 'read only') {
      this.commitGroup()
      this.database.exec('begin deferred')
      this.writer.inSnapshot = true
      return
    }
    if (!this.group) await this.beginGroup()
    this.database.exec('savepoint member')
    this.writer.inMember = true
  }

  private async beginGroup(): Promise<void> {
    const giveUpAt = this.giveUpAt
    const turn = this.turns?.beforeBegin()
    if (turn) await this.waitHandingOn(turn)
    for (let pauseMs = 1; ; pauseMs = Math.min(pauseMs * 2, this.turns?.longestPauseMs ?? 20)) {
      // Another transaction of this process may have opened a group while this one waited: join it.
      if (this.group) return
      try {
        this.database.exec('begin immediate')
        this.group = { members: 0, committed: deferred() }
        this.turns?.begun()
        return
      } catch (error) {
        if (!isBusy(error) || performance.now() + pauseMs > giveUpAt) {
          this.turns?.ended()
          throw error
        }
      }
      this.turns?.busy()
      // Another connection holds the write lock. This process's reads do not need this one, so it
      // is handed on while this transaction waits, then taken back to try again.
      await this.waitHandingOn(new Promise((resolve) => setTimeout(resolve, pauseMs)))
    }
  }

  private async waitHandingOn(wait: Promise<unknown>): Promise<void> {
    this.connectionTurns.handOn()
    await wait
    await this.connectionTurns.take()
  }

  override async commitTransaction(): Promise<void> {
    if (this.writer.inSnapshot) {
      this.writer.inSnapshot = false
      this.database.exec('commit')
      // What the snapshot read is on disk before anyone hears of it.
      await this.walSync?.durable()
      return
    }
    this.database.exec('release member')
    this.writer.inMember = false
    const group = this.group!
    group.members += 1
    // A delivery thread waiting for the lock does not wait for the rest of this group (writer-turns.ts).
    if (group.members >= this.groupLimit || this.turns?.endGroupEarly()) this.commitGroup()
  }

  override async rollbackTransaction(): Promise<void> {
    if (this.writer.inSnapshot) {
      this.writer.inSnapshot = false
      if (this.database.inTransaction) this.database.exec('rollback')
      return
    }
    this.writer.inMember = false
    if (this.database.inTransaction) {
      this.database.exec('rollback to member; release member')
      return
    }
    // SQLite rolled the whole group back by itself: none of its transactions happened.
    this.failGroup(new Error('the database rolled the group transaction back'))
  }

  override async releaseConnection(): Promise<void> {
    this.writer.inSnapshot = false
    if (this.writer.inMember) {
      // Left open by a failure that skipped the rollback (a failed BEGIN): undo it alone.
      this.writer.inMember = false
      if (this.database.inTransaction) this.database.exec('rollback to member; release member')
    }
    if (this.database.inTransaction && !this.group) this.database.exec('rollback')
    if (this.group && !this.flushScheduled) {
      this.flushScheduled = true
      // Two turns of the event loop: requests read in the next poll phase join this group too.
      setImmediate(() => setImmediate(() => void this.flushWhenIdle()))
    }
    this.connectionTurns.handOn()
  }

  /** Queues behind the transactions already waiting, so they join the group, then commits it. */
  private async flushWhenIdle(): Promise<void> {
    await this.connectionTurns.take()
    this.flushScheduled = false
    try {
      this.commitGroup()
    } finally {
      this.connectionTurns.handOn()
    }
  }

  private commitGroup(): void {
    const group = this.group
    if (!group) return
    this.group = undefined
    try {
      this.database.exec('commit')
      this.turns?.ended()
      this.statistics.commits += 1
      this.statistics.transactions += group.members
      if (this.walSync) this.walSync.cover(group.committed)
      else group.committed.resolve()
    } catch (error) {
      if (this.database.inTransaction) this.database.exec('rollback')
      this.turns?.ended()
      group.committed.reject(error)
    }
  }

  private failGroup(error: Error): void {
    const group = this.group
    this.group = undefined
    this.turns?.ended()
    group?.committed.reject(Object.assign(error, { code: 'SQLITE_IOERR' }))
  }

  /**
   * A write outside any transaction: a transaction of one statement, so it shares its group's
   * COMMIT like any other, and resolves once that COMMIT is durable.
   */
  async runAlone<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const connection = await this.acquireConnection()
    let result: QueryResult<R>
    let committed: Promise<void> | undefined
    try {
      await this.beginTransaction(connection)
      try {
        result = await connection.executeQuery<R>(query)
        committed = this.groupCommitted()
        await this.commitTransaction()
      } catch (error) {
        await this.rollbackTransaction()
        throw error
      }
    } finally {
      await this.releaseConnection()
    }
    await committed
    return result
  }

  override async destroy(): Promise<void> {
    await this.finish()
    await super.destroy()
  }

  /**
   * Commits the open group and waits for it to be durable. Kysely destroys a driver only once a
   * statement through its own instance has run, and a store that only wrote outside transactions
   * never had one: the store calls this on close itself (twice does no harm).
   */
  async finish(): Promise<void> {
    this.commitGroup()
    await this.walSync?.durable().catch(() => {})
    this.walSync?.close()
  }
}

/**
 * Turns on one connection, first asked first served: `take` resolves when the turn is this
 * caller's, `handOn` gives it to the next caller waiting (or frees it).
 */
class ConnectionTurns {
  private held = false
  private readonly waiting: (() => void)[] = []

  take(): Promise<void> {
    if (!this.held) {
      this.held = true
      return Promise.resolve()
    }
    return new Promise((resolve) => this.waiting.push(resolve))
  }

  handOn(): void {
    const next = this.waiting.shift()
    if (next) next()
    else this.held = false
  }
}

/**
 * SQLite's adapter, but Kysely takes no turns of its own on the connection: the writer's driver
 * takes them itself (giving up after `lockWaitMs`, and handing its turn on while it waits for the
 * write lock), and the reads' connection needs none (better-sqlite3 runs one statement at a time).
 */
class TurnsTakenByTheDriver extends SqliteAdapter {
  override get supportsMultipleConnections(): boolean {
    return true
  }
}

/** At most this many transactions share one commit, so a steady queue still commits regularly. */
export const groupLimit = 64

/** How the one writer connection commits. */
export interface WriterOptions {
  /** How long a transaction waits for its turn at the write lock. */
  readonly lockWaitMs: number
  /** Makes each COMMIT durable off the event loop; absent for a database in memory (or when switched off). */
  readonly walSync: WalSync | undefined
  /** Turns at the write lock with another thread of this process (writer-turns.ts), when one writes too. */
  readonly turns: WriterTurns | undefined
  /** At most this many transactions share one COMMIT (1: each commits alone). */
  readonly groupLimit: number
}
const statementCacheSize = 500

interface Group {
  members: number
  committed: Deferred
}

interface Deferred {
  promise: Promise<void>
  resolve(): void
  reject(error: unknown): void
}

function deferred(): Deferred {
  let resolve!: () => void
  let reject!: (error: unknown) => void
  const promise = new Promise<void>((yes, no) => {
    resolve = yes
    reject = no
  })
  // Nobody may be waiting when a group fails (every member already failed alone).
  promise.catch(() => {})
  return { promise, resolve, reject }
}

interface PreparedStatement {
  readonly statement: BetterSqlite3.Statement
  /**
   * For a statement that returns rows: its row, from the values better-sqlite3 returns in raw mode
   * (its own rows, built a field at a time, turn into dictionaries: row-builders.ts).
   */
  readonly rowOf: RowOf | undefined
}

function rowBuilderOf(statement: BetterSqlite3.Statement): RowOf {
  return rowBuilderFor(statement.columns().map((column) => column.name))
}

/** A better-sqlite3 connection whose statements are prepared once and reused. */
class CachedConnection implements DatabaseConnection {
  /** True while a transaction's savepoint is open on this connection. */
  inMember = false
  /** True inside a read-only snapshot transaction. */
  inSnapshot = false
  private readonly statements = new Map<string, PreparedStatement>()

  constructor(
    readonly database: BetterSqlite3.Database,
    /** Called before a statement that runs outside any transaction (the writer commits its group). */
    private readonly beforeStandalone: () => void,
  ) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (!this.inMember && !this.inSnapshot) this.beforeStandalone()
    return Promise.resolve(this.run<R>(query, this.prepared(query.sql)))
  }

  run<R>(query: CompiledQuery, prepared: PreparedStatement): QueryResult<R> {
    const parameters = query.parameters as unknown[]
    const { statement, rowOf } = prepared
    if (rowOf) return { rows: (statement.all(parameters) as unknown[][]).map(rowOf) as R[] }
    const { changes, lastInsertRowid } = statement.run(parameters)
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] }
  }

  prepared(sql: string): PreparedStatement {
    const cached = this.statements.get(sql)
    if (cached) return cached
    const statement = this.database.prepare(sql)
    const prepared = { statement, rowOf: statement.reader ? rowBuilderOf(statement.raw(true)) : undefined }
    if (this.statements.size >= statementCacheSize) {
      const oldest = this.statements.keys().next().value
      if (oldest !== undefined) this.statements.delete(oldest)
    }
    this.statements.set(sql, prepared)
    return prepared
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered by this driver
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported by this driver')
  }

  close(): void {
    if (this.database.open) this.database.close()
  }
}

function busyError(message: string): Error {
  return Object.assign(new Error(`the database is busy: ${message}`), { code: 'SQLITE_BUSY' })
}

function isBusy(error: unknown): boolean {
  return (error as { code?: unknown })?.code === 'SQLITE_BUSY'
}

/**
 * SQLite (3.53, as better-sqlite3 bundles it) reads the value bound to a LIMIT while planning,
 * and so marks the statement to be prepared again each time that parameter is bound: every run
 * of a list page's statement would be a fresh prepare (`sqlite3Reprepare`).
 * Written `? + 0`, the limit is an expression the planner does not read, and the prepared
 * statement is reused. Raw SQL writes its limits through `StoreDialect.limit` (dialect.ts).
 */
export class SqliteStatementCompiler extends SqliteQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    super.visitLimit(node)
    if (ValueNode.is(node.limit) && !node.limit.immediate) this.append(' + 0')
  }
}

export class GuardedSqliteDialect extends SqliteDialect {
  private driver: GuardedSqliteDriver | undefined

  private readonly walSync: WalSync | undefined

  constructor(
    private readonly database: BetterSqlite3.Database,
    private readonly options: WriterOptions,
  ) {
    super({ database })
    this.walSync = options.walSync
  }
  override createQueryCompiler(): QueryCompiler {
    return new SqliteStatementCompiler()
  }
  override createAdapter(): SqliteAdapter {
    return new TurnsTakenByTheDriver()
  }
  override createDriver(): SqliteDriver {
    this.driver = new GuardedSqliteDriver(this.database, this.options)
    return this.driver
  }
  /** Commits what is open and makes it durable, whether Kysely ever initialised the driver or not. */
  finish(): Promise<void> {
    return this.driver?.finish() ?? Promise.resolve()
  }
  /** The COMMIT the transaction now running on this dialect's connection will be part of. */
  groupCommitted(): Promise<void> | undefined {
    return this.driver?.groupCommitted()
  }
  commitStatistics(): CommitStatistics | undefined {
    return this.driver && { ...this.driver.statistics, syncs: this.walSync?.syncs ?? 0 }
  }
  /** The dialect for statements outside transactions: reads on `reader`, writes in the writer's turn. */
  outsideTransactions(reader: BetterSqlite3.Database): Dialect {
    const writer = () => {
      if (!this.driver) throw new Error('the writer is not initialised yet')
      return this.driver
    }
    return new OutsideTransactionDialect(reader, writer, this.walSync)
  }
}

/** Group COMMITs, the transactions they held, and the syncs that made them durable. */
export interface CommitStatistics {
  commits: number
  transactions: number
  syncs: number
}

/**
 * Reads outside transactions, on a second, read-only connection: in WAL mode it sees only what
 * has been committed, so nobody reads a group's work before its COMMIT, and reads never wait for
 * the writer's turn (better-sqlite3 is synchronous: one statement at a time, no lock needed). A
 * write outside a transaction goes to the writer, in its turn.
 */
class OutsideTransactionDialect extends SqliteDialect {
  constructor(
    private readonly reader: BetterSqlite3.Database,
    private readonly writer: () => GuardedSqliteDriver,
    private readonly walSync: WalSync | undefined,
  ) {
    super({ database: reader })
  }
  override createQueryCompiler(): QueryCompiler {
    return new SqliteStatementCompiler()
  }
  override createAdapter(): SqliteAdapter {
    return new TurnsTakenByTheDriver()
  }
  override createDriver(): SqliteDriver {
    const reads = new CachedConnection(this.reader, () => {})
    const connection = new RoutingConnection(reads, this.writer, this.walSync)
    return new (class extends SqliteDriver {
      override async acquireConnection() {
        return connection
      }
      override async releaseConnection() {}
      override async beginTransaction(): Promise<void> {
        throw new Error('transactions run on the writer (Store.transaction)')
      }
    })({ database: this.reader })
  }
}

class RoutingConnection implements DatabaseConnection {
  constructor(
    private readonly reads: CachedConnection,
    private readonly writer: () => GuardedSqliteDriver,
    private readonly walSync: WalSync | undefined,
  ) {}
  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const prepared = this.reads.prepared(query.sql)
    if (!prepared.statement.readonly) return this.writer().runAlone<R>(query)
    const result = this.reads.run<R>(query, prepared)
    // A commit is visible before its sync ends: nobody hears what it wrote until it is on disk.
    if (this.walSync?.pending) return this.walSync.durable().then(() => result)
    return Promise.resolve(result)
  }
  // biome-ignore lint/correctness/useYield: streaming is not offered by this driver
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported by this driver')
  }
}
