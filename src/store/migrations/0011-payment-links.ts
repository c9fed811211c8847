import { type Kysely, sql } from 'kysely'
import type { StoreDialect } from '../dialect.ts'

/**
 * Payment links (CONTRACT.md, Payment links): the links, and on each collect the token of the link
 * it was paid through. Counts and amounts are never stored: they are read from the link's
 * collects, so no settlement has to update a link.
 */
export async function up(db: Kysely<any>, dialect: StoreDialect): Promise<void> {
  const big = dialect.bigintType
  await db.schema
    .createTable('payment_links')
    .addColumn('token', 'text', (column) => column.primaryKey())
    .addColumn('merchant_id', 'text', (column) => column.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (column) => column.notNull())
    .addColumn('merchant_reference', 'text', (column) => column.notNull())
    .addColumn('request_hash', 'text', (column) => column.notNull())
    .addColumn('description', 'text', (column) => column.notNull())
    .addColumn('country', 'text', (column) => column.notNull())
    .addColumn('currency', 'text', (column) => column.notNull())
    // Either a fixed amount, or a range the customer types an amount in.
    .addColumn('amount_minor', big)
    .addColumn('min_minor', big)
    .addColumn('max_minor', big)
    // JSON: the channels offered.
    .addColumn('channels', 'text', (column) => column.notNull())
    .addColumn('reusable', 'integer', (column) => column.notNull())
    .addColumn('expires_at_us', big, (column) => column.notNull())
    .addColumn('callback_url', 'text')
    .addColumn('succeeded_url', 'text')
    .addColumn('metadata', 'text')
    .addColumn('created_at_us', big, (column) => column.notNull())
    .addColumn('closed_at_us', big)
    // The n of the next collect's merchantReference `<merchantReference>-<n>`.
    .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
    // A single-use link's payment in flight: the n it was given, and when (payment-links.ts).
    .addColumn('claim_number', 'integer')
    .addColumn('claimed_at_us', big)
    .execute()
  await db.schema
    .createIndex('payment_links_by_reference')
    .on('payment_links')
    .columns(['merchant_id', 'mode', 'merchant_reference'])
    .unique()
    .execute()
  await db.schema
    .createIndex('payment_links_by_merchant')
    .on('payment_links')
    .columns(['merchant_id', 'mode', 'created_at_us'])
    .execute()
  await db.schema.alterTable('operations').addColumn('payment_link', 'text').execute()
  // Only the collects of links are in it: every other operation's insert pays nothing for it.
  await db.schema
    .createIndex('operations_by_payment_link')
    .on('operations')
    .columns(['payment_link', 'position'])
    .where(sql.ref('payment_link'), 'is not', null)
    .execute()
}
