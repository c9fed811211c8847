import type { CompiledQuery, RootOperationNode } from 'kysely'

/**
 * What a statement declares to a driver that holds writes (postgres-driver.ts); the driver reads
 * these declarations and never the statement's text. Keyed by the compiled query object, which
 * Kysely hands to the driver unchanged.
 *
 * A write-only statement is one whose result nobody reads (an insert of events, of ledger entries,
 * an upsert of status counts), with the one table it writes: it may be held back and sent later,
 * before anything that reads or writes its table and before the transaction's COMMIT.
 *
 * A carrier is a plain INSERT, UPDATE, DELETE or SELECT, with no WITH of its own and no row lock
 * (PostgreSQL refuses FOR UPDATE beside data-modifying WITH items), with every table it reads or
 * writes: held writes of other tables may travel with it as its WITH items.
 *
 * Either may give its operation node, from which the driver compiles it with its parameters
 * numbered after those of the statements before it in one combined statement. A statement that
 * declares nothing is sent only after every held write has been sent.
 */
export interface WriteOnly {
  readonly table: string
  readonly node?: RootOperationNode
}

export interface Carrier {
  readonly tables: readonly string[]
  readonly node: RootOperationNode
}

const writeOnly = new WeakMap<CompiledQuery, WriteOnly>()
const carriers = new WeakMap<CompiledQuery, Carrier>()

export function markWriteOnly(query: CompiledQuery, writes: WriteOnly): CompiledQuery {
  writeOnly.set(query, writes)
  return query
}

export function markCarrier(query: CompiledQuery, carrier: Carrier): CompiledQuery {
  carriers.set(query, carrier)
  return query
}

/** What the statement writes, when nobody reads its result; undefined otherwise. */
export function writeOnlyOf(query: CompiledQuery): WriteOnly | undefined {
  return writeOnly.get(query)
}

/** The tables of a statement that may carry held writes; undefined for any other statement. */
export function carrierOf(query: CompiledQuery): Carrier | undefined {
  return carriers.get(query)
}
