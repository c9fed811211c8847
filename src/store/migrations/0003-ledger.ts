import { type Kysely, sql } from 'kysely'
import type { StoreDialect } from '../dialect.ts'

/** Operations, balances, the ledger's entries and the counters that number them. */
export async function up(db: Kysely<any>, dialect: StoreDialect): Promise<void> {
  const big = dialect.bigintType
  await db.schema
    .createTable('balances')
    .addColumn('merchant_id', 'text', (column) => column.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (column) => column.notNull())
    .addColumn('currency', 'text', (column) => column.notNull())
    .addColumn('posted_minor', big, (column) => column.notNull())
    .addColumn('held_minor', big, (column) => column.notNull())
    .addPrimaryKeyConstraint('balances_pk', ['merchant_id', 'mode', 'currency'])
    // Overdraft is impossible by construction: no statement can leave holds above the balance.
    .addCheckConstraint('balances_never_overdrawn', sql`held_minor >= 0 and held_minor <= posted_minor`)
    .execute()

  await db.schema
    .createTable('counters')
    .addColumn('merchant_id', 'text', (column) => column.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (column) => column.notNull())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('value', big, (column) => column.notNull())
    .addPrimaryKeyConstraint('counters_pk', ['merchant_id', 'mode', 'name'])
    .execute()

  await db.schema
    .createTable('operations')
    .addColumn('id', dialect.identityType, (column) => column.primaryKey())
    .addColumn('token', 'text', (column) => column.notNull().unique())
    .addColumn('merchant_id', 'text', (column) => column.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (column) => column.notNull())
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('position', big, (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('merchant_reference', 'text', (column) => column.notNull())
    .addColumn('request_hash', 'text', (column) => column.notNull())
    .addColumn('currency', 'text', (column) => column.notNull())
    .addColumn('channel', 'text', (column) => column.notNull())
    .addColumn('country', 'text', (column) => column.notNull())
    .addColumn('phone_number', 'text', (column) => column.notNull())
    .addColumn('to_channel', 'text')
    .addColumn('to_country', 'text')
    .addColumn('to_phone_number', 'text')
    .addColumn('sides', 'text', (column) => column.notNull())
    .addColumn('urls', 'text', (column) => column.notNull())
    .addColumn('redirect_url', 'text')
    .addColumn('failure_code', 'text')
    .addColumn('failure_message', 'text')
    .addColumn('initiated_at_us', big, (column) => column.notNull())
    .addColumn('completed_at_us', big)
    .addColumn('updated_at_us', big, (column) => column.notNull())
    // Idempotency is this constraint, not a read-then-write check.
    .addUniqueConstraint('operations_reference_once', ['merchant_id', 'mode', 'kind', 'merchant_reference'])
    .addUniqueConstraint('operations_position_once', ['merchant_id', 'mode', 'kind', 'position'])
    .execute()
  await db.schema
    .createIndex('operations_by_status')
    .on('operations')
    .columns(['merchant_id', 'mode', 'kind', 'status', 'position'])
    .execute()
  await db.schema
    .createIndex('operations_by_date')
    .on('operations')
    .columns(['merchant_id', 'mode', 'kind', 'initiated_at_us'])
    .execute()
  await db.schema
    .createIndex('operations_by_phone')
    .on('operations')
    .columns(['merchant_id', 'mode', 'phone_number'])
    .execute()

  await db.schema
    .createTable('ledger_entries')
    .addColumn('id', dialect.identityType, (column) => column.primaryKey())
    .addColumn('merchant_id', 'text', (column) => column.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (column) => column.notNull())
    .addColumn('sequence', big, (column) => column.notNull())
    .addColumn('reference', 'text', (column) => column.notNull().unique())
    .addColumn('operation_id', big, (column) => column.notNull().references('operations.id'))
    .addColumn('operation_kind', 'text', (column) => column.notNull())
    .addColumn('type', 'text', (column) =>
      column.notNull().check(sql`type in ('cash-in', 'cash-out', 'reversal')`),
    )
    .addColumn('currency', 'text', (column) => column.notNull())
    .addColumn('amount_minor', big, (column) => column.notNull().check(sql`amount_minor > 0`))
    .addColumn('status', 'text', (column) =>
      column.notNull().check(sql`status in ('pending', 'succeeded', 'canceled')`),
    )
    .addColumn('created_at_us', big, (column) => column.notNull())
    .addColumn('updated_at_us', big, (column) => column.notNull())
    .addUniqueConstraint('ledger_entries_sequence_once', ['merchant_id', 'mode', 'sequence'])
    .execute()
  await db.schema
    .createIndex('ledger_entries_by_operation')
    .on('ledger_entries')
    .column('operation_id')
    .execute()
  await db.schema
    .createIndex('ledger_entries_by_date')
    .on('ledger_entries')
    .columns(['merchant_id', 'mode', 'created_at_us'])
    .execute()
}
