import BetterSqlite3 from 'better-sqlite3'
import { CompiledQuery, type DatabaseConnection, PostgresDialect, SqliteDialect, SqliteDriver } from 'kysely'
import pg from 'pg'
import type { DatabaseLocation } from '../config.ts'

/**
 * Every difference between SQLite and PostgreSQL lives in this file and nowhere else.
 */
export interface StoreDialect {
  readonly name: 'sqlite' | 'postgres'
  readonly kyselyDialect: SqliteDialect | PostgresDialect
  /** Column type of an auto-incrementing primary key. */
  readonly identityType: 'integer' | 'bigserial'
  /** Column type of 64-bit integers (money, microseconds). */
  readonly bigintType: 'integer' | 'bigint'
  /** SELECT ... FOR UPDATE. SQLite has none, and needs none: a write transaction holds the whole database. */
  readonly supportsRowLocks: boolean
  isUniqueViolation(error: unknown): boolean
  /** True when the failure means the database cannot be reached, rather than a bug. */
  isUnavailable(error: unknown): boolean
  close(): Promise<void>
}

export function createDialect(location: DatabaseLocation): StoreDialect {
  return location.kind === 'sqlite' ? sqliteDialect(location.path) : postgresDialect(location.url)
}

/**
 * Transactions take the write lock at BEGIN. With a deferred BEGIN, two processes that both
 * read then write (the server and the CLI) can deadlock on the upgrade, which the busy
 * timeout cannot resolve.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'))
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly database: BetterSqlite3.Database) {
    super({ database })
  }
  override createDriver(): SqliteDriver {
    return new ImmediateSqliteDriver({ database: this.database })
  }
}

function sqliteDialect(path: string): StoreDialect {
  const database = new BetterSqlite3(path)
  // WAL lets readers run beside the writer; FULL makes an acknowledged commit survive a power
  // cut (NORMAL in WAL mode may lose the last transactions); foreign keys are off by default.
  database.pragma('journal_mode = WAL')
  database.pragma('synchronous = FULL')
  database.pragma('foreign_keys = ON')
  database.pragma('busy_timeout = 5000')
  return {
    name: 'sqlite',
    kyselyDialect: new ImmediateSqliteDialect(database),
    identityType: 'integer',
    bigintType: 'integer',
    supportsRowLocks: false,
    isUniqueViolation: (error) =>
      errorCode(error)?.startsWith('SQLITE_CONSTRAINT_PRIMARYKEY') === true ||
      errorCode(error) === 'SQLITE_CONSTRAINT_UNIQUE',
    isUnavailable: (error) =>
      ['SQLITE_BUSY', 'SQLITE_CANTOPEN', 'SQLITE_IOERR', 'SQLITE_FULL'].some((code) =>
        errorCode(error)?.startsWith(code),
      ),
    close: async () => {
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

function postgresDialect(url: string): StoreDialect {
  const pool = new pg.Pool({
    connectionString: url,
    max: 20,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    // A database that stops answering without refusing (a partition) must become a 503,
    // not a request that hangs: no query of ours legitimately runs this long.
    query_timeout: 10_000,
    keepAlive: true,
    types: numericTypes,
  })
  // A client whose server went away emits 'error' (idle ones on the pool, checked-out ones on
  // themselves); the query in flight already receives the error and becomes a 503. Without
  // listeners the emitted copy would be an uncaught exception that stops the process.
  pool.on('error', () => {})
  pool.on('connect', (client) => client.on('error', () => {}))
  return {
    name: 'postgres',
    kyselyDialect: new PostgresDialect({ pool }),
    identityType: 'bigserial',
    bigintType: 'bigint',
    supportsRowLocks: true,
    isUniqueViolation: (error) => errorCode(error) === '23505',
    isUnavailable: (error) => {
      const code = errorCode(error) ?? ''
      const message = error instanceof Error ? error.message : ''
      return (
        [
          'ECONNREFUSED',
          'ECONNRESET',
          'ETIMEDOUT',
          'EPIPE',
          'ENOTFOUND',
          'EHOSTUNREACH',
          '57P01',
          '57P03',
          '53300',
        ].includes(code) ||
        code.startsWith('08') ||
        /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout/i.test(
          message,
        )
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
