import { type Kysely, sql } from 'kysely'
import { countExistingStatuses } from './repositories/status-buckets.ts'
import type { Database } from './schema.ts'
import { type Store, withMaintenanceDatabase } from './store.ts'

/**
 * For benchmarks only: a store with a million operations in seconds, without a million requests.
 * Each copy is the template operation under a new token, merchantReference and list position,
 * initiated a microsecond after the newest operation of its kind and after the copy before it, so list order and date order still agree. The
 * template should be final and without ledger effects (a failed or error operation), so that
 * `sika verify` stays clean: copies have no postings and no events.
 */
export async function seedCopiesOfOperation(
  store: Store,
  templateToken: string,
  count: number,
  /** Distinct per call: copies are numbered offset + 1 ... offset + count. */
  offset: number,
): Promise<void> {
  if (count <= 0) return
  if (offset + count >= 900_000_000_000_000) throw new Error('seed numbers must stay below 9e14')
  // Without the request path's statement timeout: a million copies take longer than a request may.
  await withMaintenanceDatabase(store, async (db) => {
    await seedInOneTransaction(db, templateToken, count, offset)
    // PostgreSQL: statistics for the planner, and the pages' visibility settled once here. Otherwise
    // autovacuum would run during the measurements that follow, and the first read of each new page
    // would write it again (hint bits): costs a store that grew over months does not have.
    if (store.name === 'postgres') await sql`vacuum (analyze) operations, status_buckets`.execute(db)
  })
}

async function seedInOneTransaction(
  db: Kysely<Database>,
  templateToken: string,
  count: number,
  offset: number,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const template = await trx
      .selectFrom('operations')
      .select(['merchant_id', 'mode', 'kind'])
      .where('token', '=', templateToken)
      .executeTakeFirstOrThrow()
    const counter = await trx
      .selectFrom('counters')
      .select('value')
      .where('merchant_id', '=', template.merchant_id)
      .where('mode', '=', template.mode)
      .where('name', '=', template.kind)
      .executeTakeFirstOrThrow()
    const base = counter.value
    const newest = await trx
      .selectFrom('operations')
      .select((eb) => eb.fn.max('initiated_at_us').as('at'))
      .where('merchant_id', '=', template.merchant_id)
      .where('mode', '=', template.mode)
      .where('kind', '=', template.kind)
      .executeTakeFirstOrThrow()
    const startUs = sql`cast(${Number(newest.at)} as bigint)`
    // The number's digits become the token's middle groups: 15 digits, always.
    const digits = sql`cast(100000000000000 + cast(${offset} as bigint) + n.i as text)`
    await sql`
      with recursive n(i) as (select 1 union all select i + 1 from n where i < ${count})
      insert into operations (
        token, merchant_id, mode, kind, position, status, merchant_reference, request_hash,
        currency, channel, country, phone_number, to_channel, to_country, to_phone_number,
        sides, urls, redirect_url, failure_code, failure_message,
        initiated_at_us, completed_at_us, updated_at_us, refund_of_id, refund_of_token,
        refundable_minor, refunded_minor, metadata)
      select
        'bench-' || substr(${digits}, 1, 5) || '-' || substr(${digits}, 6, 5) || '-'
          || substr(${digits}, 11, 5) || '-seeds',
        t.merchant_id, t.mode, t.kind, cast(${base} as bigint) + n.i, t.status,
        'seed-' || cast(cast(${offset} as bigint) + n.i as text), t.request_hash,
        t.currency, t.channel, t.country, t.phone_number, t.to_channel, t.to_country, t.to_phone_number,
        t.sides, t.urls, t.redirect_url, t.failure_code, t.failure_message,
        ${startUs} + n.i, ${startUs} + n.i, ${startUs} + n.i, t.refund_of_id,
        t.refund_of_token, t.refundable_minor, t.refunded_minor, t.metadata
      from n cross join operations t
      where t.token = ${templateToken}
    `.execute(trx)
    const key = { merchantId: template.merchant_id, mode: template.mode, kind: template.kind }
    await countExistingStatuses(trx, key, base)
    await trx
      .updateTable('counters')
      .set({ value: base + count })
      .where('merchant_id', '=', template.merchant_id)
      .where('mode', '=', template.mode)
      .where('name', '=', template.kind)
      .execute()
  })
}

/**
 * For benchmarks and load tests only: `count` more balance movements of the merchant's newest
 * one, each under the next ledger sequence and its own reference, so a statement has rows to read
 * without as many operations made through the API. The copies move no balance: `sika verify`
 * reports them.
 */
export async function seedCopiesOfLedgerEntry(
  store: Store,
  merchantId: string,
  mode: string,
  count: number,
): Promise<void> {
  if (count <= 0) return
  await withMaintenanceDatabase(store, async (db) => {
    await db.transaction().execute(async (trx) => {
      const counter = await trx
        .selectFrom('counters')
        .select('value')
        .where('merchant_id', '=', merchantId)
        .where('mode', '=', mode)
        .where('name', '=', 'ledger')
        .executeTakeFirstOrThrow()
      const base = Number(counter.value)
      await sql`
        with recursive n(i) as (select 1 union all select i + 1 from n where i < ${count})
        insert into ledger_entries (
          merchant_id, mode, sequence, reference, operation_id, operation_kind, type, currency,
          amount_minor, status, created_at_us, updated_at_us, balance_after_minor)
        select
          t.merchant_id, t.mode, cast(${base} as bigint) + n.i,
          substr(t.reference, 1, length(t.reference) - 8) || 'S' || cast(cast(${base} as bigint) + n.i as text),
          t.operation_id, t.operation_kind, t.type, t.currency, t.amount_minor, t.status,
          t.created_at_us + n.i, t.updated_at_us + n.i, t.balance_after_minor
        from n cross join ledger_entries t
        where t.merchant_id = ${merchantId} and t.mode = ${mode} and t.sequence = ${base}
      `.execute(trx)
      await trx
        .updateTable('counters')
        .set({ value: base + count })
        .where('merchant_id', '=', merchantId)
        .where('mode', '=', mode)
        .where('name', '=', 'ledger')
        .execute()
    })
    if (store.name === 'postgres') await sql`vacuum (analyze) ledger_entries`.execute(db)
  })
}
