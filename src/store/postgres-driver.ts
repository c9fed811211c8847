import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  type RootOperationNode,
  type TransactionSettings,
} from 'kysely'
import pg from 'pg'
import { sqlNumberedFrom } from './numbered-from.ts'
import { rowBuilderOf } from './postgres-rows.ts'
import { carrierOf, type WriteOnly, writeOnlyOf } from './write-only.ts'

/**
 * Kysely over pg, with one rule that the stock driver lacks: a connection whose transaction state
 * is not known for certain never goes back to the pool.
 *
 * pg's client-side query timeout rejects the promise but leaves the statement running on the
 * connection, and drops any statement queued behind it (the ROLLBACK Kysely sends after a
 * failure) without sending it. Kysely then returns the connection to the pool, where the next
 * borrower's BEGIN is a no-op ("there is already a transaction in progress") and its COMMIT
 * commits the earlier request's half-finished work. Kysely also skips the ROLLBACK when BEGIN
 * itself failed. So: any failure that did not come as an answer from the server (a timeout, a lost
 * link) marks the connection untrusted; an untrusted connection is never rolled back (the ROLLBACK
 * would only wait behind the stuck statement) but destroyed on release, which ends its transaction
 * on the server; and a connection released in any state but idle is destroyed too.
 */
/** How the driver sends a transaction's statements. */
export interface SendingOptions {
  /** Whether write-only statements wait to travel with the next one (GuardedConnection), or go at once. */
  readonly holdsWrites: boolean
}

export class GuardedPostgresDialect implements Dialect {
  constructor(
    private readonly pool: pg.Pool,
    private readonly options: SendingOptions = { holdsWrites: true },
  ) {}
  createDriver(): Driver {
    return new GuardedPostgresDriver(this.pool, this.options)
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler()
  }
  createAdapter() {
    return new PostgresAdapter()
  }
  // biome-ignore lint/suspicious/noExplicitAny: Kysely's own Dialect signature
  createIntrospector(db: Kysely<any>) {
    return new PostgresIntrospector(db)
  }
}

class GuardedPostgresDriver implements Driver {
  constructor(
    private readonly pool: pg.Pool,
    private readonly options: SendingOptions,
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new GuardedConnection(await this.pool.connect(), this.options.holdsWrites)
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const isolation = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : ''
    const access = settings.accessMode ? ` ${settings.accessMode}` : ''
    await connection.executeQuery(CompiledQuery.raw(`start transaction${isolation}${access}`))
    guarded(connection).inTransaction = true
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const guardedConnection = guarded(connection)
    await guardedConnection.sendHeldWrites()
    guardedConnection.inTransaction = false
    await connection.executeQuery(CompiledQuery.raw('commit'))
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const guardedConnection = guarded(connection)
    guardedConnection.dropHeldWrites()
    guardedConnection.inTransaction = false
    if (guardedConnection.untrustedBecause) return
    await connection.executeQuery(CompiledQuery.raw('rollback'))
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const guardedConnection = guarded(connection)
    guardedConnection.dropHeldWrites()
    guardedConnection.inTransaction = false
    const { client, untrustedBecause } = guardedConnection
    const state = client.getTransactionStatus()
    const reason =
      untrustedBecause ??
      (state === 'I' ? undefined : new Error(`connection released in transaction state ${state}`))
    // An error makes the pool close the connection instead of keeping it.
    client.release(reason)
  }

  async destroy(): Promise<void> {
    await this.pool.end()
  }
}

function guarded(connection: DatabaseConnection): GuardedConnection {
  if (!(connection instanceof GuardedConnection)) throw new Error('not a connection of this driver')
  return connection
}

/** Thrown instead of sending anything more on a connection whose state is unknown. */
export class UntrustedConnectionError extends Error {
  readonly code = 'SIKA_UNTRUSTED_CONNECTION'
}

class GuardedConnection implements DatabaseConnection {
  /** Set once the connection's transaction state can no longer be known. */
  untrustedBecause: Error | undefined
  inTransaction = false
  /** Write-only statements of the transaction not sent yet, at most one per table, in order. */
  private held: { query: CompiledQuery; writes: WriteOnly }[] = []

  constructor(
    readonly client: pg.PoolClient,
    private readonly holdsWrites: boolean,
  ) {}

  /**
   * Inside a transaction, a statement declared write-only (write-only.ts) is held back. The next
   * statement declared a carrier takes the held ones along as its WITH items, so they cost no
   * round trip of their own, unless it declares one of their tables: then they are sent first,
   * together, as one statement. So is any statement that declares nothing, and what is still held
   * goes before COMMIT. Each round trip to PostgreSQL is a wait, and every initiation of one
   * merchant waits behind the one holding its counters' row lock. Held statements go out in the
   * order they came, and before anything that reads or writes their tables; two for one table never
   * share a statement (rows one statement changes twice are an error in PostgreSQL); a failure in
   * them fails the statement they went with, and so the transaction, as it would have at their own
   * turn.
   */
  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const writes = this.inTransaction && this.holdsWrites ? writeOnlyOf(compiledQuery) : undefined
    if (writes !== undefined && !this.held.some((write) => write.writes.table === writes.table)) {
      this.held.push({ query: compiledQuery, writes })
      return { rows: [] }
    }
    if (this.held.length === 0) return this.send(compiledQuery)
    const carrier = writes === undefined ? carrierOf(compiledQuery) : undefined
    const combined =
      carrier !== undefined && !this.held.some((write) => carrier.tables.includes(write.writes.table))
        ? withWrites(this.held, { query: compiledQuery, node: carrier.node })
        : undefined
    if (combined === undefined) {
      await this.sendHeldWrites()
      return this.send(compiledQuery)
    }
    // A statement that touches none of their tables takes them along: no round trip of their own.
    this.held = []
    return this.send(combined)
  }

  async sendHeldWrites(): Promise<void> {
    const held = this.held
    this.held = []
    if (held.length === 0) return
    const combined = held.length > 1 ? withWrites(held, { query: selectNothing }) : undefined
    if (combined !== undefined) await this.send(combined)
    else for (const write of held) await this.send(write.query)
  }

  dropHeldWrites(): void {
    this.held = []
  }

  private async send<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    if (this.untrustedBecause) {
      throw new UntrustedConnectionError(
        `the connection was abandoned after: ${this.untrustedBecause.message}`,
      )
    }
    try {
      const { command, rowCount, rows, fields } = await this.client.query<unknown[]>({
        name: statementName(compiledQuery),
        text: compiledQuery.sql,
        values: [...compiledQuery.parameters],
        rowMode: 'array',
      })
      const changes =
        command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE'
      const objects = rows && rows.length > 0 ? rows.map(rowBuilderOf(fields)) : []
      return { numAffectedRows: changes ? BigInt(rowCount ?? 0) : undefined, rows: objects as R[] }
    } catch (error) {
      if (!answeredByServer(error))
        this.untrustedBecause = error instanceof Error ? error : new Error(String(error))
      throw error
    }
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered by this driver
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported by this driver')
  }
}

interface Placeable {
  query: CompiledQuery
  node?: RootOperationNode | undefined
}

/**
 * Held writes as WITH items of the statement `main`, their parameters and then its own, each
 * compiled from its node with its placeholders numbered after those before it; undefined when one
 * that needs renumbering has no node. They run as one statement with one snapshot, so none may
 * depend on another's writes: held statements write different tables and read nothing another
 * wrote, and `main` declares none of their tables. `main`'s answer (its rows, its count) is the
 * statement's answer.
 */
function withWrites(
  writes: readonly { query: CompiledQuery; writes: WriteOnly }[],
  main: Placeable,
): CompiledQuery | undefined {
  const parameters: unknown[] = []
  const items: string[] = []
  for (const [index, write] of writes.entries()) {
    const text = numberedFrom({ query: write.query, node: write.writes.node }, parameters.length)
    if (text === undefined) return undefined
    items.push(`w${index} as (${text})`)
    parameters.push(...write.query.parameters)
  }
  const mainText = numberedFrom(main, parameters.length)
  if (mainText === undefined) return undefined
  parameters.push(...main.query.parameters)
  return CompiledQuery.raw(`with ${items.join(', ')} ${mainText}`, parameters)
}

/** A statement's SQL with its parameters numbered after `offset` others; as compiled when none precede it. */
function numberedFrom({ query, node }: Placeable, offset: number): string | undefined {
  if (offset === 0 || query.parameters.length === 0) return query.sql
  return node && sqlNumberedFrom(node, offset)
}

/** What several held writes are sent with when nothing else is sent before COMMIT. */
const selectNothing = CompiledQuery.raw('select 1')

/**
 * Named statements are parsed and planned once per connection, then only bound and executed: the
 * same few dozen statements run on every request. Named are Kysely's queries and any statement
 * with parameters (pg sends those by the extended protocol in any case); transaction control, a
 * schema change or a raw script without parameters (which may hold several statements) goes
 * unnamed, and so does anything past the first `preparedLimit` distinct statements, so the
 * server's memory per connection stays bounded.
 */
const statementNames = new Map<string, string>()
const preparedLimit = 500
const queryKinds = new Set([
  'SelectQueryNode',
  'InsertQueryNode',
  'UpdateQueryNode',
  'DeleteQueryNode',
  'MergeQueryNode',
])

function statementName(query: CompiledQuery): string | undefined {
  const known = statementNames.get(query.sql)
  if (known !== undefined) return known
  const preparable = query.parameters.length > 0 || queryKinds.has(query.query.kind)
  if (statementNames.size >= preparedLimit || !preparable) return undefined
  const name = `sika_${statementNames.size + 1}`
  statementNames.set(query.sql, name)
  return name
}

/**
 * An error the server itself sent (a constraint, a statement or lock timeout) leaves the
 * connection in a known state; anything else (a client-side timeout, a broken link) does not. A
 * fatal server error ends the session, and pg already refuses to reuse such a client.
 */
function answeredByServer(error: unknown): boolean {
  return error instanceof pg.DatabaseError && error.severity !== 'FATAL' && error.severity !== 'PANIC'
}
