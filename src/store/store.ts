import { Kysely, type Migration, Migrator, sql, type Transaction } from 'kysely'
import { type DatabaseLocation, prepareDatabaseFolder } from '../config.ts'
import { createDialect, type StoreDialect } from './dialect.ts'
import * as foundation from './migrations/0001-foundation.ts'
import * as defaultCatalogue from './migrations/0002-default-catalogue.ts'
import * as ledger from './migrations/0003-ledger.ts'
import * as lifecycle from './migrations/0004-lifecycle.ts'
import type { Database } from './schema.ts'

export type Executor = Kysely<Database> | Transaction<Database>

/** One database, whichever of the two it is: the only handle the rest of the code holds. */
export interface Store {
  readonly db: Kysely<Database>
  readonly dialect: StoreDialect
  transaction<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T>
  /** Resolves when the database answers a query. */
  ping(): Promise<void>
  close(): Promise<void>
}

export function openStore(location: DatabaseLocation): Store {
  prepareDatabaseFolder(location)
  const dialect = createDialect(location)
  const db = new Kysely<Database>({ dialect: dialect.kyselyDialect })
  let closed = false
  return {
    db,
    dialect,
    transaction: (work) => db.transaction().execute(work),
    ping: async () => {
      await sql`select 1`.execute(db)
    },
    close: async () => {
      if (closed) return
      closed = true
      await db.destroy()
      await dialect.close()
    },
  }
}

type MigrationModule = { up(db: Kysely<any>, dialect: StoreDialect): Promise<void> }

/** In order; a name, once shipped, never changes. */
const migrations: Record<string, MigrationModule> = {
  '0001-foundation': foundation,
  '0002-default-catalogue': defaultCatalogue,
  '0003-ledger': ledger,
  '0004-lifecycle': lifecycle,
}

/** Applies what is missing; a second run finds nothing to do. Concurrent runs are serialised by Kysely's lock table. */
export async function migrate(store: Store): Promise<string[]> {
  const migrator = new Migrator({
    db: store.db,
    provider: {
      getMigrations: async () =>
        Object.fromEntries(
          Object.entries(migrations).map(([name, module]): [string, Migration] => [
            name,
            { up: (db) => module.up(db, store.dialect) },
          ]),
        ),
    },
  })
  const { error, results = [] } = await migrator.migrateToLatest()
  if (error) throw error
  const failed = results.find((result) => result.status === 'Error')
  if (failed) throw new Error(`migration ${failed.migrationName} failed`)
  return results.filter((result) => result.status === 'Success').map((result) => result.migrationName)
}
