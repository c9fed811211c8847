import { type Kysely, sql } from 'kysely'
import type { StoreDialect } from '../dialect.ts'

/**
 * Payout batches (CONTRACT.md, Payout batches): the batch row, its items (each an ordinary
 * disbursement, listed here in the batch's order with whether the batch worker has handed it on),
 * and the merchant's setting that makes API batches wait for approval.
 */
export async function up(db: Kysely<any>, dialect: StoreDialect): Promise<void> {
  const big = dialect.bigintType
  await db.schema
    .createTable('payout_batches')
    .addColumn('id', dialect.identityType, (column) => column.primaryKey())
    .addColumn('token', 'text', (column) => column.notNull().unique())
    .addColumn('merchant_id', 'text', (column) => column.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (column) => column.notNull())
    .addColumn('merchant_reference', 'text', (column) => column.notNull())
    .addColumn('request_hash', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('currency', 'text', (column) => column.notNull())
    .addColumn('item_count', 'integer', (column) => column.notNull())
    .addColumn('total_minor', big, (column) => column.notNull())
    .addColumn('callback_url', 'text')
    .addColumn('metadata', 'text')
    .addColumn('created_by', 'text')
    .addColumn('created_by_member', 'text')
    .addColumn('approved_by', 'text')
    .addColumn('first_operation_id', big, (column) => column.notNull())
    .addColumn('initiated_at_us', big, (column) => column.notNull())
    .addColumn('completed_at_us', big)
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until_us', big)
    .addColumn('next_look_at_us', big)
    .execute()
  await db.schema
    .createIndex('payout_batches_by_reference')
    .on('payout_batches')
    .columns(['merchant_id', 'mode', 'merchant_reference'])
    .unique()
    .execute()
  await db.schema
    .createIndex('payout_batches_by_merchant')
    .on('payout_batches')
    .columns(['merchant_id', 'mode', 'id'])
    .execute()
  // The batch worker's look: batches being processed, by when they are next due a look.
  await db.schema
    .createIndex('payout_batches_processing')
    .on('payout_batches')
    .column('next_look_at_us')
    .where(sql.ref('status'), '=', 'processing')
    .execute()
  await db.schema
    .createTable('payout_batch_items')
    .addColumn('batch_id', big, (column) => column.notNull().references('payout_batches.id'))
    .addColumn('item_index', 'integer', (column) => column.notNull())
    .addColumn('operation_id', big, (column) => column.notNull().references('operations.id').unique())
    /** 0 while queued in the batch; 1 once the batch worker has claimed it for its operator. */
    .addColumn('dispatched', 'integer', (column) => column.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('payout_batch_items_pk', ['batch_id', 'item_index'])
    .execute()
  await db.schema
    .createIndex('payout_batch_items_queued')
    .on('payout_batch_items')
    .columns(['batch_id', 'item_index'])
    .where(sql.ref('dispatched'), '=', 0)
    .execute()
  await db.schema
    .alterTable('merchants')
    .addColumn('require_batch_approval', 'integer', (column) => column.notNull().defaultTo(0))
    .execute()
}
