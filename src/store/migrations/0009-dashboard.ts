import { type Kysely, sql } from 'kysely'
import { roles } from '../../domain/roles.ts'
import type { StoreDialect } from '../dialect.ts'

/**
 * The dashboard: its members with their recovery codes, invitations, sessions, the audit log,
 * per-address sign-in failures, and the operations indexes its search and list read.
 */
export async function up(db: Kysely<any>, dialect: StoreDialect): Promise<void> {
  await createMembers(db, dialect)
  await createInvitations(db, dialect)
  await createSessions(db, dialect)
  await createAuditLog(db, dialect)
  await createOperationsIndexes(db)
}

async function createMembers(db: Kysely<any>, dialect: StoreDialect): Promise<void> {
  const big = dialect.bigintType
  await db.schema
    .createTable('members')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('merchant_id', 'text', (column) => column.notNull().references('merchants.id'))
    .addColumn('email', 'text', (column) => column.notNull())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('role', 'text', (column) => column.notNull().check(sqlIn('role', roles)))
    .addColumn('password_hash', 'text')
    .addColumn('totp_sealed', 'text')
    .addColumn('totp_last_step', big, (column) => column.notNull().defaultTo(0))
    .addColumn('failed_sign_ins', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('locked_until_us', big)
    .addColumn('time_zone', 'text', (column) => column.notNull().defaultTo('UTC'))
    .addColumn('created_at_us', big, (column) => column.notNull())
    .addColumn('updated_at_us', big, (column) => column.notNull())
    .addColumn('removed_at_us', big)
    .execute()
  // One active member per address, whatever the merchant: sign-in starts from the address alone.
  // A removed member's address may be invited again.
  await db.schema
    .createIndex('members_active_email')
    .on('members')
    .column('email')
    .unique()
    .where(sql.ref('removed_at_us'), 'is', null)
    .execute()
  await db.schema.createIndex('members_by_merchant').on('members').column('merchant_id').execute()

  await db.schema
    .createTable('member_recovery_codes')
    .addColumn('member_id', 'text', (column) => column.notNull().references('members.id'))
    // SHA-256 of the code, hex: a stolen copy of the database gives no usable code.
    .addColumn('code_hash', 'text', (column) => column.notNull())
    .addColumn('created_at_us', big, (column) => column.notNull())
    .addColumn('used_at_us', big)
    .addPrimaryKeyConstraint('member_recovery_codes_pk', ['member_id', 'code_hash'])
    .execute()

  // One row per address: the failures of its current window.
  await db.schema
    .createTable('sign_in_failures')
    .addColumn('address', 'text', (column) => column.primaryKey())
    .addColumn('window_start_us', big, (column) => column.notNull())
    .addColumn('count', 'integer', (column) => column.notNull())
    .execute()

  // An email no member has counts its failures and locks as a member's row does, so the answer
  // to a sign-in never tells which emails are members'.
  await db.schema
    .createTable('unknown_email_failures')
    .addColumn('email_hash', 'text', (column) => column.primaryKey())
    .addColumn('failed_sign_ins', 'integer', (column) => column.notNull())
    .addColumn('locked_until_us', big)
    .execute()
}

async function createInvitations(db: Kysely<any>, dialect: StoreDialect): Promise<void> {
  const big = dialect.bigintType
  await db.schema
    .createTable('invitations')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('merchant_id', 'text', (column) => column.notNull().references('merchants.id'))
    .addColumn('email', 'text', (column) => column.notNull())
    .addColumn('role', 'text', (column) => column.notNull().check(sqlIn('role', roles)))
    .addColumn('token_hash', 'text', (column) => column.notNull().unique())
    .addColumn('invited_by', 'text', (column) => column.notNull())
    .addColumn('created_at_us', big, (column) => column.notNull())
    .addColumn('expires_at_us', big, (column) => column.notNull())
    .addColumn('accepted_at_us', big)
    .addColumn('revoked_at_us', big)
    .addColumn('member_id', 'text', (column) => column.references('members.id'))
    .execute()
  await db.schema
    .createIndex('invitations_by_merchant')
    .on('invitations')
    .columns(['merchant_id', 'created_at_us'])
    .execute()
}

async function createSessions(db: Kysely<any>, dialect: StoreDialect): Promise<void> {
  const big = dialect.bigintType
  await db.schema
    .createTable('dashboard_sessions')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('token_hash', 'text', (column) => column.notNull().unique())
    .addColumn('member_id', 'text', (column) => column.notNull().references('members.id'))
    .addColumn('merchant_id', 'text', (column) => column.notNull().references('merchants.id'))
    .addColumn('stage', 'text', (column) =>
      column.notNull().check(sqlIn('stage', ['second-factor', 'enrolment', 'signed-in'])),
    )
    .addColumn('created_at_us', big, (column) => column.notNull())
    .addColumn('last_seen_at_us', big, (column) => column.notNull())
    .addColumn('absolute_ends_at_us', big, (column) => column.notNull())
    .addColumn('ended_at_us', big)
    .addColumn('ended_reason', 'text')
    .addColumn('address', 'text', (column) => column.notNull())
    .addColumn('user_agent', 'text', (column) => column.notNull())
    .execute()
  await db.schema
    .createIndex('dashboard_sessions_by_merchant')
    .on('dashboard_sessions')
    .column('merchant_id')
    .execute()
  await db.schema
    .createIndex('dashboard_sessions_by_member')
    .on('dashboard_sessions')
    .column('member_id')
    .execute()
}

async function createAuditLog(db: Kysely<any>, dialect: StoreDialect): Promise<void> {
  const big = dialect.bigintType
  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('merchant_id', 'text', (column) => column.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (column) => column.check(sqlIn('mode', ['sandbox', 'live'])))
    .addColumn('actor_kind', 'text', (column) =>
      column.notNull().check(sqlIn('actor_kind', ['member', 'cli', 'api'])),
    )
    .addColumn('actor_id', 'text')
    .addColumn('actor_label', 'text', (column) => column.notNull())
    .addColumn('action', 'text', (column) => column.notNull())
    .addColumn('target', 'text', (column) => column.notNull())
    .addColumn('before_json', 'text')
    .addColumn('after_json', 'text')
    .addColumn('address', 'text')
    .addColumn('at_us', big, (column) => column.notNull())
    .execute()
  // Newest first, a page at a time: a keyset seek on (at_us, id) within the merchant.
  await db.schema
    .createIndex('audit_log_by_merchant_time')
    .on('audit_log')
    .columns(['merchant_id', 'at_us', 'id'])
    .execute()
}

async function createOperationsIndexes(db: Kysely<any>): Promise<void> {
  // A search by phone reads a customer's operations newest first, however many they have: the
  // date follows the number in the index, so a page is a range read, never a sort of them all.
  // The API's lists by phone read the same index by its prefix.
  await db.schema.dropIndex('operations_by_phone').execute()
  await db.schema
    .createIndex('operations_by_phone')
    .on('operations')
    .columns(['merchant_id', 'mode', 'phone_number', 'initiated_at_us', 'id'])
    .execute()
  // The receiving side of transfers too; only multi-sided operations have one, so the index
  // leaves the others out.
  await db.schema
    .createIndex('operations_by_to_phone')
    .on('operations')
    .columns(['merchant_id', 'mode', 'to_phone_number', 'initiated_at_us', 'id'])
    .where(sql.ref('to_phone_number'), 'is not', null)
    .execute()
  // The dashboard lists every kind together, newest first: operations_by_date has the kind
  // before the date, so only this one reads a cross-kind page in order.
  await db.schema
    .createIndex('operations_by_merchant_date')
    .on('operations')
    .columns(['merchant_id', 'mode', 'initiated_at_us', 'id'])
    .execute()
}

function sqlIn(column: string, values: readonly string[]) {
  return sql.raw(`${column} in (${values.map((value) => `'${value}'`).join(', ')})`)
}
