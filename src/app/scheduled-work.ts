import { type Selectable, sql, type Transaction } from 'kysely'
import type { Database, ScheduledWorkTable } from '../store/schema.ts'
import type { AppContext } from './context.ts'

export type WorkKind = 'submit' | 'poll' | 'expire'
export type ScheduledWork = Selectable<ScheduledWorkTable>

/** How long a claimed item is left to its worker before another may take it over. */
const leaseMs = 60_000
const batchSize = 16

export async function scheduleWork(
  trx: Transaction<Database>,
  kind: WorkKind,
  operationId: number,
  role: string,
  dueAtUs: number,
): Promise<void> {
  await trx
    .insertInto('scheduled_work')
    .values({
      kind,
      operation_id: operationId,
      role,
      due_at_us: dueAtUs,
      lease_owner: null,
      lease_until_us: null,
      attempts: 0,
      done_at_us: null,
    })
    .execute()
}

/** Closes whatever is still scheduled for a final operation. */
export async function finishScheduledWork(
  trx: Transaction<Database>,
  operationId: number,
  nowUs: number,
): Promise<void> {
  await trx
    .updateTable('scheduled_work')
    .set({ done_at_us: nowUs })
    .where('operation_id', '=', operationId)
    .where('done_at_us', 'is', null)
    .execute()
}

/**
 * Claims due items in one statement (SKIP LOCKED on PostgreSQL), so each is handled by one
 * instance; an item whose worker died is taken over when its lease runs out.
 */
export async function claimDueWork(context: AppContext, owner: string): Promise<ScheduledWork[]> {
  const now = context.clock.nowMicros()
  const skipLocked = context.store.dialect.supportsRowLocks ? sql`for update skip locked` : sql``
  const { rows } = await sql<ScheduledWork>`
    update scheduled_work set lease_owner = ${owner}, lease_until_us = ${now + leaseMs * 1000}, attempts = attempts + 1
    where id in (
      select id from scheduled_work
      where done_at_us is null and due_at_us <= ${now}
        and (lease_until_us is null or lease_until_us < ${now})
      order by due_at_us
      limit ${batchSize}
      ${skipLocked}
    )
    returning *`.execute(context.store.db)
  return rows
}

export async function completeWork(context: AppContext, work: ScheduledWork, owner: string): Promise<void> {
  await context.store.db
    .updateTable('scheduled_work')
    .set({ done_at_us: context.clock.nowMicros(), lease_owner: null, lease_until_us: null })
    .where('id', '=', work.id)
    .where('lease_owner', '=', owner)
    .where('done_at_us', 'is', null)
    .execute()
}
