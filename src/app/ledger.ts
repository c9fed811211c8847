import { sql, type Transaction } from 'kysely'
import type { Clock } from '../domain/clock.ts'
import type { Mode, OperationKind } from '../domain/kinds.ts'
import type { Database } from '../store/schema.ts'
import type { Executor } from '../store/store.ts'

/**
 * Two-phase money movement on a merchant's balance, in the style of TigerBeetle:
 * a hold reserves funds and is later posted or released, at most once. The database's own
 * CHECK (held <= posted) makes an overdraft impossible, whatever runs concurrently.
 *
 *   cash-in   credited when the collect succeeds                  (posted += amount)
 *   cash-out  held at initiation, posted on success, released otherwise
 *   reversal  a transfer's refund reserve: held when the `from` side is credited,
 *             posted if the `to` side fails (the refund), released if it succeeds
 */
export type EntryType = 'cash-in' | 'cash-out' | 'reversal'

type Trx = Transaction<Database>

export interface LedgerOperation {
  id: number
  token: string
  kind: OperationKind
  merchantId: string
  mode: Mode
  currency: string
}

/** Increments and returns a dense per-merchant, per-mode counter; its row lock orders concurrent writers. */
export async function nextCounterValue(
  trx: Trx,
  merchantId: string,
  mode: Mode,
  name: string,
): Promise<number> {
  const row = await trx
    .insertInto('counters')
    .values({ merchant_id: merchantId, mode, name, value: 1 })
    .onConflict((conflict) =>
      conflict.columns(['merchant_id', 'mode', 'name']).doUpdateSet({ value: sql`counters.value + 1` }),
    )
    .returning('value')
    .executeTakeFirstOrThrow()
  return row.value
}

/** Reserves funds; answers `insufficient_balance` and changes nothing when available < amount. */
export async function placeHold(
  trx: Trx,
  operation: LedgerOperation,
  type: 'cash-out' | 'reversal',
  amountMinor: number,
  clock: Clock,
): Promise<'held' | 'insufficient_balance'> {
  // No balance row yet means nothing is available: the conditional update then matches nothing.
  const result = await trx
    .updateTable('balances')
    .set({ held_minor: sql`held_minor + ${amountMinor}` })
    .where('merchant_id', '=', operation.merchantId)
    .where('mode', '=', operation.mode)
    .where('currency', '=', operation.currency)
    .where(sql<boolean>`posted_minor - held_minor >= ${amountMinor}`)
    .executeTakeFirst()
  if (result.numUpdatedRows === 0n) return 'insufficient_balance'
  await insertEntry(trx, operation, type, amountMinor, 'pending', clock)
  return 'held'
}

export async function credit(
  trx: Trx,
  operation: LedgerOperation,
  amountMinor: number,
  clock: Clock,
): Promise<void> {
  // One statement: the first credit in a currency opens its balance row.
  await trx
    .insertInto('balances')
    .values({
      merchant_id: operation.merchantId,
      mode: operation.mode,
      currency: operation.currency,
      posted_minor: amountMinor,
      held_minor: 0,
    })
    .onConflict((conflict) =>
      conflict
        .columns(['merchant_id', 'mode', 'currency'])
        .doUpdateSet({ posted_minor: sql`balances.posted_minor + ${amountMinor}` }),
    )
    .execute()
  await insertEntry(trx, operation, 'cash-in', amountMinor, 'succeeded', clock)
}

/**
 * Posts (`succeeded`) or releases (`canceled`) the operation's pending hold of this type.
 * The entry's own status guards it, so a hold is resolved at most once.
 */
export async function resolveHold(
  trx: Trx,
  operation: LedgerOperation,
  type: 'cash-out' | 'reversal',
  resolution: 'succeeded' | 'canceled',
  clock: Clock,
): Promise<void> {
  const entry = await trx
    .updateTable('ledger_entries')
    .set({ status: resolution, updated_at_us: clock.nowMicros() })
    .where('operation_id', '=', operation.id)
    .where('type', '=', type)
    .where('status', '=', 'pending')
    .returning('amount_minor')
    .executeTakeFirst()
  if (!entry) return
  const amount = entry.amount_minor
  await trx
    .updateTable('balances')
    .set(
      resolution === 'succeeded'
        ? { posted_minor: sql`posted_minor - ${amount}`, held_minor: sql`held_minor - ${amount}` }
        : { held_minor: sql`held_minor - ${amount}` },
    )
    .where('merchant_id', '=', operation.merchantId)
    .where('mode', '=', operation.mode)
    .where('currency', '=', operation.currency)
    .execute()
}

async function insertEntry(
  trx: Trx,
  operation: LedgerOperation,
  type: EntryType,
  amountMinor: number,
  status: 'pending' | 'succeeded',
  clock: Clock,
): Promise<void> {
  const sequence = await nextCounterValue(trx, operation.merchantId, operation.mode, 'ledger')
  // Read after the counter's lock is held, so sequence order and date order agree under concurrency.
  const atMicros = clock.nowMicros()
  await trx
    .insertInto('ledger_entries')
    .values({
      merchant_id: operation.merchantId,
      mode: operation.mode,
      sequence,
      reference: transactionReference(atMicros, operation.token, sequence),
      operation_id: operation.id,
      operation_kind: operation.kind,
      type,
      currency: operation.currency,
      amount_minor: amountMinor,
      status,
      created_at_us: atMicros,
      updated_at_us: atMicros,
    })
    .execute()
}

/** TX<yyyymmdd>.<first token group>.<8-digit sequence>, e.g. TX20261121.k3v9q.00000042 */
export function transactionReference(atMicros: number, token: string, sequence: number): string {
  const day = new Date(Math.floor(atMicros / 1000)).toISOString().slice(0, 10).replaceAll('-', '')
  return `TX${day}.${token.slice(0, 5)}.${String(sequence).padStart(8, '0')}`
}

export interface BalanceView {
  mode: Mode
  currency: string
  postedMinor: number
  heldMinor: number
  availableMinor: number
}

export async function readBalances(db: Executor, merchantId: string, mode?: Mode): Promise<BalanceView[]> {
  let query = db.selectFrom('balances').selectAll().where('merchant_id', '=', merchantId)
  if (mode) query = query.where('mode', '=', mode)
  const rows = await query.orderBy('mode').orderBy('currency').execute()
  return rows.map((row) => ({
    mode: row.mode as Mode,
    currency: row.currency,
    postedMinor: row.posted_minor,
    heldMinor: row.held_minor,
    availableMinor: row.posted_minor - row.held_minor,
  }))
}
