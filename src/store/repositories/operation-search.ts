import { type Selectable, type SelectQueryBuilder, sql } from 'kysely'
import { type Mode, type OperationKind, operationKindNames } from '../../domain/kinds.ts'
import type { Currency } from '../../domain/money.ts'
import type { Operation } from '../../domain/operation.ts'
import type { Status } from '../../domain/status.ts'
import type { Database, OperationsTable } from '../schema.ts'
import type { Executor, RepositoryScope } from './executor.ts'
import { toOperation } from './operations.ts'

/**
 * The dashboard's reads of operations across kinds: a search box that takes any identifier, a
 * list of every kind newest first, and the home page's figures. Each reads through an index
 * (0009-dashboard.ts adds operations_by_to_phone and operations_by_merchant_date for them).
 */

/** Where a page of `list` ends: the next page starts below it. */
export interface OperationCursor {
  initiatedAtUs: number
  id: number
}

export interface OperationListFilter {
  /** An empty or absent list filters nothing. */
  kinds?: string[]
  statuses?: string[]
  /** Either side's channel (a transfer has two). */
  channel?: string
  /** Either side's country. */
  country?: string
  /** Initiated at or after. */
  fromUs?: number
  /** Initiated before. */
  toUs?: number
  after?: OperationCursor
  limit: number
}

export interface OperationListPage {
  items: Operation[]
  /** The cursor of the next page; undefined when this page is the last. */
  next: OperationCursor | undefined
}

export interface StatusCount {
  kind: OperationKind
  status: Status
  count: number
}

/** Succeeded ledger entries, by the kind of their operation, their type and currency. */
export interface PostedTotal {
  kind: OperationKind
  type: 'cash-in' | 'cash-out' | 'reversal'
  currency: Currency
  entries: number
  amountMinor: number
}

export interface OperationCounts {
  /** Operations initiated since, by kind and current status. */
  byStatus: StatusCount[]
  /** What moved: succeeded ledger entries created since. */
  posted: PostedTotal[]
}

export interface OperationSearchRepository {
  /** Operations where either side's customer has this number, newest first. */
  findByPhone(merchantId: string, mode: Mode, e164: string, limit: number): Promise<Operation[]>
  /** Operations whose merchantReference (any kind), token or an operator reference is `text`, newest first. */
  findByReference(merchantId: string, mode: Mode, text: string, limit: number): Promise<Operation[]>
  /** Every kind, newest first by (initiatedAtUs, id), a keyset page after `filter.after`. */
  list(merchantId: string, mode: Mode, filter: OperationListFilter): Promise<OperationListPage>
  /**
   * Counts per kind and status of operations initiated since `sinceUs`, and the sums of succeeded
   * ledger entries created since. An operation's amount lives only in its sides' JSON, which no
   * index holds; the ledger has it as a column, by currency, and its date index serves the range.
   * A cash-out's entry is created with its hold at initiation, so it counts from then.
   */
  countsSince(merchantId: string, mode: Mode, sinceUs: number): Promise<OperationCounts>
  /** The refunds of an operation, newest first, through operations_by_refund_of. */
  refundsOf(merchantId: string, mode: Mode, refundedId: number, limit: number): Promise<Operation[]>
}

export function operationSearchRepository({ db }: RepositoryScope): OperationSearchRepository {
  return {
    findByPhone: (merchantId, mode, e164, limit) => findByPhone(db, merchantId, mode, e164, limit),
    findByReference: (merchantId, mode, text, limit) => findByReference(db, merchantId, mode, text, limit),
    list: (merchantId, mode, filter) => listOperations(db, merchantId, mode, filter),
    countsSince: (merchantId, mode, sinceUs) => countsSince(db, merchantId, mode, sinceUs),
    refundsOf: async (merchantId, mode, refundedId, limit) => {
      const rows = await db
        .selectFrom('operations')
        .selectAll()
        .where('refund_of_id', '=', refundedId)
        .where('merchant_id', '=', merchantId)
        .where('mode', '=', mode)
        .orderBy('initiated_at_us', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute()
      return rows.map(toOperation)
    },
  }
}

/**
 * A probe per index (operations_by_phone, operations_by_to_phone), each a range read of the
 * customer's newest `limit` operations in index order; the two pages merge here. A customer with a
 * million operations costs what one with fifty does.
 */
async function findByPhone(db: Executor, merchantId: string, mode: Mode, e164: string, limit: number) {
  const newest = (column: 'phone_number' | 'to_phone_number') =>
    db
      .selectFrom('operations')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .where('mode', '=', mode)
      .where(column, '=', e164)
      .orderBy('initiated_at_us', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute()
  const [first, second] = [await newest('phone_number'), await newest('to_phone_number')]
  return newestFirst([...first, ...second], limit)
}

/**
 * Probes that each find at most a row a kind and spelling: the merchantReference through the
 * unique (merchant, mode, kind, reference) index; the token, unique; an operator reference, the
 * primary key of operator_references. Another merchant's or mode's operation is not found.
 *
 * Text is compared exactly, so that every probe stays an index read (a lower() comparison would
 * scan). A person types what they read in any case: the spellings tried are the text as typed,
 * lowercase and uppercase (`referenceSpellings`), and a token, always lowercase, its lowercase.
 */
async function findByReference(db: Executor, merchantId: string, mode: Mode, text: string, limit: number) {
  const spellings = referenceSpellings(text)
  const ofMerchant = () =>
    db.selectFrom('operations').selectAll().where('merchant_id', '=', merchantId).where('mode', '=', mode)
  const byReference = await ofMerchant()
    .where('kind', 'in', operationKindNames)
    .where('merchant_reference', 'in', spellings)
    .execute()
  const byToken = await ofMerchant().where('token', '=', text.toLowerCase()).execute()
  const byOperatorReference = await db
    .selectFrom('operator_references')
    .innerJoin('operations', 'operations.id', 'operator_references.operation_id')
    .selectAll('operations')
    .where('operator_references.reference', 'in', spellings)
    .where('operations.merchant_id', '=', merchantId)
    .where('operations.mode', '=', mode)
    .execute()
  return newestFirst([...byReference, ...byToken, ...byOperatorReference], limit)
}

/** The text as typed, lowercase and uppercase, each once. */
export function referenceSpellings(text: string): string[] {
  return [...new Set([text, text.toLowerCase(), text.toUpperCase()])]
}

/** Rows of several probes as operations, each once, newest first. */
function newestFirst(rows: Selectable<OperationsTable>[], limit: number): Operation[] {
  const unique = new Map(rows.map((row) => [Number(row.id), row]))
  return newestRows([...unique.values()])
    .slice(0, limit)
    .map(toOperation)
}

/**
 * A page newest first, one row beyond it saying whether another follows. Unfiltered by status or
 * kind, it reads operations_by_merchant_date backwards from the cursor. Filtered by status, it
 * reads each (kind, status) of operations_by_status from its newest position (a kind's positions
 * follow its dates) and by kind alone each kind of operations_by_date, a page from each, merged
 * here: a rare status among a million operations is found without reading the million. Channel and
 * country are checked on the rows these reads reach.
 */
async function listOperations(
  db: Executor,
  merchantId: string,
  mode: Mode,
  filter: OperationListFilter,
): Promise<OperationListPage> {
  const { limit } = filter
  const kinds = filter.kinds && filter.kinds.length > 0 ? filter.kinds : undefined
  const statuses = filter.statuses && filter.statuses.length > 0 ? filter.statuses : undefined
  const partitions: { kind?: string; status?: string }[] = statuses
    ? (kinds ?? operationKindNames).flatMap((kind) => statuses.map((status) => ({ kind, status })))
    : kinds
      ? kinds.map((kind) => ({ kind }))
      : [{}]
  const rows: Selectable<OperationsTable>[] = []
  for (const partition of partitions)
    rows.push(...(await listPartition(db, merchantId, mode, filter, partition)))
  const merged = partitions.length === 1 ? rows : newestRows(rows)
  const items = merged.slice(0, limit).map(toOperation)
  const last = items.at(-1)
  return {
    items,
    next: merged.length > limit && last ? { initiatedAtUs: last.initiatedAtUs, id: last.id } : undefined,
  }
}

/** The newest `limit + 1` rows of one kind and status (or of every kind), below the cursor. */
function listPartition(
  db: Executor,
  merchantId: string,
  mode: Mode,
  filter: OperationListFilter,
  partition: { kind?: string; status?: string },
) {
  const { after, limit } = filter
  let query = applyListFilters(
    db.selectFrom('operations').selectAll().where('merchant_id', '=', merchantId).where('mode', '=', mode),
    {
      ...filter,
      kinds: partition.kind ? [partition.kind] : [],
      statuses: partition.status ? [partition.status] : [],
    },
  )
  if (after)
    query = query.where((eb) =>
      eb(eb.refTuple('initiated_at_us', 'id'), '<', eb.tuple(after.initiatedAtUs, after.id)),
    )
  const ordered = partition.status
    ? query.orderBy('position', 'desc')
    : query.orderBy('initiated_at_us', 'desc').orderBy('id', 'desc')
  return ordered.limit(limit + 1).execute()
}

function newestRows(rows: Selectable<OperationsTable>[]): Selectable<OperationsTable>[] {
  return rows.sort(
    (a, b) => Number(b.initiated_at_us) - Number(a.initiated_at_us) || Number(b.id) - Number(a.id),
  )
}

/** The list's filters as conditions on the rows (the console's list across merchants applies them too). */
export function applyListFilters<O>(
  query: SelectQueryBuilder<Database, 'operations', O>,
  filter: OperationListFilter,
): SelectQueryBuilder<Database, 'operations', O> {
  let filtered = query
  const { kinds, statuses, channel, country, fromUs, toUs } = filter
  if (kinds && kinds.length > 0) filtered = filtered.where('kind', 'in', kinds)
  if (statuses && statuses.length > 0) filtered = filtered.where('status', 'in', statuses)
  if (channel !== undefined)
    filtered = filtered.where((eb) => eb.or([eb('channel', '=', channel), eb('to_channel', '=', channel)]))
  if (country !== undefined)
    filtered = filtered.where((eb) => eb.or([eb('country', '=', country), eb('to_country', '=', country)]))
  if (fromUs !== undefined) filtered = filtered.where('initiated_at_us', '>=', fromUs)
  if (toUs !== undefined) filtered = filtered.where('initiated_at_us', '<', toUs)
  return filtered
}

async function countsSince(
  db: Executor,
  merchantId: string,
  mode: Mode,
  sinceUs: number,
): Promise<OperationCounts> {
  const [statusRows, postedRows] = await Promise.all([
    db
      .selectFrom('operations')
      .select(['kind', 'status', (eb) => eb.fn.countAll<number>().as('count')])
      .where('merchant_id', '=', merchantId)
      .where('mode', '=', mode)
      .where('initiated_at_us', '>=', sinceUs)
      .groupBy(['kind', 'status'])
      .orderBy('kind')
      .orderBy('status')
      .execute(),
    db
      .selectFrom('ledger_entries')
      .select([
        'operation_kind',
        'type',
        'currency',
        (eb) => eb.fn.countAll<number>().as('entries'),
        sql<number>`sum(amount_minor)`.as('amount_minor'),
      ])
      .where('merchant_id', '=', merchantId)
      .where('mode', '=', mode)
      .where('created_at_us', '>=', sinceUs)
      .where('status', '=', 'succeeded')
      .groupBy(['operation_kind', 'type', 'currency'])
      .orderBy('operation_kind')
      .orderBy('type')
      .orderBy('currency')
      .execute(),
  ])
  return {
    byStatus: statusRows.map((row) => ({
      kind: row.kind as OperationKind,
      status: row.status as Status,
      count: Number(row.count),
    })),
    // PostgreSQL's sum of bigint is numeric, which pg gives as text.
    posted: postedRows.map((row) => ({
      kind: row.operation_kind as OperationKind,
      type: row.type as PostedTotal['type'],
      currency: row.currency as Currency,
      entries: Number(row.entries),
      amountMinor: Number(row.amount_minor),
    })),
  }
}
