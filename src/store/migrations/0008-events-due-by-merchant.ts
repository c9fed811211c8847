import { type Kysely, sql } from 'kysely'

/**
 * Each merchant's pending events of a mode, in due order: callback delivery claims every
 * merchant's due events in turn, a few each (`OutboxRepository.pendingMerchants`, `claimDueOf`), and
 * reads no further into one merchant's backlog than it takes, however long that backlog is. The
 * same index finds, one probe a merchant, which merchants have any pending.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('events_due_by_merchant')
    .on('events')
    .columns(['mode', 'merchant_id', 'next_attempt_at_us'])
    .where(sql.ref('delivery_status'), '=', 'pending')
    .execute()
}
