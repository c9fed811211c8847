import { type Kysely, sql } from 'kysely'
import type { StoreDialect } from '../dialect.ts'

/**
 * The reconciliation (CONTRACT.md, Reconciliation): one run per connection and day, leased as
 * scheduled work is so two instances never run one day at once; one break per (connection, day,
 * kind, reference), so a break found again keeps its id and its history; the changes of each
 * break's state; the operator's documents kept byte for byte with their SHA-256 as evidence.
 */
export async function up(db: Kysely<any>, dialect: StoreDialect): Promise<void> {
  const big = dialect.bigintType
  await db.schema
    .createTable('reconciliation_runs')
    .addColumn('id', dialect.identityType, (column) => column.primaryKey())
    .addColumn('connection_id', 'text', (column) => column.notNull())
    .addColumn('day', 'text', (column) => column.notNull())
    // due, running, completed, failed
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('reason', 'text')
    .addColumn('lines', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('matched', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('matched_amount_minor', big, (column) => column.notNull().defaultTo(0))
    .addColumn('due_at_us', big, (column) => column.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until_us', big)
    .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('started_at_us', big)
    .addColumn('completed_at_us', big)
    .addUniqueConstraint('reconciliation_runs_day', ['connection_id', 'day'])
    .execute()
  await db.schema
    .createIndex('reconciliation_runs_due')
    .on('reconciliation_runs')
    .columns(['status', 'due_at_us'])
    .execute()
  await db.schema
    .createTable('reconciliation_breaks')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('connection_id', 'text', (column) => column.notNull())
    .addColumn('day', 'text', (column) => column.notNull())
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('reference', 'text', (column) => column.notNull())
    .addColumn('operation_id', 'integer')
    .addColumn('token', 'text')
    .addColumn('role', 'text')
    .addColumn('operator_reference', 'text')
    .addColumn('amount_minor', big, (column) => column.notNull())
    .addColumn('currency', 'text', (column) => column.notNull())
    .addColumn('detail', 'text', (column) => column.notNull())
    // JSON: the operator's lines as received.
    .addColumn('lines', 'text', (column) => column.notNull())
    // open, auto_resolved, resolved, ignored
    .addColumn('state', 'text', (column) => column.notNull())
    // JSON: the status answer of a repair, or what closed the break.
    .addColumn('evidence', 'text')
    .addColumn('reason', 'text')
    // JSON: a resolution that waits for a second finance member.
    .addColumn('pending_approval', 'text')
    .addColumn('found_at_us', big, (column) => column.notNull())
    .addColumn('last_seen_at_us', big, (column) => column.notNull())
    .addColumn('closed_at_us', big)
    .addUniqueConstraint('reconciliation_breaks_identity', ['connection_id', 'day', 'kind', 'reference'])
    .execute()
  await db.schema
    .createIndex('reconciliation_breaks_state')
    .on('reconciliation_breaks')
    .columns(['state', 'connection_id', 'kind'])
    .execute()
  await db.schema
    .createIndex('reconciliation_breaks_operation')
    .on('reconciliation_breaks')
    .column('operation_id')
    .execute()
  await db.schema
    .createTable('reconciliation_break_history')
    .addColumn('id', dialect.identityType, (column) => column.primaryKey())
    .addColumn('break_id', 'text', (column) => column.notNull())
    .addColumn('at_us', big, (column) => column.notNull())
    // found, auto_resolved, resolved, ignored, approval_asked, reopened
    .addColumn('what', 'text', (column) => column.notNull())
    .addColumn('actor', 'text', (column) => column.notNull())
    .addColumn('detail', 'text')
    .execute()
  await db.schema
    .createIndex('reconciliation_break_history_break')
    .on('reconciliation_break_history')
    .columns(['break_id', 'id'])
    .execute()
  await db.schema
    .createTable('reconciliation_files')
    .addColumn('id', dialect.identityType, (column) => column.primaryKey())
    .addColumn('connection_id', 'text', (column) => column.notNull())
    .addColumn('day', 'text', (column) => column.notNull())
    // statement, balance, import
    .addColumn('source', 'text', (column) => column.notNull())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('content_type', 'text', (column) => column.notNull())
    .addColumn('sha256', 'text', (column) => column.notNull())
    // The bytes, gzipped then base64: one column type on both stores, a busy day's CSV a tenth of its size.
    .addColumn('content', 'text', (column) => column.notNull())
    // JSON: an import's column mapping.
    .addColumn('mapping', 'text')
    .addColumn('created_at_us', big, (column) => column.notNull())
    .addUniqueConstraint('reconciliation_files_identity', ['connection_id', 'day', 'source', 'sha256'])
    .execute()
  // A run reads the live operations of its connection's channel begun near its day, any merchant.
  // Partial on live mode: a sandbox operation, the bulk of most installations' writes, enters neither.
  await db.schema
    .createIndex('operations_live_by_channel_date')
    .on('operations')
    .columns(['channel', 'initiated_at_us'])
    .where(sql.ref('mode'), '=', sql.lit('live'))
    .execute()
  await db.schema
    .createIndex('operations_live_by_to_channel_date')
    .on('operations')
    .columns(['to_channel', 'initiated_at_us'])
    .where((eb) =>
      eb.and([eb(sql.ref('mode'), '=', sql.lit('live')), eb(sql.ref('to_channel'), 'is not', null)]),
    )
    .execute()
}
