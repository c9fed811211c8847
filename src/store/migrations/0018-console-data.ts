import type { Kysely } from 'kysely'
import type { StoreDialect } from '../dialect.ts'

/**
 * The console overview's figures per operator connection and hour: the live operations initiated
 * in the hour through a channel and country, how many ended and succeeded, and how long those that
 * ended took, counted in fixed duration buckets. Written by a roll-up the workers run once a
 * minute from the operations themselves (read by their primary key), never by the write path: a
 * collect pays nothing for it. A small table (connections x 24 x 30 rows a month), read whole for
 * 30 days.
 */
export async function up(db: Kysely<any>, dialect: StoreDialect): Promise<void> {
  await db.schema
    .createTable('operator_hours')
    .addColumn('channel', 'text', (column) => column.notNull())
    .addColumn('country', 'text', (column) => column.notNull())
    .addColumn('hour_us', dialect.bigintType, (column) => column.notNull())
    .addColumn('operations', 'integer', (column) => column.notNull())
    .addColumn('succeeded', 'integer', (column) => column.notNull())
    .addColumn('ended', 'integer', (column) => column.notNull())
    // JSON: how many of those that ended fell in each bucket of domain/operator-hours.ts.
    .addColumn('ended_by_duration', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('operator_hours_pk', ['hour_us', 'channel', 'country'])
    .execute()
}
