import { type Kysely, sql } from 'kysely'
import type { StoreDialect } from '../dialect.ts'

/** The callbacks outbox with its delivery attempts, and the scheduled work of pending operations. */
export async function up(db: Kysely<any>, dialect: StoreDialect): Promise<void> {
  const big = dialect.bigintType
  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('merchant_id', 'text', (column) => column.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (column) => column.notNull())
    .addColumn('position', big, (column) => column.notNull())
    .addColumn('operation_id', big, (column) => column.notNull().references('operations.id'))
    .addColumn('type', 'text', (column) => column.notNull())
    .addColumn('payload', 'text', (column) => column.notNull())
    .addColumn('callback_url', 'text')
    .addColumn('created_at_us', big, (column) => column.notNull())
    .addColumn('delivery_status', 'text', (column) =>
      column
        .notNull()
        .check(sql`delivery_status in ('pending', 'delivered', 'stopped', 'given_up', 'no_callback')`),
    )
    .addColumn('attempts', 'integer', (column) => column.notNull())
    .addColumn('next_attempt_at_us', big)
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until_us', big)
    .addColumn('delivered_at_us', big)
    .addUniqueConstraint('events_position_once', ['merchant_id', 'mode', 'position'])
    .execute()
  // The dispatcher's question, "what is due?", reads only undelivered rows.
  await db.schema
    .createIndex('events_due')
    .on('events')
    .columns(['next_attempt_at_us'])
    .where(sql.ref('delivery_status'), '=', 'pending')
    .execute()
  await db.schema.createIndex('events_by_operation').on('events').column('operation_id').execute()

  await db.schema
    .createTable('event_attempts')
    .addColumn('id', dialect.identityType, (column) => column.primaryKey())
    .addColumn('event_id', 'text', (column) => column.notNull().references('events.id'))
    .addColumn('number', 'integer', (column) => column.notNull())
    .addColumn('started_at_us', big, (column) => column.notNull())
    .addColumn('duration_ms', 'integer', (column) => column.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('outcome', 'text', (column) => column.notNull())
    .execute()
  await db.schema
    .createIndex('event_attempts_by_event')
    .on('event_attempts')
    .columns(['event_id', 'number'])
    .execute()

  await db.schema
    .createTable('scheduled_work')
    .addColumn('id', dialect.identityType, (column) => column.primaryKey())
    .addColumn('kind', 'text', (column) => column.notNull().check(sql`kind in ('submit', 'poll', 'expire')`))
    .addColumn('operation_id', big, (column) => column.notNull().references('operations.id'))
    .addColumn('role', 'text', (column) => column.notNull())
    .addColumn('due_at_us', big, (column) => column.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until_us', big)
    .addColumn('attempts', 'integer', (column) => column.notNull())
    .addColumn('done_at_us', big)
    .execute()
  await db.schema
    .createIndex('scheduled_work_due')
    .on('scheduled_work')
    .column('due_at_us')
    .where(sql.ref('done_at_us'), 'is', null)
    .execute()
}
