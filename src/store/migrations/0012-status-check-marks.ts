import type { Kysely } from 'kysely'
import type { StoreDialect } from '../dialect.ts'

/**
 * When a status check of each live side last began, on the side's own row (every live side has
 * one, by its operator reference): a check claims it with one conditional update, so that every
 * instance sees the same mark and a side is asked of its operator at most once a second across the
 * deployment (CONTRACT.md, Limits). Null until its first check: an insert pays nothing for it.
 */
export async function up(db: Kysely<any>, dialect: StoreDialect): Promise<void> {
  await db.schema
    .alterTable('operator_references')
    .addColumn('status_checked_at_us', dialect.bigintType)
    .execute()
}
