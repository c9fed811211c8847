import { type Kysely, sql } from 'kysely'
import type { StoreDialect } from '../dialect.ts'

/**
 * Refunds (an operation may refund another, and a collect counts what its live refunds claim),
 * metadata on operations, the running balance on ledger entries, and one webhook secret per mode.
 */
export async function up(db: Kysely<any>, dialect: StoreDialect): Promise<void> {
  const big = dialect.bigintType
  await db.schema
    .alterTable('operations')
    .addColumn('refund_of_id', big, (column) => column.references('operations.id'))
    .execute()
  // Its token too, so a refund's record names its collect without a join.
  await db.schema.alterTable('operations').addColumn('refund_of_token', 'text').execute()
  // What may be refunded of this operation (a collect's amount), and what its refunds that are
  // not failed, canceled or error claim. The database refuses a claim beyond it, so concurrent
  // partial refunds can never add up to more than was collected, whatever reads came first.
  await db.schema
    .alterTable('operations')
    .addColumn('refundable_minor', big, (column) => column.notNull().defaultTo(0))
    .execute()
  await db.schema
    .alterTable('operations')
    .addColumn('refunded_minor', big, (column) =>
      column.notNull().defaultTo(0).check(sql`refunded_minor >= 0 and refunded_minor <= refundable_minor`),
    )
    .execute()
  await db.schema.alterTable('operations').addColumn('metadata', 'text').execute()
  const firstSideAmount =
    dialect.name === 'postgres'
      ? sql`(sides::json -> 0 ->> 'amountMinor')::bigint`
      : sql`json_extract(sides, '$[0].amountMinor')`
  await sql`update operations set refundable_minor = ${firstSideAmount} where kind = 'collect'`.execute(db)
  await db.schema
    .createIndex('operations_by_refund_of')
    .on('operations')
    .column('refund_of_id')
    .where(sql.ref('refund_of_id'), 'is not', null)
    .execute()

  // The posted balance right after a succeeded entry: statements show a running balance.
  await db.schema.alterTable('ledger_entries').addColumn('balance_after_minor', big).execute()
  // Existing entries get theirs from the order they were posted in (their last update).
  await sql`
    update ledger_entries set balance_after_minor = (
      select running.balance_after from (
        select id, sum(case when type = 'cash-in' then amount_minor else -amount_minor end)
          over (partition by merchant_id, mode, currency order by updated_at_us, id) as balance_after
        from ledger_entries where status = 'succeeded'
      ) running where running.id = ledger_entries.id
    ) where status = 'succeeded'`.execute(db)

  // Each mode signs with its own secret; the one a merchant has is its sandbox secret, and the
  // service issues each merchant a live one at its next start (sealing needs the service's key).
  await db.schema
    .alterTable('webhook_secrets')
    .addColumn('mode', 'text', (column) => column.notNull().defaultTo('sandbox'))
    .execute()
  await db.schema
    .createIndex('webhook_secrets_by_merchant_mode')
    .on('webhook_secrets')
    .columns(['merchant_id', 'mode'])
    .execute()
}
