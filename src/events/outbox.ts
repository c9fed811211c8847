import type { Transaction } from 'kysely'
import { nextCounterValue } from '../app/ledger.ts'
import type { Operation } from '../app/operation-rows.ts'
import { operationRecord } from '../app/records.ts'
import { type Clock, formatTimestamp } from '../domain/clock.ts'
import { newEventId } from '../domain/identifiers.ts'
import { operationKinds } from '../domain/kinds.ts'
import type { Database } from '../store/schema.ts'

/**
 * Writes the event of the status the operation has just taken, in the caller's transaction:
 * the status change and its event commit together or not at all, so a crash can lose neither.
 */
export async function recordStatusEvent(
  trx: Transaction<Database>,
  operation: Operation,
  clock: Clock,
): Promise<string> {
  const id = newEventId()
  const position = await nextCounterValue(trx, operation.merchantId, operation.mode, 'event')
  // Read after the counter's lock is held, so list order and dates agree.
  const nowUs = clock.nowMicros()
  const type = `${operation.kind}.${operation.status}`
  const payload = JSON.stringify({
    id,
    type,
    createdAt: formatTimestamp(nowUs),
    data: { [operationKinds[operation.kind].dataKey.details]: operationRecord(operation) },
  })
  const callbackUrl = operation.urls.callbackUrl
  await trx
    .insertInto('events')
    .values({
      id,
      merchant_id: operation.merchantId,
      mode: operation.mode,
      position,
      operation_id: operation.id,
      type,
      payload,
      callback_url: callbackUrl,
      created_at_us: nowUs,
      delivery_status: callbackUrl ? 'pending' : 'no_callback',
      attempts: 0,
      next_attempt_at_us: callbackUrl ? nowUs : null,
      lease_owner: null,
      lease_until_us: null,
      delivered_at_us: null,
    })
    .execute()
  return id
}
