import { type Selectable, type SelectQueryBuilder, sql, type Updateable } from 'kysely'
import { type Mode, type OperationKind, refundKindFor, type SideRole } from '../../domain/kinds.ts'
import type { Currency } from '../../domain/money.ts'
import type { Metadata, Operation, OperationUrls, Side } from '../../domain/operation.ts'
import type { Page, PageRequest } from '../../domain/pages.ts'
import type { Status } from '../../domain/status.ts'
import { ReadBatches } from '../read-batches.ts'
import type { Database, OperationsTable } from '../schema.ts'
import type { Executor, RepositoryScope } from './executor.ts'
import type { MerchantStatus } from './merchants.ts'
import { counterValue, isUnfiltered, seekPage } from './pages.ts'
import { powerOfTwoChunks } from './row-chunks.ts'
import { statementTemplate } from './statement-template.ts'
import { countStatusChanges, type ListKey, statusPageStart } from './status-buckets.ts'

export interface OperationFilters {
  status?: Status
  merchantReference?: string
  phoneNumber?: string
  channel?: string
  country?: string
  fromUs?: number
  toUs?: number
  /** The token of the payout batch the operations are items of. */
  batch?: string
  /** Only the collects paid through this payment link. */
  paymentLink?: string
}

/** An operation with the name of the merchant it belongs to, for pages shown to its customer. */
export interface OperationWithMerchant {
  operation: Operation
  merchantName: string
  merchantStatus: MerchantStatus
}

export interface OperationsRepository {
  /**
   * Inserts the operation under its unique merchantReference and returns its id; undefined when
   * the reference is already taken (a retry, or a concurrent twin that committed first):
   * idempotency is this constraint, not a read before the write.
   */
  insertIfNew(operation: Operation): Promise<number | undefined>
  /**
   * Inserts operations of one merchant, mode and kind together, each under its unique
   * merchantReference (distinct among them), in a few multi-row statements: each one's id, in
   * their order, undefined for one whose reference was taken already.
   */
  insertAllIfNew(operations: readonly Operation[]): Promise<(number | undefined)[]>
  findByReference(
    merchantId: string,
    mode: Mode,
    kind: OperationKind,
    merchantReference: string,
  ): Promise<Operation | undefined>
  /** Which of these merchantReferences already name an operation of the kind: one statement per 500 of them. */
  takenReferences(
    merchantId: string,
    mode: Mode,
    kind: OperationKind,
    merchantReferences: readonly string[],
  ): Promise<Set<string>>
  /** Another merchant's token, or the other mode's, is simply not found: no oracle for tokens. */
  findByToken(merchantId: string, mode: Mode, token: string): Promise<Operation | undefined>
  findById(id: number): Promise<Operation | undefined>
  /** Whoever holds the token, with its merchant's name: the checkout page and operators' notifications. */
  findAnyByToken(token: string): Promise<OperationWithMerchant | undefined>
  /** The operation and side an operator knows by this reference (any merchant: notifications come from operators). */
  findByOperatorReference(reference: string): Promise<{ operation: Operation; role: SideRole } | undefined>
  /** Reads the operation for a change: the row lock (PostgreSQL) or the write lock (SQLite) orders racing changes. */
  lockById(id: number): Promise<Operation | undefined>
  /**
   * Reads several operations for a change, their rows locked in id order in one statement: a
   * write that changes several takes them all before anything else, as one that changes one takes
   * its row first, so that no two writes each hold what the other waits for.
   */
  lockByIds(ids: readonly number[]): Promise<Operation[]>
  /** Writes the operation's new state; `previousStatus` is the status it was read with (under its lock). */
  save(operation: Operation, previousStatus: Status): Promise<void>
  /** As `save` for many operations of one merchant, mode and kind: their states in a few statements, their status counts in one. */
  saveAll(saved: readonly { operation: Operation; previousStatus: Status }[]): Promise<void>
  /**
   * Changes what refunds claim on a refunded operation. A claim (positive) is refused, and false
   * returned, unless the operation succeeded and the claims stay within what it may refund: the
   * statement itself decides, so concurrent refunds cannot add up to more.
   */
  adjustRefunded(refundedId: number, deltaMinor: number): Promise<boolean>
  list(
    merchantId: string,
    mode: Mode,
    kind: OperationKind,
    filters: OperationFilters,
    page: PageRequest,
  ): Promise<Page<Operation>>
}

export function operationsRepository({ db, dialect }: RepositoryScope): OperationsRepository {
  const selectOperations = () => db.selectFrom('operations').selectAll()
  // Outside a transaction, reads by token that queue go together (read-batches.ts).
  const byToken = dialect.batchesPointReads && !db.isTransaction ? tokenReads(db) : undefined
  return {
    insertIfNew: (operation) => insertIfNew(db, operation),
    insertAllIfNew: (operations) => insertAllIfNew(db, operations),
    async findByReference(merchantId, mode, kind, merchantReference) {
      const row = await selectOperations()
        .where('merchant_id', '=', merchantId)
        .where('mode', '=', mode)
        .where('kind', '=', kind)
        .where('merchant_reference', '=', merchantReference)
        .executeTakeFirst()
      return row && toOperation(row)
    },
    async takenReferences(merchantId, mode, kind, merchantReferences) {
      const taken = new Set<string>()
      for (let from = 0; from < merchantReferences.length; from += 500) {
        const rows = await db
          .selectFrom('operations')
          .select('merchant_reference')
          .where('merchant_id', '=', merchantId)
          .where('mode', '=', mode)
          .where('kind', '=', kind)
          .where('merchant_reference', 'in', merchantReferences.slice(from, from + 500))
          .execute()
        for (const row of rows) taken.add(row.merchant_reference)
      }
      return taken
    },
    async findByToken(merchantId, mode, token) {
      const key = { merchantId, mode, token }
      const row = byToken ? await byToken.read(key) : (await selectByToken(db, key)).rows[0]
      return row && toOperation(row)
    },
    async findById(id) {
      const row = await selectOperations().where('id', '=', id).executeTakeFirst()
      return row && toOperation(row)
    },
    findAnyByToken: (token) => findAnyByToken(db, token),
    findByOperatorReference: (reference) => findByOperatorReference(db, reference),
    async lockById(id) {
      const query = selectOperations().where('id', '=', id)
      const row = await (dialect.supportsRowLocks ? query.forUpdate() : query).executeTakeFirst()
      return row && toOperation(row)
    },
    async lockByIds(ids) {
      if (ids.length === 0) return []
      const query = selectOperations().where('id', 'in', ids).orderBy('id')
      const rows = await (dialect.supportsRowLocks ? query.forUpdate() : query).execute()
      return rows.map(toOperation)
    },
    save: (operation, previousStatus) => save(db, operation, previousStatus),
    saveAll: (saved) => saveAll(db, saved),
    adjustRefunded: (refundedId, deltaMinor) => adjustRefunded(db, refundedId, deltaMinor),
    list: (merchantId, mode, kind, filters, page) =>
      listOperations(db, merchantId, mode, kind, filters, page),
  }
}

const selectByToken = statementTemplate(
  (db, key: { merchantId: string; mode: Mode; token: string }) =>
    db
      .selectFrom('operations')
      .selectAll()
      .where('token', '=', key.token)
      .where('merchant_id', '=', key.merchantId)
      .where('mode', '=', key.mode),
  { carries: { tables: ['operations'] } },
)

type TokenKey = { merchantId: string; mode: Mode; token: string }

/**
 * A batch is read by its tokens (unique), and each read keeps its row only if it belongs to the
 * merchant and mode that asked: another merchant's token answers nothing, as alone.
 */
function tokenReads(db: Executor): ReadBatches<TokenKey, Selectable<OperationsTable> | undefined> {
  const readAll = async (keys: readonly TokenKey[]) => {
    if (keys.length === 1) return [(await selectByToken(db, keys[0]!)).rows[0]]
    const tokens = [...new Set(keys.map((key) => key.token))]
    const rows = await db.selectFrom('operations').selectAll().where('token', 'in', tokens).execute()
    const byToken = new Map(rows.map((row) => [row.token, row]))
    return keys.map((key) => {
      const row = byToken.get(key.token)
      return row && row.merchant_id === key.merchantId && row.mode === key.mode ? row : undefined
    })
  }
  return new ReadBatches(readAll, tokenReadsInFlight, largestTokenBatch)
}

/**
 * Two statements at a time: the fewer in flight, the larger each batch and the fewer round trips,
 * but with one a single slow read (a page not in memory) would hold up every other.
 */
const tokenReadsInFlight = 2
const largestTokenBatch = 64

const insertUnlessReferenced = statementTemplate(
  (db, row: ReturnType<typeof toRow>) =>
    db
      .insertInto('operations')
      .values(row)
      .onConflict((conflict) =>
        conflict.columns(['merchant_id', 'mode', 'kind', 'merchant_reference']).doNothing(),
      )
      .returning('id'),
  { carries: { tables: ['operations'] } },
)

async function insertIfNew(db: Executor, operation: Operation): Promise<number | undefined> {
  const [inserted] = (await insertUnlessReferenced(db, toRow(operation))).rows
  if (!inserted) return undefined
  await insertOperatorReferences(db, inserted.id, operation.sides)
  await countStatusChanges(db, listKeyOf(operation), [
    { status: operation.status, position: operation.position, delta: 1 },
  ])
  return inserted.id
}

const insertAllUnlessReferenced = statementTemplate(
  (db, values: { rows: ReturnType<typeof toRow>[] }) =>
    db
      .insertInto('operations')
      .values(values.rows)
      .onConflict((conflict) =>
        conflict.columns(['merchant_id', 'mode', 'kind', 'merchant_reference']).doNothing(),
      )
      .returning(['id', 'merchant_reference']),
  { carries: { tables: ['operations'] } },
)

async function insertAllIfNew(
  db: Executor,
  operations: readonly Operation[],
): Promise<(number | undefined)[]> {
  const [first] = operations
  if (!first) return []
  // A multi-row insert returns its rows in no promised order: each is known by its reference.
  const idOf = new Map<string, number>()
  for (const chunk of powerOfTwoChunks(operations.map(toRow)))
    for (const row of (await insertAllUnlessReferenced(db, { rows: chunk })).rows)
      idOf.set(row.merchant_reference, row.id)
  const ids = operations.map((operation) => idOf.get(operation.merchantReference))
  const references = operations.flatMap((operation, index) =>
    operatorReferenceRows(ids[index], operation.sides),
  )
  for (const chunk of powerOfTwoChunks(references))
    await db.insertInto('operator_references').values(chunk).execute()
  await countStatusChanges(
    db,
    listKeyOf(first),
    operations.flatMap((operation, index) =>
      ids[index] === undefined ? [] : [{ status: operation.status, position: operation.position, delta: 1 }],
    ),
  )
  return ids
}

async function save(db: Executor, operation: Operation, previousStatus: Status): Promise<void> {
  if (operation.status !== previousStatus)
    await countStatusChanges(db, listKeyOf(operation), [
      { status: previousStatus, position: operation.position, delta: -1 },
      { status: operation.status, position: operation.position, delta: 1 },
    ])
  await saveState(db, {
    id: operation.id,
    status: operation.status,
    sides: JSON.stringify(operation.sides),
    redirect_url: operation.redirectUrl,
    failure_code: operation.failure?.code ?? null,
    failure_message: operation.failure?.message ?? null,
    completed_at_us: operation.completedAtUs,
    updated_at_us: operation.updatedAtUs,
  })
}

async function saveAll(
  db: Executor,
  saved: readonly { operation: Operation; previousStatus: Status }[],
): Promise<void> {
  const [first] = saved
  if (!first) return
  await countStatusChanges(
    db,
    listKeyOf(first.operation),
    saved.flatMap(({ operation, previousStatus }) =>
      operation.status === previousStatus
        ? []
        : [
            { status: previousStatus, position: operation.position, delta: -1 },
            { status: operation.status, position: operation.position, delta: 1 },
          ],
    ),
  )
  // The values are cast so that PostgreSQL knows their types, and named apart from the columns.
  for (const chunk of powerOfTwoChunks(
    saved.map(({ operation }) => operation),
    64,
  )) {
    const values = chunk.map(
      (operation) => sql`select cast(${operation.id} as bigint) as saved_id,
        cast(${operation.status} as text) as new_status, cast(${JSON.stringify(operation.sides)} as text) as new_sides,
        cast(${operation.redirectUrl} as text) as new_redirect_url,
        cast(${operation.failure?.code ?? null} as text) as new_failure_code,
        cast(${operation.failure?.message ?? null} as text) as new_failure_message,
        cast(${operation.completedAtUs} as bigint) as new_completed_at_us,
        cast(${operation.updatedAtUs} as bigint) as new_updated_at_us`,
    )
    await sql`update operations set status = v.new_status, sides = v.new_sides,
      redirect_url = v.new_redirect_url, failure_code = v.new_failure_code,
      failure_message = v.new_failure_message, completed_at_us = v.new_completed_at_us,
      updated_at_us = v.new_updated_at_us
      from (${sql.join(values, sql` union all `)}) as v
      where operations.id = v.saved_id`.execute(db)
  }
}

const saveState = statementTemplate(
  (db, { id, ...state }: Updateable<OperationsTable> & { id: number }) =>
    db.updateTable('operations').set(state).where('id', '=', id),
  { writeOnly: 'operations' },
)

async function findAnyByToken(db: Executor, token: string): Promise<OperationWithMerchant | undefined> {
  const row = await db
    .selectFrom('operations')
    .innerJoin('merchants', 'merchants.id', 'operations.merchant_id')
    .selectAll('operations')
    .select(['merchants.name as merchant_name', 'merchants.status as merchant_status'])
    .where('operations.token', '=', token)
    .executeTakeFirst()
  return (
    row && {
      operation: toOperation(row),
      merchantName: row.merchant_name,
      merchantStatus: row.merchant_status,
    }
  )
}

async function insertOperatorReferences(db: Executor, operationId: number, sides: readonly Side[]) {
  const rows = operatorReferenceRows(operationId, sides)
  if (rows.length > 0) await db.insertInto('operator_references').values(rows).execute()
}

function operatorReferenceRows(operationId: number | undefined, sides: readonly Side[]) {
  if (operationId === undefined) return []
  return sides.flatMap((side) =>
    side.operatorReference
      ? [{ reference: side.operatorReference, operation_id: operationId, role: side.role }]
      : [],
  )
}

async function findByOperatorReference(db: Executor, reference: string) {
  const row = await db
    .selectFrom('operator_references')
    .innerJoin('operations', 'operations.id', 'operator_references.operation_id')
    .selectAll('operations')
    .select('operator_references.role as side_role')
    .where('operator_references.reference', '=', reference)
    .executeTakeFirst()
  return row && { operation: toOperation(row), role: row.side_role as SideRole }
}

async function adjustRefunded(db: Executor, refundedId: number, deltaMinor: number): Promise<boolean> {
  let update = db
    .updateTable('operations')
    .set({ refunded_minor: sql`refunded_minor + ${deltaMinor}` })
    .where('id', '=', refundedId)
  // A claim, never a release, is conditional: the statement itself decides, whatever ran before it.
  if (deltaMinor > 0)
    update = update
      .where('status', '=', 'succeeded')
      .where(sql<boolean>`refunded_minor + ${deltaMinor} <= refundable_minor`)
  const result = await update.executeTakeFirst()
  return result.numUpdatedRows > 0n
}

function listKeyOf(operation: Operation): ListKey {
  return { merchantId: operation.merchantId, mode: operation.mode, kind: operation.kind }
}

/**
 * Newest first. Unfiltered pages seek on the dense position, pages filtered on status alone start
 * from the status counts (status-buckets.ts); other filters count and skip through their index.
 */
async function listOperations(
  db: Executor,
  merchantId: string,
  mode: Mode,
  kind: OperationKind,
  filters: OperationFilters,
  page: PageRequest,
): Promise<Page<Operation>> {
  const base = db
    .selectFrom('operations')
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', mode)
    .where('kind', '=', kind)
  if (isUnfiltered(filters)) {
    const total = await counterValue(db, merchantId, mode, kind)
    const seek = await seekPage(total, page, (top, limit) =>
      base.selectAll().where('position', '<=', top).orderBy('position', 'desc').limit(limit).execute(),
    )
    return { items: seek.items.map(toOperation), total }
  }
  if (filtersOnlyStatus(filters)) {
    const { status } = filters
    // Undefined when the counts changed between their two reads: this page is counted below instead.
    const counted = await statusPageStart(db, { merchantId, mode, kind }, status, page)
    if (counted) {
      const { total, start } = counted
      const rows = start
        ? await base
            .selectAll()
            .where('status', '=', status)
            .where('position', '<=', start.top)
            .orderBy('position', 'desc')
            .limit(page.perPage)
            .offset(start.skip)
            .execute()
        : []
      return { items: rows.map(toOperation), total }
    }
  }
  const filtered = applyFilters(base, filters)
  const [counted, rows] = await Promise.all([
    filtered.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    filtered
      .selectAll()
      .orderBy('position', 'desc')
      .limit(page.perPage)
      .offset((page.page - 1) * page.perPage)
      .execute(),
  ])
  return { items: rows.map(toOperation), total: Number(counted.total) }
}

function filtersOnlyStatus(filters: OperationFilters): filters is OperationFilters & { status: Status } {
  const { status, ...others } = filters
  return status !== undefined && isUnfiltered(others)
}

function applyFilters<O>(
  query: SelectQueryBuilder<Database, 'operations', O>,
  filters: OperationFilters,
): SelectQueryBuilder<Database, 'operations', O> {
  let filtered = query
  if (filters.status) filtered = filtered.where('status', '=', filters.status)
  if (filters.merchantReference)
    filtered = filtered.where('merchant_reference', '=', filters.merchantReference)
  if (filters.phoneNumber) {
    const phone = filters.phoneNumber
    filtered = filtered.where((eb) =>
      eb.or([eb('phone_number', '=', phone), eb('to_phone_number', '=', phone)]),
    )
  }
  if (filters.channel) {
    const channel = filters.channel
    filtered = filtered.where((eb) => eb.or([eb('channel', '=', channel), eb('to_channel', '=', channel)]))
  }
  if (filters.country) {
    const country = filters.country
    filtered = filtered.where((eb) => eb.or([eb('country', '=', country), eb('to_country', '=', country)]))
  }
  if (filters.paymentLink) filtered = filtered.where('payment_link', '=', filters.paymentLink)
  if (filters.fromUs !== undefined) filtered = filtered.where('initiated_at_us', '>=', filters.fromUs)
  if (filters.toUs !== undefined) filtered = filtered.where('initiated_at_us', '<', filters.toUs)
  if (filters.batch !== undefined) {
    const batch = filters.batch
    filtered = filtered.where('id', 'in', (eb) =>
      eb
        .selectFrom('payout_batch_items')
        .innerJoin('payout_batches', 'payout_batches.id', 'payout_batch_items.batch_id')
        .select('payout_batch_items.operation_id')
        .where('payout_batches.token', '=', batch),
    )
  }
  return filtered
}

function toRow(operation: Operation) {
  return {
    token: operation.token,
    merchant_id: operation.merchantId,
    mode: operation.mode,
    kind: operation.kind,
    position: operation.position,
    status: operation.status,
    merchant_reference: operation.merchantReference,
    request_hash: operation.requestHash,
    currency: operation.currency,
    ...sideColumns(operation.sides),
    sides: JSON.stringify(operation.sides),
    urls: JSON.stringify(operation.urls),
    redirect_url: operation.redirectUrl,
    failure_code: operation.failure?.code ?? null,
    failure_message: operation.failure?.message ?? null,
    initiated_at_us: operation.initiatedAtUs,
    completed_at_us: operation.completedAtUs,
    updated_at_us: operation.updatedAtUs,
    refund_of_id: operation.refundOf?.id ?? null,
    refund_of_token: operation.refundOf?.token ?? null,
    refundable_minor: operation.refunds?.refundableMinor ?? 0,
    metadata: operation.metadata ? JSON.stringify(operation.metadata) : null,
    payment_link: operation.paymentLink ?? null,
  }
}

/** The columns that mirror the sides, so lists can filter without reading JSON. */
function sideColumns(sides: readonly Side[]) {
  const [first, second] = sides
  if (!first) throw new Error('an operation has at least one side')
  return {
    channel: first.channel,
    country: first.country,
    phone_number: first.customer.phoneNumber,
    to_channel: second?.channel ?? null,
    to_country: second?.country ?? null,
    to_phone_number: second?.customer.phoneNumber ?? null,
  }
}

/** A row as the domain's operation: every read of operations returns this shape. */
export function toOperation(row: Selectable<OperationsTable>): Operation {
  return {
    id: row.id,
    token: row.token,
    merchantId: row.merchant_id,
    mode: row.mode as Mode,
    kind: row.kind as OperationKind,
    position: row.position,
    status: row.status as Status,
    merchantReference: row.merchant_reference,
    requestHash: row.request_hash,
    currency: row.currency as Currency,
    sides: JSON.parse(row.sides) as Side[],
    urls: JSON.parse(row.urls) as OperationUrls,
    redirectUrl: row.redirect_url,
    failure:
      row.failure_code === null
        ? null
        : { code: row.failure_code, message: row.failure_message ?? row.failure_code },
    initiatedAtUs: row.initiated_at_us,
    completedAtUs: row.completed_at_us,
    updatedAtUs: row.updated_at_us,
    ...(row.metadata === null ? {} : { metadata: JSON.parse(row.metadata) as Metadata }),
    ...(row.refund_of_id === null
      ? {}
      : { refundOf: { id: Number(row.refund_of_id), token: row.refund_of_token ?? '' } }),
    ...(refundKindFor(row.kind as OperationKind)
      ? { refunds: { refundableMinor: row.refundable_minor, refundedMinor: row.refunded_minor } }
      : {}),
    ...(row.payment_link ? { paymentLink: row.payment_link } : {}),
  }
}
