import { type Kysely, sql } from 'kysely'
import type { StoreDialect } from '../dialect.ts'

/** Merchants, their key pairs and webhook secrets, the catalogue, and settings. */
export async function up(db: Kysely<any>, dialect: StoreDialect): Promise<void> {
  const big = dialect.bigintType
  await db.schema
    .createTable('merchants')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull().check(sqlIn('status', ['active', 'suspended'])))
    .addColumn('created_at_us', big, (column) => column.notNull())
    .execute()

  await db.schema
    .createTable('api_keys')
    .addColumn('api_key', 'text', (column) => column.primaryKey())
    .addColumn('merchant_id', 'text', (column) => column.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (column) => column.notNull().check(sqlIn('mode', ['sandbox', 'live'])))
    .addColumn('secret_hash', 'text', (column) => column.notNull())
    .addColumn('created_at_us', big, (column) => column.notNull())
    .addColumn('revoked_at_us', big)
    .execute()
  await db.schema
    .createIndex('api_keys_by_merchant')
    .on('api_keys')
    .columns(['merchant_id', 'mode'])
    .execute()

  await db.schema
    .createTable('webhook_secrets')
    .addColumn('id', dialect.identityType, (column) => column.primaryKey())
    .addColumn('merchant_id', 'text', (column) => column.notNull().references('merchants.id'))
    .addColumn('secret_encrypted', 'text', (column) => column.notNull())
    .addColumn('created_at_us', big, (column) => column.notNull())
    .addColumn('expires_at_us', big)
    .execute()
  await db.schema
    .createIndex('webhook_secrets_by_merchant')
    .on('webhook_secrets')
    .column('merchant_id')
    .execute()

  await db.schema
    .createTable('channel_routes')
    .addColumn('channel', 'text', (column) => column.notNull())
    .addColumn('country', 'text', (column) => column.notNull())
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('channel_name', 'text', (column) => column.notNull())
    .addColumn('currency', 'text', (column) => column.notNull())
    .addColumn('min_amount_minor', big, (column) => column.notNull())
    .addColumn('max_amount_minor', big, (column) => column.notNull())
    .addPrimaryKeyConstraint('channel_routes_pk', ['channel', 'country', 'kind'])
    .execute()

  await db.schema
    .createTable('fee_schedule')
    .addColumn('merchant_id', 'text', (column) => column.notNull())
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('channel', 'text', (column) => column.notNull())
    .addColumn('country', 'text', (column) => column.notNull())
    .addColumn('percentage_milli', 'integer', (column) =>
      column.notNull().check(rawCheck('percentage_milli >= 0 and percentage_milli <= 100000')),
    )
    .addColumn('additional_fee_minor', big, (column) =>
      column.notNull().check(rawCheck('additional_fee_minor >= 0')),
    )
    .addColumn('supported_by_account', 'integer', (column) => column.notNull())
    .addPrimaryKeyConstraint('fee_schedule_pk', ['merchant_id', 'kind', 'channel', 'country'])
    .execute()

  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (column) => column.primaryKey())
    .addColumn('value', 'text', (column) => column.notNull())
    .execute()
}

function sqlIn(column: string, values: string[]) {
  return sql.raw(`${column} in (${values.map((value) => `'${value}'`).join(', ')})`)
}

function rawCheck(expression: string) {
  return sql.raw(expression)
}
