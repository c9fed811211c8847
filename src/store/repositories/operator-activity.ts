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
}

export function operatorActivityRepository({ db }: RepositoryScope): OperatorActivityRepository {
  return {
    pendingLive: (kinds, limit) => pendingLive(db, kinds, limit),
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
