import type { Kysely, Transaction } from 'kysely'
import type { Clock } from '../../domain/clock.ts'
import type { StoreDialect } from '../dialect.ts'
import type { Database } from '../schema.ts'

/** The database, or a transaction on it: repositories work the same on either. */
export type Executor = Kysely<Database> | Transaction<Database>

/** What every repository is built from. */
export interface RepositoryScope {
  db: Executor
  dialect: StoreDialect
  /** Read after a counter's lock is held, so list order and date order agree under concurrency. */
  clock: Clock
}
