import type { Kysely } from 'kysely'
import type { StoreDialect } from '../dialect.ts'
import { countExistingStatuses } from '../repositories/status-buckets.ts'

/**
 * How many operations of each status lie in each block of list positions, at two block sizes
 * (`level`), per merchant, mode and kind: a list filtered on status reads its total and finds its
 * page's first row from these counts instead of counting and skipping the matching rows
 * (status-buckets.ts).
 */
export async function up(db: Kysely<any>, dialect: StoreDialect): Promise<void> {
  await db.schema
    .createTable('status_buckets')
    .addColumn('merchant_id', 'text', (column) => column.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (column) => column.notNull())
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('level', 'integer', (column) => column.notNull())
    .addColumn('bucket', dialect.bigintType, (column) => column.notNull())
    .addColumn('count', dialect.bigintType, (column) => column.notNull())
    .addPrimaryKeyConstraint('status_buckets_pk', [
      'merchant_id',
      'mode',
      'kind',
      'status',
      'level',
      'bucket',
    ])
    .execute()
  await countExistingStatuses(db, undefined)
}
