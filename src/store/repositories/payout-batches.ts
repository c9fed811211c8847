import { type Selectable, sql } from 'kysely'
import type { Mode } from '../../domain/kinds.ts'
import type { Currency } from '../../domain/money.ts'
import type { Metadata, Operation } from '../../domain/operation.ts'
import type { Page, PageRequest } from '../../domain/pages.ts'
import {
  emptyCounts,
  type PayoutBatch,
  type PayoutBatchCounts,
  type PayoutBatchStatus,
} from '../../domain/payout-batches.ts'
import type { Status } from '../../domain/status.ts'
import type { PayoutBatchesTable } from '../schema.ts'
import type { RepositoryScope } from './executor.ts'
import { toOperation } from './operations.ts'

/** The list's filters (CONTRACT.md, Lists): on initiationDate, `fromUs` inclusive, `toUs` exclusive. */
export interface PayoutBatchFilter {
  status?: PayoutBatchStatus
  merchantReference?: string
  fromUs?: number
  toUs?: number
}

export type NewPayoutBatch = Omit<PayoutBatch, 'id' | 'completedAtUs' | 'approvedBy'>

/** What changes with a batch's status: who approved it, when it ended, when the worker looks next. */
export interface PayoutBatchChange {
  approvedBy?: string
  completedAtUs?: number
  nextLookAtUs?: number
}

export interface PayoutBatchesRepository {
  /** Undefined when the merchant's reference is taken (the unique index decides). */
  insertIfNew(batch: NewPayoutBatch): Promise<number | undefined>
  insertItems(batchId: number, operationIds: readonly number[]): Promise<void>
  findByToken(merchantId: string, mode: Mode, token: string): Promise<PayoutBatch | undefined>
  findByReference(merchantId: string, mode: Mode, merchantReference: string): Promise<PayoutBatch | undefined>
  /** The batch row, locked for the transaction (FOR UPDATE on PostgreSQL). */
  lockById(id: number): Promise<PayoutBatch | undefined>
  list(
    merchantId: string,
    mode: Mode,
    page: PageRequest,
    filter?: PayoutBatchFilter,
  ): Promise<Page<PayoutBatch>>
  /** Each batch's items counted by status. */
  counts(batchIds: readonly number[]): Promise<Map<number, PayoutBatchCounts>>
  /** The items' operation ids in the batch's order; `queuedOnly`: those the worker has not dispatched. */
  itemIds(batchId: number, options: { queuedOnly: boolean; limit?: number }): Promise<number[]>
  /** The items as operations, in the batch's order, from `afterIndex` on. */
  items(
    batchId: number,
    afterIndex: number,
    limit: number,
  ): Promise<{ index: number; operation: Operation }[]>
  markDispatched(operationIds: readonly number[]): Promise<void>
  /** Moves the batch from one of `from` to `to`; false when it was in none of them. */
  changeStatus(
    id: number,
    from: readonly PayoutBatchStatus[],
    to: PayoutBatchStatus,
    change?: PayoutBatchChange,
  ): Promise<boolean>
  /**
   * Claims one processing batch due a look whose lease is free (SKIP LOCKED on PostgreSQL), so
   * two instances never work the same batch.
   */
  claimDue(owner: string, nowUs: number, leaseMs: number): Promise<PayoutBatch | undefined>
  /** Ends the owner's lease, and says when the batch is next due a look. */
  release(id: number, owner: string, nextLookAtUs: number): Promise<void>
  /** Keeps the owner's lease while it works the batch. */
  renew(id: number, owner: string, leaseUntilUs: number): Promise<boolean>
  requiresApproval(merchantId: string): Promise<boolean>
  /** False when no merchant has this id. */
  setRequiresApproval(merchantId: string, required: boolean): Promise<boolean>
}

export function payoutBatchesRepository(scope: RepositoryScope): PayoutBatchesRepository {
  return { ...batchRows(scope), ...batchItems(scope), ...batchStatuses(scope), ...approvalSetting(scope) }
}

type Part<K extends keyof PayoutBatchesRepository> = Pick<PayoutBatchesRepository, K>

function batchRows({
  db,
  dialect,
}: RepositoryScope): Part<
  'insertIfNew' | 'insertItems' | 'findByToken' | 'findByReference' | 'lockById' | 'list'
> {
  const select = () => db.selectFrom('payout_batches').selectAll()
  const one = async (query: ReturnType<typeof select>) => {
    const row = await query.executeTakeFirst()
    return row && toBatch(row)
  }
  return {
    async insertIfNew(batch) {
      const [row] = await db
        .insertInto('payout_batches')
        .values(toRow(batch))
        .onConflict((conflict) => conflict.columns(['merchant_id', 'mode', 'merchant_reference']).doNothing())
        .returning('id')
        .execute()
      return row?.id === undefined ? undefined : Number(row.id)
    },
    async insertItems(batchId, operationIds) {
      const rows = operationIds.map((operationId, index) => ({
        batch_id: batchId,
        item_index: index,
        operation_id: operationId,
      }))
      for (let from = 0; from < rows.length; from += 500)
        await db
          .insertInto('payout_batch_items')
          .values(rows.slice(from, from + 500))
          .execute()
    },
    findByToken: (merchantId, mode, token) =>
      one(select().where('merchant_id', '=', merchantId).where('mode', '=', mode).where('token', '=', token)),
    findByReference: (merchantId, mode, reference) =>
      one(
        select()
          .where('merchant_id', '=', merchantId)
          .where('mode', '=', mode)
          .where('merchant_reference', '=', reference),
      ),
    lockById(id) {
      const query = select().where('id', '=', id)
      return one(dialect.supportsRowLocks ? query.forUpdate() : query)
    },
    async list(merchantId, mode, page, filter = {}) {
      let base = db
        .selectFrom('payout_batches')
        .where('merchant_id', '=', merchantId)
        .where('mode', '=', mode)
      if (filter.status !== undefined) base = base.where('status', '=', filter.status)
      if (filter.merchantReference !== undefined)
        base = base.where('merchant_reference', '=', filter.merchantReference)
      if (filter.fromUs !== undefined) base = base.where('initiated_at_us', '>=', filter.fromUs)
      if (filter.toUs !== undefined) base = base.where('initiated_at_us', '<', filter.toUs)
      const [counted, rows] = await Promise.all([
        base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
        base
          .selectAll()
          .orderBy('id', 'desc')
          .limit(page.perPage)
          .offset((page.page - 1) * page.perPage)
          .execute(),
      ])
      return { items: rows.map(toBatch), total: Number(counted.total) }
    },
  }
}

function batchItems({ db }: RepositoryScope): Part<'counts' | 'itemIds' | 'items' | 'markDispatched'> {
  return {
    async counts(batchIds) {
      const counts = new Map(batchIds.map((id) => [id, emptyCounts()]))
      if (batchIds.length === 0) return counts
      const rows = await db
        .selectFrom('payout_batch_items')
        .innerJoin('operations', 'operations.id', 'payout_batch_items.operation_id')
        .select(['payout_batch_items.batch_id as batch_id', 'operations.status as status'])
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('payout_batch_items.batch_id', 'in', batchIds)
        .groupBy(['payout_batch_items.batch_id', 'operations.status'])
        .execute()
      for (const row of rows) {
        const batch = counts.get(Number(row.batch_id))
        if (batch) batch[row.status as Status] = Number(row.count)
      }
      return counts
    },
    async itemIds(batchId, { queuedOnly, limit }) {
      let query = db
        .selectFrom('payout_batch_items')
        .select('operation_id')
        .where('batch_id', '=', batchId)
        .orderBy('item_index')
      if (queuedOnly) query = query.where('dispatched', '=', 0)
      if (limit !== undefined) query = query.limit(limit)
      return (await query.execute()).map((row) => Number(row.operation_id))
    },
    async items(batchId, afterIndex, limit) {
      const rows = await db
        .selectFrom('payout_batch_items')
        .innerJoin('operations', 'operations.id', 'payout_batch_items.operation_id')
        .selectAll('operations')
        .select('payout_batch_items.item_index as item_index')
        .where('payout_batch_items.batch_id', '=', batchId)
        .where('payout_batch_items.item_index', '>', afterIndex)
        .orderBy('payout_batch_items.item_index')
        .limit(limit)
        .execute()
      return rows.map((row) => ({ index: row.item_index, operation: toOperation(row) }))
    },
    async markDispatched(operationIds) {
      if (operationIds.length === 0) return
      await db
        .updateTable('payout_batch_items')
        .set({ dispatched: 1 })
        .where('operation_id', 'in', operationIds)
        .execute()
    },
  }
}

function batchStatuses({
  db,
  dialect,
}: RepositoryScope): Part<'changeStatus' | 'claimDue' | 'release' | 'renew'> {
  return {
    async changeStatus(id, from, to, change = {}) {
      const result = await db
        .updateTable('payout_batches')
        .set({
          status: to,
          ...(change.approvedBy === undefined ? {} : { approved_by: change.approvedBy }),
          ...(change.completedAtUs === undefined ? {} : { completed_at_us: change.completedAtUs }),
          ...(change.nextLookAtUs === undefined ? {} : { next_look_at_us: change.nextLookAtUs }),
        })
        .where('id', '=', id)
        .where('status', 'in', from)
        .executeTakeFirst()
      return result.numUpdatedRows > 0n
    },
    claimDue: (owner, nowUs, leaseMs) => claimDue({ db, dialect }, owner, nowUs, leaseMs),
    async release(id, owner, nextLookAtUs) {
      await db
        .updateTable('payout_batches')
        .set({ lease_owner: null, lease_until_us: null, next_look_at_us: nextLookAtUs })
        .where('id', '=', id)
        .where('lease_owner', '=', owner)
        .execute()
    },
    async renew(id, owner, leaseUntilUs) {
      const result = await db
        .updateTable('payout_batches')
        .set({ lease_until_us: leaseUntilUs })
        .where('id', '=', id)
        .where('lease_owner', '=', owner)
        .executeTakeFirst()
      return result.numUpdatedRows > 0n
    },
  }
}

function approvalSetting({ db }: RepositoryScope): Part<'requiresApproval' | 'setRequiresApproval'> {
  return {
    async requiresApproval(merchantId) {
      const row = await db
        .selectFrom('merchants')
        .select('require_batch_approval')
        .where('id', '=', merchantId)
        .executeTakeFirst()
      return row?.require_batch_approval === 1
    },
    async setRequiresApproval(merchantId, required) {
      const result = await db
        .updateTable('merchants')
        .set({ require_batch_approval: required ? 1 : 0 })
        .where('id', '=', merchantId)
        .executeTakeFirst()
      return result.numUpdatedRows > 0n
    },
  }
}

async function claimDue(
  { db, dialect }: Pick<RepositoryScope, 'db' | 'dialect'>,
  owner: string,
  nowUs: number,
  leaseMs: number,
): Promise<PayoutBatch | undefined> {
  const skipLocked = dialect.supportsRowLocks ? sql`for update skip locked` : sql``
  const { rows } = await sql<Selectable<PayoutBatchesTable>>`
    update payout_batches set lease_owner = ${owner}, lease_until_us = ${nowUs + leaseMs * 1000}
    where id in (
      select id from payout_batches
      where status = 'processing' and next_look_at_us <= ${nowUs}
        and (lease_until_us is null or lease_until_us < ${nowUs})
      order by next_look_at_us
      ${dialect.limit(1)}
      ${skipLocked}
    )
    returning *`.execute(db)
  return rows[0] && toBatch(rows[0])
}

function toRow(batch: NewPayoutBatch) {
  return {
    token: batch.token,
    merchant_id: batch.merchantId,
    mode: batch.mode,
    merchant_reference: batch.merchantReference,
    request_hash: batch.requestHash,
    status: batch.status,
    currency: batch.currency,
    item_count: batch.itemCount,
    total_minor: batch.totalMinor,
    callback_url: batch.callbackUrl,
    metadata: batch.metadata ? JSON.stringify(batch.metadata) : null,
    created_by: batch.createdBy,
    created_by_member: batch.createdByMember,
    approved_by: null,
    first_operation_id: batch.firstOperationId,
    initiated_at_us: batch.initiatedAtUs,
    completed_at_us: null,
    next_look_at_us: batch.status === 'processing' ? batch.initiatedAtUs : null,
  }
}

function toBatch(row: Selectable<PayoutBatchesTable>): PayoutBatch {
  return {
    id: Number(row.id),
    token: row.token,
    merchantId: row.merchant_id,
    mode: row.mode as Mode,
    merchantReference: row.merchant_reference,
    requestHash: row.request_hash,
    status: row.status as PayoutBatchStatus,
    currency: row.currency as Currency,
    itemCount: Number(row.item_count),
    totalMinor: Number(row.total_minor),
    callbackUrl: row.callback_url,
    ...(row.metadata === null ? {} : { metadata: JSON.parse(row.metadata) as Metadata }),
    createdBy: row.created_by,
    createdByMember: row.created_by_member,
    approvedBy: row.approved_by,
    firstOperationId: Number(row.first_operation_id),
    initiatedAtUs: Number(row.initiated_at_us),
    completedAtUs: row.completed_at_us === null ? null : Number(row.completed_at_us),
  }
}
