import BetterSqlite3 from 'better-sqlite3'
import { type Dialect, type RawBuilder, sql } from 'kysely'
import pg from 'pg'
import type { DatabaseLocation } from './database-location.ts'
import { GuardedPostgresDialect } from './postgres-driver.ts'
import { type CommitStatistics, GuardedSqliteDialect, groupLimit } from './sqlite-driver.ts'
import { backstopPages, WalCheckpointer } from './wal-checkpointer.ts'
import { WalSync } from './wal-sync.ts'
import type { WriterTurns } from './writer-turns.ts'

/**
 * Every difference between SQLite and PostgreSQL lives in this file and nowhere else.
 */
export interface StoreDialect {
  readonly name: 'sqlite' | 'postgres'
  readonly kyselyDialect: Dialect
  /** For statements outside transactions, when they need another path (SQLite: a reader connection). */
  readonly outsideTransactionsDialect: Dialect | undefined
  /**
   * A dialect for long maintenance work (migrations) without the request path's timeouts, or
   * undefined when the request path's own will do.
   */
  maintenanceDialect(): Dialect | undefined
  /** The isolation a read-only transaction needs to see one snapshot (SQLite's always does). */
  readonly snapshotIsolation: 'repeatable read' | undefined
  /** Column type of an auto-incrementing primary key. */
  readonly identityType: 'integer' | 'bigserial'
  /** Column type of 64-bit integers (money, microseconds). */
  readonly bigintType: 'integer' | 'bigint'
  /**
   * The durable commit of the transaction now running, when commits are grouped (SQLite): a
   * transaction's work is acknowledged only once this resolves. Undefined when each transaction
   * commits alone (PostgreSQL).
   */
  groupCommitted(): Promise<void> | undefined
  /** True when concurrent transactions are committed together by the store itself (SQLite). */
  readonly groupsCommits: boolean
  /** Resolves once every commit made so far is durable (SQLite makes commits durable after them). */
  durable(): Promise<void>
  /** Durable commits, the transactions they held and the syncs that made them durable, when commits are grouped. */
  commitStatistics(): CommitStatistics | undefined
  /** SELECT ... FOR UPDATE. SQLite has none, and needs none: a write transaction holds the whole database. */
  readonly supportsRowLocks: boolean
  /**
   * True when a read is a round trip (PostgreSQL), so reads that queue are worth sending together
   * (read-batches.ts); SQLite reads in process, before the next request is even parsed.
   */
  readonly batchesPointReads: boolean
  /**
   * The LIMIT clause of a statement written as raw SQL, bound as SQLite's query compiler binds
   * the builder's limits (`? + 0` there: sqlite-driver.ts, SqliteStatementCompiler).
   */
  limit(count: number): RawBuilder<unknown>
  isUniqueViolation(error: unknown): boolean
  /** True when the failure means the database cannot answer now (a retry may succeed), rather than a bug. */
  isUnavailable(error: unknown): boolean
  close(): Promise<void>
}

export interface DialectOptions {
  /** The longest one statement may take; every other bound follows from it. */
  timeoutMs: number
  /** Warnings the database sends (PostgreSQL notices), for the log. */
  onWarning?: (message: string) => void
  /** SQLite: turns at the write lock with another thread of this process that writes the same file. */
  writerTurns?: WriterTurns
  /** SQLite: whether this connection's process checkpoints the WAL (default true; one per file is enough). */
  checkpoints?: boolean
  /** The store's speed mechanisms switched off (each is on by default), to measure what each earns. */
  switchedOff?: Partial<Record<StoreSpeedMechanism, true>>
}

/**
 * The store's mechanisms that only make it faster: with any of them off, every answer, every row
 * and every commit's durability are the same, only slower.
 * - `groupCommit` (SQLite): concurrent transactions share one COMMIT (off: each commits alone);
 * - `walSync` (SQLite): the WAL's fsync runs off the event loop (off: `synchronous = FULL`, inside
 *   each COMMIT);
 * - `heldWrites` (PostgreSQL): write-only statements travel with the next statement (off: each is
 *   its own round trip);
 * - `readBatches` (PostgreSQL): concurrent reads by token go as one statement (off: each alone).
 */
export type StoreSpeedMechanism = 'groupCommit' | 'walSync' | 'heldWrites' | 'readBatches'

export function createDialect(location: DatabaseLocation, options: DialectOptions): StoreDialect {
  return location.kind === 'sqlite'
    ? sqliteDialect(location.path, options)
    : postgresDialect(location.url, options)
}

function sqliteDialect(path: string, options: DialectOptions): StoreDialect {
  const database = new BetterSqlite3(path)
  const walSync = path === ':memory:' || options.switchedOff?.walSync ? undefined : new WalSync(`${path}-wal`)
  // WAL lets readers run beside the writer. An acknowledged commit must survive a power cut:
  // FULL's one extra fsync per commit (NORMAL in WAL mode may lose the last transactions) is
  // issued by WalSync instead, off the event loop, before any caller hears of the commit (the
  // same guarantee). Foreign keys are off by default.
  database.pragma('journal_mode = WAL')
  database.pragma(walSync ? 'synchronous = NORMAL' : 'synchronous = FULL')
  database.pragma('foreign_keys = ON')
  // Each transaction of a group is a savepoint, and SQLite copies every page a savepoint changes
  // into a sub-journal to roll it back alone: kept in memory, that is a copy, not writes to a
  // temporary file for every transaction.
  database.pragma('temp_store = MEMORY')
  // A synchronous wait stops the whole process, the lock's holder included when it is another
  // connection of this process: the writer never waits inside SQLite, and BEGIN waits for the
  // write lock asynchronously instead (sqlite-driver.ts).
  database.pragma('busy_timeout = 0')
  // Checkpoints run beside the writer, off the event loop (wal-checkpointer.ts).
  const checkpointer =
    path !== ':memory:' && options.checkpoints !== false
      ? new WalCheckpointer(path, (problem) => options.onWarning?.(problem))
      : undefined
  database.pragma(`wal_autocheckpoint = ${backstopPages}`)
  // Reads outside transactions: a second connection sees only what has been committed.
  const reader = path === ':memory:' ? undefined : new BetterSqlite3(path, { readonly: true })
  reader?.pragma('busy_timeout = 20')
  const kyselyDialect = new GuardedSqliteDialect(database, {
    lockWaitMs: options.timeoutMs,
    walSync,
    turns: options.writerTurns,
    groupLimit: options.switchedOff?.groupCommit ? 1 : groupLimit,
  })
  return {
    name: 'sqlite',
    kyselyDialect,
    outsideTransactionsDialect: reader && kyselyDialect.outsideTransactions(reader),
    groupCommitted: () => kyselyDialect.groupCommitted(),
    groupsCommits: true,
    durable: () => walSync?.durable() ?? Promise.resolve(),
    commitStatistics: () => kyselyDialect.commitStatistics(),
    maintenanceDialect: () => undefined,
    snapshotIsolation: undefined,
    identityType: 'integer',
    bigintType: 'integer',
    supportsRowLocks: false,
    batchesPointReads: false,
    limit: (count) => sql`limit ${count} + 0`,
    isUniqueViolation: (error) =>
      errorCode(error)?.startsWith('SQLITE_CONSTRAINT_PRIMARYKEY') === true ||
      errorCode(error) === 'SQLITE_CONSTRAINT_UNIQUE',
    isUnavailable: (error) =>
      ['SQLITE_BUSY', 'SQLITE_CANTOPEN', 'SQLITE_IOERR', 'SQLITE_FULL'].some((code) =>
        errorCode(error)?.startsWith(code),
      ),
    close: async () => {
      await kyselyDialect.finish()
      await checkpointer?.close()
      if (reader?.open) reader.close()
      if (database.open) database.close()
    },
  }
}

// 64-bit integers (money, microseconds) arrive as numbers: every value we store is below 2^53.
const int8 = 20
const numericTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === int8 ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
}

/**
 * The bounds of the request path, all derived from the statement timeout. The server ends a
 * statement (statement_timeout) or a lock wait (lock_timeout) itself and says so, which leaves the
 * connection usable; the client's own timeout is a second later, for when the server cannot answer
 * at all (a partition); a session the client abandoned inside a transaction is ended by the server
 * (idle_in_transaction_session_timeout), so its locks do not outlive it; TCP keepalives find a
 * peer that vanished without closing.
 */
export function postgresTimeouts(timeoutMs: number) {
  return {
    statementMs: timeoutMs,
    lockMs: Math.floor((timeoutMs * 3) / 4),
    clientMs: timeoutMs + 1000,
    connectMs: timeoutMs,
    idleInTransactionMs: Math.max(5000, timeoutMs * 2),
    keepAliveSeconds: 10,
  }
}

function postgresPool(url: string, options: DialectOptions, purpose: 'requests' | 'maintenance'): pg.Pool {
  const bounds = postgresTimeouts(options.timeoutMs)
  const requests = purpose === 'requests'
  const pool = new pg.Pool({
    connectionString: url,
    max: requests ? 20 : 1,
    connectionTimeoutMillis: bounds.connectMs,
    idleTimeoutMillis: 30_000,
    // A migration may build an index over millions of rows: no statement bound there.
    query_timeout: requests ? bounds.clientMs : undefined,
    statement_timeout: requests ? bounds.statementMs : 0,
    lock_timeout: requests ? bounds.lockMs : 0,
    idle_in_transaction_session_timeout: bounds.idleInTransactionMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: bounds.keepAliveSeconds * 1000,
    options: `-c tcp_keepalives_idle=${bounds.keepAliveSeconds} -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3`,
    application_name: requests ? 'sika' : 'sika-maintenance',
    types: numericTypes,
  })
  // A client whose server went away emits 'error' (idle ones on the pool, checked-out ones on
  // themselves); the query in flight already receives the error and becomes a 503. Without
  // listeners the emitted copy would be an uncaught exception that stops the process.
  pool.on('error', () => {})
  pool.on('connect', (client) => {
    client.on('error', () => {})
    client.on('notice', (notice) => {
      if (notice.severity !== 'NOTICE' && notice.severity !== 'DEBUG' && notice.severity !== 'LOG')
        options.onWarning?.(`${notice.severity}: ${notice.message}`)
    })
  })
  return pool
}

/** SQLSTATEs that mean "not now": the database is unreachable, overloaded, or gave up waiting. */
const transientStates = new Set([
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '57014', // query_canceled: our statement_timeout
  '55P03', // lock_not_available: our lock_timeout
  '25P03', // idle_in_transaction_session_timeout
  '40P01', // deadlock_detected
  '40001', // serialization_failure
])
const transientNetworkCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'SIKA_UNTRUSTED_CONNECTION',
])
const transientMessages =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout/i

function postgresDialect(url: string, options: DialectOptions): StoreDialect {
  const pool = postgresPool(url, options, 'requests')
  return {
    name: 'postgres',
    kyselyDialect: new GuardedPostgresDialect(pool, { holdsWrites: !options.switchedOff?.heldWrites }),
    outsideTransactionsDialect: undefined,
    groupCommitted: () => undefined,
    groupsCommits: false,
    durable: () => Promise.resolve(),
    commitStatistics: () => undefined,
    maintenanceDialect: () => new GuardedPostgresDialect(postgresPool(url, options, 'maintenance')),
    snapshotIsolation: 'repeatable read',
    identityType: 'bigserial',
    bigintType: 'bigint',
    supportsRowLocks: true,
    batchesPointReads: !options.switchedOff?.readBatches,
    limit: (count) => sql`limit ${count}`,
    isUniqueViolation: (error) => errorCode(error) === '23505',
    isUnavailable: (error) => {
      const code = errorCode(error) ?? ''
      const message = error instanceof Error ? error.message : ''
      return (
        transientStates.has(code) ||
        transientNetworkCodes.has(code) ||
        code.startsWith('08') ||
        transientMessages.test(message)
      )
    },
    close: async () => {
      // The pool is ended by Kysely's destroy(); nothing else holds resources.
    },
  }
}

function errorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string')
    return error.code
  return undefined
}
