import { type Kysely, sql } from 'kysely'
import type { StoreDialect } from '../dialect.ts'
import { statusBucketSize } from '../repositories/status-buckets.ts'

/**
 * How many operations of each status lie in each block of list positions, per merchant, mode and
 * kind: a list filtered on status reads its total and finds its page's first row from these
 * counts instead of counting and skipping the matching rows (status-buckets.ts).
 */
export async function up(db: Kysely<any>, dialect: StoreDialect): Promise<void> {
  await db.schema
    .createTable('status_buckets')
    .addColumn('merchant_id', 'text', (column) => column.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (column) => column.notNull())
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('bucket', dialect.bigintType, (column) => column.notNull())
    .addColumn('count', dialect.bigintType, (column) => column.notNull())
    .addPrimaryKeyConstraint('status_buckets_pk', ['merchant_id', 'mode', 'kind', 'status', 'bucket'])
    .execute()
  await sql`
    insert into status_buckets (merchant_id, mode, kind, status, bucket, count)
    select merchant_id, mode, kind, status, position / ${sql.lit(statusBucketSize)}, count(*)
    from operations
    group by merchant_id, mode, kind, status, position / ${sql.lit(statusBucketSize)}
  `.execute(db)
}
