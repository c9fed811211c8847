import type { CompiledQuery } from 'kysely'

/**
 * Statements whose results nobody reads (an insert of events, of ledger entries, an upsert of
 * status counts), each with the one table it writes. A driver may hold such a statement back and
 * send it later with others, as long as it is sent before anything that reads or writes its table
 * and before the transaction's COMMIT (postgres-driver.ts). Keyed by the compiled query object,
 * which Kysely hands to the driver unchanged.
 */
const writeOnly = new WeakMap<CompiledQuery, string>()

export function markWriteOnly(query: CompiledQuery, table: string): CompiledQuery {
  writeOnly.set(query, table)
  return query
}

/** The table the statement writes, when nobody reads its result; undefined otherwise. */
export function writeOnlyTable(query: CompiledQuery): string | undefined {
  return writeOnly.get(query)
}
