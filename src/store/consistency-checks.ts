import { sql, type Transaction } from 'kysely'
import type { Side } from '../domain/operation.ts'
import { statusBlockSizes } from './repositories/status-buckets.ts'
import type { Database } from './schema.ts'
import { readSnapshot, type Store } from './store.ts'

type Snapshot = Transaction<Database>

/**
 * The facts `sika verify` compares, read in bulk from one snapshot: aggregates where the database
 * can add up, and operations in keyset batches with everything that hangs off them, so a store of
 * millions of operations is checked in constant memory while writers go on.
 */
export interface ConsistencyFacts {
  ledgerSumsByAccount(): Promise<EntrySum[]>
  balances(): Promise<BalanceRow[]>
  counters(): Promise<CounterFact[]>
  /** For each counter, how many rows it numbered and the highest number given: both must equal it. */
  numberedRows(): Promise<(CounterFact & { highest: number })[]>
  /** The next batch of operations after `afterId`, each with its ledger entries, its own events and open work. */
  operationsAfter(afterId: number, limit: number): Promise<OperationFacts[]>
  /** The next payout batches after `afterId`, each with its own events. */
  payoutBatchesAfter(afterId: number, limit: number): Promise<PayoutBatchFacts[]>
  /** A batch's events kept beside another operation than its first item's, or under another merchant or mode. */
  misplacedBatchEvents(): Promise<{ id: string; type: string; batchToken: string }[]>
  /** Each block of status counts (what lists filtered on status read) beside the rows it counts. */
  statusCounts(): Promise<StatusCountFact[]>
  /** Refunded operations whose recorded refund claims differ from the holds and postings of their live refunds. */
  refundClaimMismatches(): Promise<RefundClaimMismatch[]>
}

export interface RefundClaimMismatch {
  token: string
  recordedMinor: number
  /** What its refunds' pending and succeeded entries add up to. */
  claimedMinor: number
}

export function readConsistencyFacts<T>(
  store: Store,
  work: (facts: ConsistencyFacts) => Promise<T>,
): Promise<T> {
  return readSnapshot(store, (snapshot) =>
    work({
      ledgerSumsByAccount: () => ledgerSumsByAccount(snapshot),
      balances: () => balanceRows(snapshot),
      counters: () => counterValues(snapshot),
      numberedRows: () => numberedRows(snapshot),
      operationsAfter: (afterId, limit) => operationFactsAfter(snapshot, afterId, limit),
      payoutBatchesAfter: (afterId, limit) => payoutBatchFactsAfter(snapshot, afterId, limit),
      misplacedBatchEvents: () => misplacedBatchEvents(snapshot),
      refundClaimMismatches: () => refundClaimMismatches(snapshot),
      statusCounts: () => statusCounts(snapshot),
    }),
  )
}

export interface AccountKey {
  merchantId: string
  mode: string
  currency: string
}

export interface EntrySum extends AccountKey {
  type: string
  status: string
  amountMinor: number
}

export interface BalanceRow extends AccountKey {
  postedMinor: number
  heldMinor: number
}

async function ledgerSumsByAccount(snapshot: Snapshot): Promise<EntrySum[]> {
  const rows = await snapshot
    .selectFrom('ledger_entries')
    .select(['merchant_id', 'mode', 'currency', 'type', 'status'])
    .select((eb) => eb.fn.sum<number | string>('amount_minor').as('amount'))
    .groupBy(['merchant_id', 'mode', 'currency', 'type', 'status'])
    .execute()
  return rows.map((row) => ({
    merchantId: row.merchant_id,
    mode: row.mode,
    currency: row.currency,
    type: row.type,
    status: row.status,
    amountMinor: Number(row.amount),
  }))
}

async function refundClaimMismatches(snapshot: Snapshot): Promise<RefundClaimMismatch[]> {
  const rows = await snapshot
    .selectFrom('operations as refunded')
    .leftJoin('operations as refund', 'refund.refund_of_id', 'refunded.id')
    .leftJoin('ledger_entries as entry', (join) =>
      join.onRef('entry.operation_id', '=', 'refund.id').on('entry.status', 'in', ['pending', 'succeeded']),
    )
    .select(['refunded.token', 'refunded.refunded_minor'])
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('entry.amount_minor'), eb.lit(0)).as('claimed'))
    .where('refunded.refundable_minor', '>', 0)
    .groupBy(['refunded.id', 'refunded.token', 'refunded.refunded_minor'])
    .execute()
  return rows
    .map((row) => ({
      token: row.token,
      recordedMinor: row.refunded_minor,
      claimedMinor: Number(row.claimed),
    }))
    .filter((row) => row.recordedMinor !== row.claimedMinor)
}

async function balanceRows(snapshot: Snapshot): Promise<BalanceRow[]> {
  const rows = await snapshot.selectFrom('balances').selectAll().execute()
  return rows.map((row) => ({
    merchantId: row.merchant_id,
    mode: row.mode,
    currency: row.currency,
    postedMinor: row.posted_minor,
    heldMinor: row.held_minor,
  }))
}

export interface CounterFact {
  merchantId: string
  mode: string
  /** An operation kind, 'ledger' or 'event'. */
  name: string
  value: number
}

async function counterValues(snapshot: Snapshot): Promise<CounterFact[]> {
  const rows = await snapshot.selectFrom('counters').selectAll().execute()
  return rows.map((row) => ({
    merchantId: row.merchant_id,
    mode: row.mode,
    name: row.name,
    value: row.value,
  }))
}

async function numberedRows(snapshot: Snapshot): Promise<(CounterFact & { highest: number })[]> {
  const [operations, entries, events] = await Promise.all([
    snapshot
      .selectFrom('operations')
      .select(['merchant_id', 'mode', 'kind as name'])
      .select((eb) => [eb.fn.countAll<number | string>().as('count'), eb.fn.max('position').as('highest')])
      .groupBy(['merchant_id', 'mode', 'kind'])
      .execute(),
    snapshot
      .selectFrom('ledger_entries')
      .select(['merchant_id', 'mode'])
      .select((eb) => [eb.fn.countAll<number | string>().as('count'), eb.fn.max('sequence').as('highest')])
      .groupBy(['merchant_id', 'mode'])
      .execute(),
    snapshot
      .selectFrom('events')
      .select(['merchant_id', 'mode'])
      .select((eb) => [eb.fn.countAll<number | string>().as('count'), eb.fn.max('position').as('highest')])
      .groupBy(['merchant_id', 'mode'])
      .execute(),
  ])
  const fact = (
    row: { merchant_id: string; mode: string; count: unknown; highest: unknown },
    name: string,
  ) => ({
    merchantId: row.merchant_id,
    mode: row.mode,
    name,
    value: Number(row.count),
    highest: Number(row.highest),
  })
  return [
    ...operations.map((row) => fact(row, row.name)),
    ...entries.map((row) => fact(row, 'ledger')),
    ...events.map((row) => fact(row, 'event')),
  ]
}

export interface StatusCountFact {
  /** merchant, mode, kind, status and block, for the operator reading the report. */
  block: string
  recorded: number
  rows: number
}

async function statusCounts(snapshot: Snapshot): Promise<StatusCountFact[]> {
  const blockOf = (
    row: { merchant_id: string; mode: string; kind: string; status: string },
    level: number,
    bucket: unknown,
  ) => `${row.merchant_id} ${row.mode} ${row.kind} ${row.status} level ${level} block ${Number(bucket)}`
  const facts = new Map<string, StatusCountFact>()
  for (const row of await snapshot.selectFrom('status_buckets').selectAll().execute()) {
    const block = blockOf(row, row.level, row.bucket)
    facts.set(block, { block, recorded: Number(row.count), rows: 0 })
  }
  for (const [level, size] of statusBlockSizes.entries()) {
    const bucket = sql<number>`position / ${sql.lit(size)}`
    const counted = await snapshot
      .selectFrom('operations')
      .select(['merchant_id', 'mode', 'kind', 'status'])
      .select((eb) => [bucket.as('bucket'), eb.fn.countAll<number | string>().as('count')])
      .groupBy(['merchant_id', 'mode', 'kind', 'status', bucket])
      .execute()
    for (const row of counted) {
      const block = blockOf(row, level, row.bucket)
      facts.set(block, { block, recorded: facts.get(block)?.recorded ?? 0, rows: Number(row.count) })
    }
  }
  return [...facts.values()]
}

export interface OperationFacts {
  id: number
  token: string
  kind: string
  status: string
  sides: Side[]
  entries: { type: string; status: string; amountMinor: number }[]
  /** Event types, in the order they were written. */
  eventTypes: string[]
  /** Scheduled work not yet done. */
  openWork: { kind: string; role: string }[]
}

async function operationFactsAfter(
  snapshot: Snapshot,
  afterId: number,
  limit: number,
): Promise<OperationFacts[]> {
  const operations = await snapshot
    .selectFrom('operations')
    .select(['id', 'token', 'kind', 'status', 'sides'])
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute()
  if (operations.length === 0) return []
  const ids = operations.map((operation) => operation.id)
  const [entries, events, work] = await Promise.all([
    snapshot
      .selectFrom('ledger_entries')
      .select(['operation_id', 'type', 'status', 'amount_minor'])
      .where('operation_id', 'in', ids)
      .execute(),
    snapshot
      .selectFrom('events')
      .select(['operation_id', 'type'])
      .where('operation_id', 'in', ids)
      .where('payout_batch_id', 'is', null)
      .orderBy('position')
      .execute(),
    snapshot
      .selectFrom('scheduled_work')
      .select(['operation_id', 'kind', 'role'])
      .where('operation_id', 'in', ids)
      .where('done_at_us', 'is', null)
      .execute(),
  ])
  const entriesOf = groupBy(entries, (entry) => ({
    type: entry.type,
    status: entry.status,
    amountMinor: entry.amount_minor,
  }))
  const eventTypesOf = groupBy(events, (event) => event.type)
  const openWorkOf = groupBy(work, (item) => ({ kind: item.kind, role: item.role }))
  return operations.map((operation) => ({
    id: operation.id,
    token: operation.token,
    kind: operation.kind,
    status: operation.status,
    sides: JSON.parse(operation.sides) as Side[],
    entries: entriesOf.get(operation.id) ?? [],
    eventTypes: eventTypesOf.get(operation.id) ?? [],
    openWork: openWorkOf.get(operation.id) ?? [],
  }))
}

function groupBy<Row extends { operation_id: number }, T>(
  rows: Row[],
  map: (row: Row) => T,
): Map<number, T[]> {
  const groups = new Map<number, T[]>()
  for (const row of rows) {
    const group = groups.get(row.operation_id)
    if (group) group.push(map(row))
    else groups.set(row.operation_id, [map(row)])
  }
  return groups
}

export interface PayoutBatchFacts {
  id: number
  token: string
  status: string
  firstOperationId: number
  /** Its own events, in the order they were written, each with the operation it is kept beside. */
  events: { type: string; operationId: number }[]
}

async function payoutBatchFactsAfter(
  snapshot: Snapshot,
  afterId: number,
  limit: number,
): Promise<PayoutBatchFacts[]> {
  const batches = await snapshot
    .selectFrom('payout_batches')
    .select(['id', 'token', 'status', 'first_operation_id'])
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute()
  if (batches.length === 0) return []
  // Through the first items' operations (events_by_operation): the batches' events are kept beside them.
  const events = await snapshot
    .selectFrom('events')
    .select(['payout_batch_id', 'operation_id', 'type'])
    .where(
      'operation_id',
      'in',
      batches.map((batch) => batch.first_operation_id),
    )
    .where('payout_batch_id', 'is not', null)
    .orderBy('position')
    .execute()
  return batches.map((batch) => ({
    id: Number(batch.id),
    token: batch.token,
    status: batch.status,
    firstOperationId: Number(batch.first_operation_id),
    events: events
      .filter((event) => Number(event.payout_batch_id) === Number(batch.id))
      .map((event) => ({ type: event.type, operationId: Number(event.operation_id) })),
  }))
}

async function misplacedBatchEvents(snapshot: Snapshot) {
  const rows = await snapshot
    .selectFrom('events')
    .innerJoin('payout_batches', 'payout_batches.id', 'events.payout_batch_id')
    .select(['events.id', 'events.type', 'payout_batches.token'])
    .where((eb) =>
      eb.or([
        eb('events.operation_id', '<>', eb.ref('payout_batches.first_operation_id')),
        eb('events.merchant_id', '<>', eb.ref('payout_batches.merchant_id')),
        eb('events.mode', '<>', eb.ref('payout_batches.mode')),
      ]),
    )
    .execute()
  return rows.map((row) => ({ id: row.id, type: row.type, batchToken: row.token }))
}
