import { type Kysely, sql } from 'kysely'
import type { StoreDialect } from '../dialect.ts'

/**
 * What the platform controls of a merchant: its payouts paused (when, and the reason given), and
 * its limits per mode and currency. A day's payouts are counted from the ledger, through an index
 * of the payout entries alone, so that a collect's entry costs it nothing.
 */
export async function up(db: Kysely<any>, dialect: StoreDialect): Promise<void> {
  await db.schema.alterTable('merchants').addColumn('payouts_paused_at_us', dialect.bigintType).execute()
  await db.schema.alterTable('merchants').addColumn('payouts_paused_reason', 'text').execute()
  await db.schema
    .createTable('merchant_limits')
    .addColumn('merchant_id', 'text', (column) => column.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (column) => column.notNull())
    .addColumn('currency', 'text', (column) => column.notNull())
    .addColumn('max_amount_minor', dialect.bigintType)
    .addColumn('daily_payout_limit_minor', dialect.bigintType)
    .addPrimaryKeyConstraint('merchant_limits_key', ['merchant_id', 'mode', 'currency'])
    .execute()
  await db.schema
    .createIndex('ledger_entries_payouts_by_day')
    .on('ledger_entries')
    .columns(['merchant_id', 'mode', 'currency', 'created_at_us'])
    .where(sql.ref('type'), '=', 'cash-out')
    .execute()
}
