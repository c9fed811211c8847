import { type Insertable, type Selectable, sql } from 'kysely'
import type { SideRole } from '../../domain/kinds.ts'
import type { WorkEffect, WorkKind } from '../../domain/transitions.ts'
import type { ScheduledWorkTable } from '../schema.ts'
import type { RepositoryScope } from './executor.ts'
import { powerOfTwoChunks } from './row-chunks.ts'
import { statementTemplate } from './statement-template.ts'

/** Work due at a time, kept in the database so a restart or another instance picks it up. */
export interface ScheduledWork {
  id: number
  kind: WorkKind
  operationId: number
  role: SideRole
  dueAtUs: number
  attempts: number
}

export interface ScheduledWorkRepository {
  /** Schedules what the transition asks for, or closes everything of a final operation. */
  apply(operationId: number, effects: readonly WorkEffect[], nowUs: number): Promise<void>
  /**
   * As `apply` for each of many operations (a payout batch's items dispatched together): every
   * schedule in a few multi-row inserts, then every final operation's work closed in one
   * statement. Each operation's `finish-all`, if any, is its last effect.
   */
  applyAll(
    applied: readonly { operationId: number; effects: readonly WorkEffect[] }[],
    nowUs: number,
  ): Promise<void>
  /**
   * Claims due items in one statement (SKIP LOCKED on PostgreSQL), so each is handled by one
   * instance; an item whose worker died is taken over when its lease runs out.
   */
  claimDue(owner: string, nowUs: number, leaseMs: number, limit: number): Promise<ScheduledWork[]>
  /** Marks the items done, in one statement: those whose lease is still the owner's. */
  complete(ids: readonly number[], owner: string, nowUs: number): Promise<void>
  /** Ends the owner's lease of an item that failed at once: it is due again at `dueAtUs`, for any instance. */
  release(id: number, owner: string, dueAtUs: number): Promise<void>
  /**
   * Ends the owner's lease of an item that found its time not yet come (a poll of a side another
   * check just asked): due again at `dueAtUs`, and its claim not counted as an attempt.
   */
  postpone(id: number, owner: string, dueAtUs: number): Promise<void>
  /**
   * Ends every lease of the owner but those of the items it still holds: after a claim or a
   * write whose outcome it did not hear (a lost connection, a timeout), leases may have been
   * taken or kept that nobody is working on. Reads every item not done (no index knows owners);
   * run only after such a failure.
   */
  releaseUnheld(owner: string, heldIds: readonly number[]): Promise<void>
}

export function scheduledWorkRepository({ db, dialect }: RepositoryScope): ScheduledWorkRepository {
  return {
    async apply(operationId, effects, nowUs) {
      const scheduled = scheduledRows(operationId, effects)
      if (scheduled.length > 0) await insertWork(db, { rows: scheduled })
      if (effects.some((effect) => effect.action === 'finish-all'))
        await finishAllWork(db, { operationId, nowUs })
    },
    async applyAll(applied, nowUs) {
      const scheduled = applied.flatMap(({ operationId, effects }) => scheduledRows(operationId, effects))
      for (const chunk of powerOfTwoChunks(scheduled)) await insertWork(db, { rows: chunk })
      const finished = applied.flatMap(({ operationId, effects }) =>
        effects.some((effect) => effect.action === 'finish-all') ? [operationId] : [],
      )
      if (finished.length > 0)
        await db
          .updateTable('scheduled_work')
          .set({ done_at_us: nowUs })
          .where('operation_id', 'in', finished)
          .where('done_at_us', 'is', null)
          .execute()
    },
    claimDue: (owner, nowUs, leaseMs, limit) => claimDue({ db, dialect }, owner, nowUs, leaseMs, limit),
    async complete(ids, owner, nowUs) {
      if (ids.length === 0) return
      await db
        .updateTable('scheduled_work')
        .set({ done_at_us: nowUs, lease_owner: null, lease_until_us: null })
        .where('id', 'in', ids)
        .where('lease_owner', '=', owner)
        .where('done_at_us', 'is', null)
        .execute()
    },
    async release(id, owner, dueAtUs) {
      await db
        .updateTable('scheduled_work')
        .set({ due_at_us: dueAtUs, lease_owner: null, lease_until_us: null })
        .where('id', '=', id)
        .where('lease_owner', '=', owner)
        .where('done_at_us', 'is', null)
        .execute()
    },
    async postpone(id, owner, dueAtUs) {
      await db
        .updateTable('scheduled_work')
        .set({ due_at_us: dueAtUs, lease_owner: null, lease_until_us: null, attempts: sql`attempts - 1` })
        .where('id', '=', id)
        .where('lease_owner', '=', owner)
        .where('done_at_us', 'is', null)
        .execute()
    },
    async releaseUnheld(owner, heldIds) {
      let query = db
        .updateTable('scheduled_work')
        .set({ lease_owner: null, lease_until_us: null })
        .where('lease_owner', '=', owner)
        .where('done_at_us', 'is', null)
      if (heldIds.length > 0) query = query.where('id', 'not in', heldIds)
      await query.execute()
    },
  }
}

async function claimDue(
  { db, dialect }: Pick<RepositoryScope, 'db' | 'dialect'>,
  owner: string,
  nowUs: number,
  leaseMs: number,
  limit: number,
): Promise<ScheduledWork[]> {
  const skipLocked = dialect.supportsRowLocks ? sql`for update skip locked` : sql``
  const { rows } = await sql<Selectable<ScheduledWorkTable>>`
    update scheduled_work set lease_owner = ${owner}, lease_until_us = ${nowUs + leaseMs * 1000}, attempts = attempts + 1
    where id in (
      select id from scheduled_work
      where done_at_us is null and due_at_us <= ${nowUs}
        and (lease_until_us is null or lease_until_us < ${nowUs})
      order by due_at_us
      ${dialect.limit(limit)}
      ${skipLocked}
    )
    returning *`.execute(db)
  return rows.map((row) => ({
    id: row.id,
    kind: row.kind as WorkKind,
    operationId: row.operation_id,
    role: row.role as SideRole,
    dueAtUs: row.due_at_us,
    attempts: row.attempts,
  }))
}

function scheduledRows(
  operationId: number,
  effects: readonly WorkEffect[],
): Insertable<ScheduledWorkTable>[] {
  return effects.flatMap((effect) =>
    effect.action === 'schedule'
      ? [
          {
            kind: effect.work,
            operation_id: operationId,
            role: effect.role,
            due_at_us: effect.dueAtUs,
            lease_owner: null,
            lease_until_us: null,
            attempts: 0,
            done_at_us: null,
          },
        ]
      : [],
  )
}

const insertWork = statementTemplate(
  (db, work: { rows: Insertable<ScheduledWorkTable>[] }) => db.insertInto('scheduled_work').values(work.rows),
  { writeOnly: 'scheduled_work' },
)

const finishAllWork = statementTemplate(
  (db, finished: { operationId: number; nowUs: number }) =>
    db
      .updateTable('scheduled_work')
      .set({ done_at_us: finished.nowUs })
      .where('operation_id', '=', finished.operationId)
      .where('done_at_us', 'is', null),
  { writeOnly: 'scheduled_work' },
)
