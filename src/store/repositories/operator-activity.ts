import { sql } from 'kysely'
import type { OperationKind } from '../../domain/kinds.ts'
import type { Operation } from '../../domain/operation.ts'
import type { Executor, RepositoryScope } from './executor.ts'
import { toOperation } from './operations.ts'

/**
 * The platform console's reads of what the operators carry for every merchant: the live
 * operations still pending (the payouts waiting for each operator account, the operations pending
 * too long). Each reads operations_by_status, the index a merchant's status filter uses, once per
 * merchant and kind (`merchant_id in (select id from merchants)`: a seek per merchant and kind),
 * so its cost is the merchants and the pending rows, never the history.
 */
export interface OperatorActivityRepository {
  /** Every merchant's live operations of these kinds still pending, oldest first; at most `limit`. */
  pendingLive(kinds: readonly OperationKind[], limit: number): Promise<Operation[]>
  /**
   * Callbacks of live operations not delivered yet, per the operations' channels and countries
   * (a transfer's two sides each): through events_due, the outbox's partial index of pending
   * events, so the cost is the backlog's.
   */
  waitingCallbacks(): Promise<WaitingCallbacks[]>
}

export interface WaitingCallbacks {
  channel: string
  country: string
  toChannel: string | null
  toCountry: string | null
  count: number
}

export function operatorActivityRepository({ db }: RepositoryScope): OperatorActivityRepository {
  return {
    pendingLive: (kinds, limit) => pendingLive(db, kinds, limit),
    waitingCallbacks: () => waitingCallbacks(db),
  }
}

async function pendingLive(db: Executor, kinds: readonly OperationKind[], limit: number) {
  if (kinds.length === 0) return []
  const rows = await db
    .selectFrom('operations')
    .selectAll()
    .where('merchant_id', 'in', (eb) => eb.selectFrom('merchants').select('merchants.id'))
    .where('mode', '=', sql.lit('live'))
    .where('kind', 'in', kinds)
    .where('status', '=', sql.lit('pending'))
    .orderBy('initiated_at_us')
    .limit(limit)
    .execute()
  return rows.map(toOperation)
}

async function waitingCallbacks(db: Executor): Promise<WaitingCallbacks[]> {
  const rows = await db
    .selectFrom('events')
    .innerJoin('operations', 'operations.id', 'events.operation_id')
    .select((eb) => [
      'operations.channel',
      'operations.country',
      'operations.to_channel',
      'operations.to_country',
      eb.fn.countAll<number>().as('count'),
    ])
    // The literal lets SQLite prove that the partial index events_due applies.
    .where('events.delivery_status', '=', sql.lit('pending'))
    .where('operations.mode', '=', sql.lit('live'))
    .groupBy(['operations.channel', 'operations.country', 'operations.to_channel', 'operations.to_country'])
    .execute()
  return rows.map((row) => ({
    channel: row.channel,
    country: row.country,
    toChannel: row.to_channel,
    toCountry: row.to_country,
    count: Number(row.count),
  }))
}
