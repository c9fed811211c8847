import { type Kysely, sql } from 'kysely'
import type { StoreDialect } from '../dialect.ts'

/**
 * A payout batch's events get a subject of their own (`events.payout_batch_id`): the outbox keeps
 * one subject's events in order and holds no other subject's back. A batch's event stays beside
 * its first item's operation (`operation_id`, through events_by_operation, finds a subject's
 * events without a new index), but is no longer ordered behind that item's events, nor they
 * behind it.
 *
 * On a long-lived store with millions of events nothing is rewritten and nothing scanned: the
 * column is nullable without a default (a change of the catalogue on both stores; PostgreSQL does
 * not check a new, empty column against its foreign key), and the batches' existing events, one
 * per concluded batch, are found through their first items' operations, a chunk of batches a
 * statement.
 */
export async function up(db: Kysely<any>, dialect: StoreDialect): Promise<void> {
  await db.schema
    .alterTable('events')
    .addColumn('payout_batch_id', dialect.bigintType, (column) => column.references('payout_batches.id'))
    .execute()
  await moveBatchEventsToTheirSubject(db)
}

/** The events a concluded batch wrote beside its first item's operation, before they had a subject, given theirs. */
export async function moveBatchEventsToTheirSubject(db: Kysely<any>): Promise<void> {
  const batches = await db
    .selectFrom('payout_batches')
    .select(['id', 'first_operation_id'])
    .where('status', 'in', ['completed', 'rejected', 'canceled'])
    .orderBy('id')
    .execute()
  for (let from = 0; from < batches.length; from += 500) {
    const chunk = batches.slice(from, from + 500)
    await db
      .updateTable('events')
      .set({
        payout_batch_id: sql`(select batch.id from payout_batches batch where batch.first_operation_id = events.operation_id)`,
      })
      .where(
        'operation_id',
        'in',
        chunk.map((batch) => batch.first_operation_id),
      )
      .where('type', 'like', 'payout_batch.%')
      .where('payout_batch_id', 'is', null)
      .execute()
  }
}
