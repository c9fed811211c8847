import { type Kysely, sql } from 'kysely'
import { platformRoles } from '../../domain/platform-roles.ts'
import type { StoreDialect } from '../dialect.ts'

/**
 * The platform's own members (the console's staff), apart from every merchant's: their recovery
 * codes, invitations, sessions, and the platform's audit log. Their attempts at secrets count in
 * `secret_attempts` under subjects of their own.
 */
export async function up(db: Kysely<any>, dialect: StoreDialect): Promise<void> {
  const big = dialect.bigintType
  await db.schema
    .createTable('platform_members')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('email', 'text', (column) => column.notNull())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('role', 'text', (column) => column.notNull().check(sqlIn('role', platformRoles)))
    .addColumn('password_hash', 'text')
    .addColumn('totp_sealed', 'text')
    .addColumn('totp_last_step', big, (column) => column.notNull().defaultTo(0))
    .addColumn('time_zone', 'text', (column) => column.notNull().defaultTo('UTC'))
    .addColumn('created_at_us', big, (column) => column.notNull())
    .addColumn('updated_at_us', big, (column) => column.notNull())
    .addColumn('removed_at_us', big)
    .execute()
  await db.schema
    .createIndex('platform_members_active_email')
    .on('platform_members')
    .column('email')
    .unique()
    .where(sql.ref('removed_at_us'), 'is', null)
    .execute()
  await db.schema
    .createTable('platform_member_recovery_codes')
    .addColumn('member_id', 'text', (column) => column.notNull().references('platform_members.id'))
    .addColumn('code_hash', 'text', (column) => column.notNull())
    .addColumn('created_at_us', big, (column) => column.notNull())
    .addColumn('used_at_us', big)
    .addPrimaryKeyConstraint('platform_member_recovery_codes_pk', ['member_id', 'code_hash'])
    .execute()
  await createInvitations(db, dialect)
  await createSessions(db, dialect)
  await createAuditLog(db, dialect)
}

async function createInvitations(db: Kysely<any>, dialect: StoreDialect): Promise<void> {
  const big = dialect.bigintType
  await db.schema
    .createTable('platform_invitations')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('email', 'text', (column) => column.notNull())
    .addColumn('role', 'text', (column) => column.notNull().check(sqlIn('role', platformRoles)))
    .addColumn('token_hash', 'text', (column) => column.notNull().unique())
    .addColumn('invited_by', 'text', (column) => column.notNull())
    .addColumn('created_at_us', big, (column) => column.notNull())
    .addColumn('expires_at_us', big, (column) => column.notNull())
    .addColumn('accepted_at_us', big)
    .addColumn('revoked_at_us', big)
    .addColumn('member_id', 'text', (column) => column.references('platform_members.id'))
    .execute()
}

async function createSessions(db: Kysely<any>, dialect: StoreDialect): Promise<void> {
  const big = dialect.bigintType
  await db.schema
    .createTable('platform_sessions')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('token_hash', 'text', (column) => column.notNull().unique())
    .addColumn('member_id', 'text', (column) => column.notNull().references('platform_members.id'))
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
    .createIndex('platform_sessions_by_member')
    .on('platform_sessions')
    .column('member_id')
    .execute()
}

async function createAuditLog(db: Kysely<any>, dialect: StoreDialect): Promise<void> {
  const big = dialect.bigintType
  await db.schema
    .createTable('platform_audit_log')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('actor_kind', 'text', (column) =>
      column.notNull().check(sqlIn('actor_kind', ['member', 'cli'])),
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
  // Newest first, a page at a time: a keyset seek on (at_us, id).
  await db.schema
    .createIndex('platform_audit_log_by_time')
    .on('platform_audit_log')
    .columns(['at_us', 'id'])
    .execute()
}

function sqlIn(column: string, values: readonly string[]) {
  return sql.raw(`${column} in (${values.map((value) => `'${value}'`).join(', ')})`)
}
