import { type Insertable, sql } from 'kysely'
import { type Mode, payoutEntryType, type SideRole } from '../../domain/kinds.ts'
import type { EntryStatus, EntryType } from '../../domain/ledger-rules.ts'
import type { Operation } from '../../domain/operation.ts'
import type { Page, PageRequest } from '../../domain/pages.ts'
import type { LedgerEffect } from '../../domain/transitions.ts'
import type { LedgerEntriesTable } from '../schema.ts'
import type { Executor, RepositoryScope } from './executor.ts'
import { counterValue, isUnfiltered, seekPage } from './pages.ts'
import { powerOfTwoChunks } from './row-chunks.ts'
import { statementTemplate } from './statement-template.ts'

/**
 * Two-phase money movement on a merchant's balance, in the style of TigerBeetle: a hold reserves
 * funds and is later posted or released, at most once. The database's own CHECK
 * (0 <= held <= posted) makes an overdraft impossible, whatever runs concurrently.
 */

export interface TransactionFilters {
  type?: EntryType
  operation?: string
  status?: EntryStatus
  fromUs?: number
  toUs?: number
}

/** One balance movement, as the merchant's transaction list shows it. */
export interface LedgerEntry {
  reference: string
  operationKind: string
  type: EntryType
  status: EntryStatus
  currency: string
  amountMinor: number
  createdAtUs: number
  token: string
  merchantReference: string
  /** The posted balance right after this entry succeeded; null while pending or when canceled. */
  balanceAfterMinor: number | null
}

export interface BalanceView {
  mode: Mode
  currency: string
  postedMinor: number
  heldMinor: number
  availableMinor: number
}

/** One operation's hold, with the sequence of its entry; every hold of a `holdAll` is on the same balance. */
export interface LedgerHold {
  operation: Operation
  effect: Extract<LedgerEffect, { action: 'hold' }>
  sequence: number
}

/** One operation's pending hold of a type to post (succeeded) or release (canceled). */
export interface LedgerResolution {
  operation: Operation
  effect: Extract<LedgerEffect, { action: 'resolve' }>
}

/** A hold the balance could not cover: nothing was written. */
export interface RefusedHold {
  /** The side whose money it was to hold. */
  role: SideRole
  currency: string
  availableMinor: number
  neededMinor: number
}

export interface LedgerRepository {
  /**
   * Applies the effects in order; stops at the first hold the balance cannot cover and reports it.
   * The entries it adds (`entriesAddedBy(effects)`) take the sequences from `firstSequence` on,
   * reserved beforehand (`SequencesRepository`).
   */
  apply(
    operation: Operation,
    effects: readonly LedgerEffect[],
    firstSequence: number,
  ): Promise<RefusedHold | undefined>
  /**
   * Holds on one balance for many operations at once (a payout batch's items), as `apply` would
   * hold each in turn: one availability check for their total, one change of the balance, the
   * entries in a few multi-row inserts. Refused, and nothing written, when the balance cannot
   * cover the total (`neededMinor` is the total).
   */
  holdAll(holds: readonly LedgerHold[]): Promise<RefusedHold | undefined>
  /**
   * Posts or releases the pending holds of many operations on one balance (a payout batch's items
   * the sandbox answered at once), as `apply` would resolve each in turn: the entries settled in a
   * statement per kind of resolution, the balance changed once, and each posting's balance after
   * it written in a few statements, counted in the operations' order.
   */
  resolveAll(resolutions: readonly LedgerResolution[]): Promise<void>
  balances(merchantId: string, mode?: Mode): Promise<BalanceView[]>
  list(
    merchantId: string,
    mode: Mode,
    filters: TransactionFilters,
    page: PageRequest,
  ): Promise<Page<LedgerEntry>>
  /**
   * Every entry the filters select, newest first, in batches of at most `batchSize` that seek on
   * the sequence: a statement of any length in constant memory, holding no transaction or
   * connection between batches. Each batch is read when the one before it has been taken.
   */
  scan(
    merchantId: string,
    mode: Mode,
    filters: TransactionFilters,
    batchSize: number,
  ): AsyncIterable<LedgerEntry[]>
  /**
   * What the merchant's payouts of one mode and currency took from its balance since `sinceUs`:
   * their entries held or posted, not those released (ledger_entries_payouts_by_day). Read after
   * this transaction's hold on the same balance, it counts every payout committed before, so two
   * payouts racing for a limit are counted one after the other.
   */
  paidOutSince(merchantId: string, mode: Mode, currency: string, sinceUs: number): Promise<number>
  /** One operation's entries, oldest first, through ledger_entries_by_operation. */
  entriesOfOperation(operationId: number): Promise<LedgerEntry[]>
}

/**
 * A balance row's figures as this transaction left them. A row the transaction has written stays
 * locked until it ends, so nothing else can change it: once a statement has returned its figures,
 * later changes to it are counted here and sent without waiting for an answer (write-only.ts).
 * Every opening of one merchant's group commit after the first (`app/mechanisms/merchant-group-commit.ts`)
 * then needs one round trip, not two, while the whole group waits behind it.
 */
type LockedBalances = Map<string, { postedMinor: number; heldMinor: number }>

/** The ledger of a transaction (`inTransaction`) counts the balances it has locked; outside one, the database answers every time. */
export function ledgerRepository(scope: RepositoryScope, inTransaction = false): LedgerRepository {
  const ledger: LedgerScope = { ...scope, locked: inTransaction ? new Map() : undefined }
  return {
    async apply(operation, effects, firstSequence) {
      let sequence = firstSequence
      for (const effect of effects) {
        if (effect.action === 'credit') await credit(ledger, operation, effect.amountMinor, sequence++)
        else if (effect.action === 'resolve')
          await resolve(ledger, operation, effect.entryType, effect.resolution)
        else if (effect.action === 'hold-resolved') {
          const refused = await holdResolved(ledger, operation, effect, sequence++)
          if (refused) return refused
        } else {
          const { entryType, amountMinor, role } = effect
          const refused = await hold(ledger, operation, {
            entryType,
            amountMinor,
            role,
            sequence: sequence++,
          })
          if (refused) return refused
        }
      }
      return undefined
    },
    holdAll: (holds) => holdAll(ledger, holds),
    resolveAll: (resolutions) => resolveAll(ledger, resolutions),
    balances: (merchantId, mode) => readBalances(scope, merchantId, mode),
    list: (merchantId, mode, filters, page) => listEntries(scope, merchantId, mode, filters, page),
    scan: (merchantId, mode, filters, batchSize) => scanEntries(scope, merchantId, mode, filters, batchSize),
    async paidOutSince(merchantId, mode, currency, sinceUs) {
      const row = await scope.db
        .selectFrom('ledger_entries')
        .select((eb) => eb.fn.sum<number | string | null>('amount_minor').as('total'))
        .where('merchant_id', '=', merchantId)
        .where('mode', '=', mode)
        .where('currency', '=', currency)
        // A literal, as the partial index's own condition is: SQLite uses the index only then.
        .where('type', '=', sql.lit(payoutEntryType))
        .where('created_at_us', '>=', sinceUs)
        .where('status', '!=', 'canceled')
        .executeTakeFirst()
      return Number(row?.total ?? 0)
    },
    entriesOfOperation: async (operationId) =>
      (
        await scope.db
          .selectFrom('ledger_entries')
          .innerJoin('operations', 'operations.id', 'ledger_entries.operation_id')
          .select(entryColumns)
          .where('ledger_entries.operation_id', '=', operationId)
          .orderBy('ledger_entries.sequence')
          .execute()
      ).map(toEntry),
  }
}

/** What the ledger's writes are made with: the transaction, and the balances it has locked (in a transaction only). */
interface LedgerScope extends RepositoryScope {
  locked: LockedBalances | undefined
}

function balanceKey(operation: Operation): string {
  return `${operation.merchantId}/${operation.mode}/${operation.currency}`
}

/** A hold the locked row's figures cannot cover, by the rule the conditional updates below apply. */
function shortfall(
  known: { postedMinor: number; heldMinor: number },
  operation: Operation,
  role: SideRole,
  neededMinor: number,
): RefusedHold | undefined {
  const availableMinor = known.postedMinor - known.heldMinor
  return availableMinor < neededMinor
    ? { role, currency: operation.currency, availableMinor, neededMinor }
    : undefined
}

/** Remembers a locked row's figures, as a statement that wrote it returned them. */
function rememberLocked(
  { locked }: LedgerScope,
  operation: Operation,
  row: { posted_minor: number; held_minor: number },
): void {
  locked?.set(balanceKey(operation), { postedMinor: row.posted_minor, heldMinor: row.held_minor })
}

/**
 * Changes a balance row this transaction has locked, by amounts already checked against its
 * known figures; the statement waits for the next one that needs an answer. The database's CHECK
 * still guards the row, so a figure counted wrong here would fail the transaction, not overdraw.
 */
async function changeLocked(
  scope: LedgerScope,
  operation: Operation,
  change: { postedMinor: number; heldMinor: number },
): Promise<void> {
  const known = scope.locked!.get(balanceKey(operation))!
  known.postedMinor += change.postedMinor
  known.heldMinor += change.heldMinor
  await addToBalanceUnread(scope.db, {
    merchantId: operation.merchantId,
    mode: operation.mode,
    currency: operation.currency,
    posted: change.postedMinor,
    held: change.heldMinor,
  })
}

const addToBalanceUnread = statementTemplate(
  (db, change: { merchantId: string; mode: string; currency: string; posted: number; held: number }) =>
    db
      .updateTable('balances')
      .set({
        posted_minor: sql`posted_minor + ${change.posted}`,
        held_minor: sql`held_minor + ${change.held}`,
      })
      .where('merchant_id', '=', change.merchantId)
      .where('mode', '=', change.mode)
      .where('currency', '=', change.currency),
  { writeOnly: 'balances' },
)

function balanceRow({ db }: RepositoryScope, operation: Operation) {
  return db
    .updateTable('balances')
    .where('merchant_id', '=', operation.merchantId)
    .where('mode', '=', operation.mode)
    .where('currency', '=', operation.currency)
}

/** Reserves funds; refused, and nothing written, when less is available than asked. */
async function hold(
  scope: LedgerScope,
  operation: Operation,
  { entryType: type, amountMinor, role, sequence }: HeldEntry,
): Promise<RefusedHold | undefined> {
  const known = scope.locked?.get(balanceKey(operation))
  if (known) {
    const refused = shortfall(known, operation, role, amountMinor)
    if (refused) return refused
    await changeLocked(scope, operation, { postedMinor: 0, heldMinor: amountMinor })
  } else {
    // No balance row yet means nothing is available: the conditional update then matches nothing.
    const balance = await balanceRow(scope, operation)
      .set({ held_minor: sql`held_minor + ${amountMinor}` })
      .where(sql<boolean>`posted_minor - held_minor >= ${amountMinor}`)
      .returning(['posted_minor', 'held_minor'])
      .executeTakeFirst()
    if (!balance) return refusedHold(scope, operation, role, amountMinor)
    rememberLocked(scope, operation, balance)
  }
  await insertEntry(scope, operation, { type, amountMinor, status: 'pending', sequence })
  return undefined
}

async function holdAll(scope: LedgerScope, holds: readonly LedgerHold[]): Promise<RefusedHold | undefined> {
  const [first] = holds
  if (!first) return undefined
  const { operation, effect } = first
  if (holds.some((held) => balanceKey(held.operation) !== balanceKey(operation)))
    throw new Error('the holds of one holdAll are on one balance')
  const totalMinor = holds.reduce((total, held) => total + held.effect.amountMinor, 0)
  const known = scope.locked?.get(balanceKey(operation))
  if (known) {
    const refused = shortfall(known, operation, effect.role, totalMinor)
    if (refused) return refused
    await changeLocked(scope, operation, { postedMinor: 0, heldMinor: totalMinor })
  } else {
    const balance = await balanceRow(scope, operation)
      .set({ held_minor: sql`held_minor + ${totalMinor}` })
      .where(sql<boolean>`posted_minor - held_minor >= ${totalMinor}`)
      .returning(['posted_minor', 'held_minor'])
      .executeTakeFirst()
    if (!balance) return refusedHold(scope, operation, effect.role, totalMinor)
    rememberLocked(scope, operation, balance)
  }
  // Read after the sequences' counter lock is held, as for one entry.
  const atUs = scope.clock.nowUs()
  const rows = holds.map(({ operation: held, effect: hold, sequence }) =>
    entryRow(
      held,
      { type: hold.entryType, amountMinor: hold.amountMinor, status: 'pending', sequence },
      atUs,
    ),
  )
  for (const chunk of powerOfTwoChunks(rows)) await insertEntryRows(scope.db, { rows: chunk })
  return undefined
}

async function resolveAll(scope: LedgerScope, resolutions: readonly LedgerResolution[]): Promise<void> {
  const [first] = resolutions
  if (!first) return
  const { operation } = first
  if (resolutions.some((resolved) => balanceKey(resolved.operation) !== balanceKey(operation)))
    throw new Error('the resolutions of one resolveAll are on one balance')
  scope.locked?.delete(balanceKey(operation))
  const atUs = scope.clock.nowUs()
  // Each settled entry, by operation and type: what it moved, and its id for its balance after.
  const settled = new Map<string, { id: number; amountMinor: number }>()
  const groups = new Map<string, LedgerResolution[]>()
  for (const resolved of resolutions) {
    const group = `${resolved.effect.entryType}/${resolved.effect.resolution}`
    groups.set(group, [...(groups.get(group) ?? []), resolved])
  }
  for (const group of groups.values()) {
    const { entryType, resolution } = group[0]!.effect
    const rows = await scope.db
      .updateTable('ledger_entries')
      .set({ status: resolution, updated_at_us: atUs })
      .where(
        'operation_id',
        'in',
        group.map((resolved) => resolved.operation.id),
      )
      .where('type', '=', entryType)
      .where('status', '=', 'pending')
      .returning(['id', 'operation_id', 'amount_minor'])
      .execute()
    for (const row of rows)
      settled.set(`${row.operation_id}/${entryType}`, { id: row.id, amountMinor: row.amount_minor })
  }
  const moved = (resolution: 'succeeded' | 'canceled') =>
    resolutions.flatMap(({ operation: resolved, effect }) => {
      const entry = settled.get(`${resolved.id}/${effect.entryType}`)
      return entry && effect.resolution === resolution ? [entry] : []
    })
  const released = moved('canceled').reduce((total, entry) => total + entry.amountMinor, 0)
  if (released > 0)
    await balanceRow(scope, operation)
      .set({ held_minor: sql`held_minor - ${released}` })
      .execute()
  await postResolved(scope, operation, moved('succeeded'))
}

/** Posts the settled holds' total, and writes each posting's balance after it, in their order. */
async function postResolved(
  scope: LedgerScope,
  operation: Operation,
  posted: readonly { id: number; amountMinor: number }[],
): Promise<void> {
  const total = posted.reduce((sum, entry) => sum + entry.amountMinor, 0)
  if (posted.length === 0) return
  const balance = await balanceRow(scope, operation)
    .set({ posted_minor: sql`posted_minor - ${total}`, held_minor: sql`held_minor - ${total}` })
    .returning('posted_minor')
    .executeTakeFirstOrThrow()
  let running = balance.posted_minor + total
  const afters = posted.map((entry) => {
    running -= entry.amountMinor
    return { id: entry.id, balanceAfterMinor: running }
  })
  for (const chunk of powerOfTwoChunks(afters)) {
    const values = chunk.map(
      (after) =>
        sql`select cast(${after.id} as bigint) as entry_id, cast(${after.balanceAfterMinor} as bigint) as after_minor`,
    )
    await sql`update ledger_entries set balance_after_minor = v.after_minor
      from (${sql.join(values, sql` union all `)}) as v
      where ledger_entries.id = v.entry_id`.execute(scope.db)
  }
}

async function refusedHold(
  scope: RepositoryScope,
  operation: Operation,
  role: SideRole,
  neededMinor: number,
): Promise<RefusedHold> {
  const [balance] = await readBalances(scope, operation.merchantId, operation.mode, operation.currency)
  return { role, currency: operation.currency, availableMinor: balance?.availableMinor ?? 0, neededMinor }
}

/**
 * A hold resolved in the write that makes it: the same availability check as a hold, then the
 * posting (or nothing, for a release) and one entry written settled, with the balance after it.
 */
async function holdResolved(
  scope: LedgerScope,
  operation: Operation,
  effect: Extract<LedgerEffect, { action: 'hold-resolved' }>,
  sequence: number,
): Promise<RefusedHold | undefined> {
  const { entryType: type, amountMinor, role, resolution } = effect
  const posted = resolution === 'succeeded' ? amountMinor : 0
  let postedAfter: number
  const known = scope.locked?.get(balanceKey(operation))
  if (known) {
    const refused = shortfall(known, operation, role, amountMinor)
    if (refused) return refused
    if (posted > 0) await changeLocked(scope, operation, { postedMinor: -posted, heldMinor: 0 })
    postedAfter = known.postedMinor
  } else {
    const [balance] = (
      await debitIfAvailable(scope.db, {
        merchantId: operation.merchantId,
        mode: operation.mode,
        currency: operation.currency,
        posted,
        needed: amountMinor,
      })
    ).rows
    if (!balance) return refusedHold(scope, operation, role, amountMinor)
    rememberLocked(scope, operation, balance)
    postedAfter = balance.posted_minor
  }
  await insertEntry(scope, operation, {
    type,
    amountMinor,
    status: resolution,
    sequence,
    ...(resolution === 'succeeded' ? { balanceAfterMinor: postedAfter } : {}),
  })
  return undefined
}

// No balance row yet means nothing is available: the conditional update then matches nothing.
const debitIfAvailable = statementTemplate(
  (db, debit: { merchantId: string; mode: string; currency: string; posted: number; needed: number }) =>
    db
      .updateTable('balances')
      .set({ posted_minor: sql`posted_minor - ${debit.posted}` })
      .where('merchant_id', '=', debit.merchantId)
      .where('mode', '=', debit.mode)
      .where('currency', '=', debit.currency)
      .where(sql<boolean>`posted_minor - held_minor >= ${debit.needed}`)
      .returning(['posted_minor', 'held_minor']),
  { carries: { tables: ['balances'] } },
)

interface HeldEntry {
  entryType: EntryType
  amountMinor: number
  role: SideRole
  sequence: number
}

async function credit(
  scope: LedgerScope,
  operation: Operation,
  amountMinor: number,
  sequence: number,
): Promise<void> {
  const { merchantId, mode, currency } = operation
  let postedAfter: number
  const known = scope.locked?.get(balanceKey(operation))
  if (known) {
    await changeLocked(scope, operation, { postedMinor: amountMinor, heldMinor: 0 })
    postedAfter = known.postedMinor
  } else {
    const [balance] = (await creditBalance(scope.db, { merchantId, mode, currency, amountMinor })).rows
    rememberLocked(scope, operation, balance!)
    postedAfter = balance!.posted_minor
  }
  await insertEntry(scope, operation, {
    type: 'cash-in',
    amountMinor,
    status: 'succeeded',
    sequence,
    balanceAfterMinor: postedAfter,
  })
}

// One statement: the first credit in a currency opens its balance row.
const creditBalance = statementTemplate(
  (db, credit: { merchantId: string; mode: string; currency: string; amountMinor: number }) =>
    db
      .insertInto('balances')
      .values({
        merchant_id: credit.merchantId,
        mode: credit.mode,
        currency: credit.currency,
        posted_minor: credit.amountMinor,
        held_minor: 0,
      })
      .onConflict((conflict) =>
        conflict
          .columns(['merchant_id', 'mode', 'currency'])
          .doUpdateSet({ posted_minor: sql`balances.posted_minor + ${credit.amountMinor}` }),
      )
      .returning(['posted_minor', 'held_minor']),
  { carries: { tables: ['balances'] } },
)

/**
 * Posts or releases the operation's pending hold of this type; the entry's own status guards it,
 * so at most once. The balance's new figures are not counted here: the row is then read again.
 */
/**
 * The operation's pending entry of the type, settled. A carrier: a settlement's held writes (its
 * new state and status counts, written after it took its counters) ride with it.
 */
const settleEntry = statementTemplate(
  (db, settled: { operationId: number; type: EntryType; resolution: EntryStatus; atUs: number }) =>
    db
      .updateTable('ledger_entries')
      .set({ status: settled.resolution, updated_at_us: settled.atUs })
      .where('operation_id', '=', settled.operationId)
      .where('type', '=', settled.type)
      .where('status', '=', 'pending')
      .returning(['id', 'amount_minor']),
  { carries: { tables: ['ledger_entries'] } },
)

async function resolve(
  scope: LedgerScope,
  operation: Operation,
  type: EntryType,
  resolution: 'succeeded' | 'canceled',
): Promise<void> {
  scope.locked?.delete(balanceKey(operation))
  const [entry] = (
    await settleEntry(scope.db, { operationId: operation.id, type, resolution, atUs: scope.clock.nowUs() })
  ).rows
  if (!entry) return
  const amount = entry.amount_minor
  if (resolution === 'canceled') {
    await balanceRow(scope, operation)
      .set({ held_minor: sql`held_minor - ${amount}` })
      .execute()
    return
  }
  const balance = await balanceRow(scope, operation)
    .set({ posted_minor: sql`posted_minor - ${amount}`, held_minor: sql`held_minor - ${amount}` })
    .returning('posted_minor')
    .executeTakeFirstOrThrow()
  await scope.db
    .updateTable('ledger_entries')
    .set({ balance_after_minor: balance.posted_minor })
    .where('id', '=', entry.id)
    .execute()
}

interface NewEntry {
  type: EntryType
  amountMinor: number
  status: EntryStatus
  sequence: number
  balanceAfterMinor?: number
}

async function insertEntry(
  { db, clock }: RepositoryScope,
  operation: Operation,
  entry: NewEntry,
): Promise<void> {
  // Read after the sequence's counter lock is held, so sequence order and date order agree under concurrency.
  await insertEntryRow(db, entryRow(operation, entry, clock.nowUs()))
}

function entryRow(operation: Operation, entry: NewEntry, atUs: number): Insertable<LedgerEntriesTable> {
  const { type, amountMinor, status, sequence, balanceAfterMinor = null } = entry
  return {
    merchant_id: operation.merchantId,
    mode: operation.mode,
    sequence,
    reference: transactionReference(atUs, operation.token, sequence),
    operation_id: operation.id,
    operation_kind: operation.kind,
    type,
    currency: operation.currency,
    amount_minor: amountMinor,
    status,
    created_at_us: atUs,
    updated_at_us: atUs,
    balance_after_minor: balanceAfterMinor,
  }
}

const insertEntryRow = statementTemplate(
  (db, row: Insertable<LedgerEntriesTable>) => db.insertInto('ledger_entries').values(row),
  { writeOnly: 'ledger_entries' },
)

const insertEntryRows = statementTemplate(
  (db, values: { rows: Insertable<LedgerEntriesTable>[] }) =>
    db.insertInto('ledger_entries').values(values.rows),
  { writeOnly: 'ledger_entries' },
)

/** TX<yyyymmdd>.<first token group>.<8-digit sequence>, e.g. TX20261121.k3v9q.00000042 */
export function transactionReference(atUs: number, token: string, sequence: number): string {
  const day = new Date(Math.floor(atUs / 1000)).toISOString().slice(0, 10).replaceAll('-', '')
  return `TX${day}.${token.slice(0, 5)}.${String(sequence).padStart(8, '0')}`
}

async function readBalances(
  { db }: RepositoryScope,
  merchantId: string,
  mode?: Mode,
  currency?: string,
): Promise<BalanceView[]> {
  let query = db.selectFrom('balances').selectAll().where('merchant_id', '=', merchantId)
  if (mode) query = query.where('mode', '=', mode)
  if (currency) query = query.where('currency', '=', currency)
  const rows = await query.orderBy('mode').orderBy('currency').execute()
  return rows.map((row) => ({
    mode: row.mode as Mode,
    currency: row.currency,
    postedMinor: row.posted_minor,
    heldMinor: row.held_minor,
    availableMinor: row.posted_minor - row.held_minor,
  }))
}

const entryColumns = [
  'ledger_entries.reference',
  'ledger_entries.operation_kind',
  'ledger_entries.type',
  'ledger_entries.status',
  'ledger_entries.currency',
  'ledger_entries.amount_minor',
  'ledger_entries.created_at_us',
  'ledger_entries.balance_after_minor',
  'operations.token',
  'operations.merchant_reference',
] as const

function entriesOf(db: Executor, merchantId: string, mode: Mode) {
  return db
    .selectFrom('ledger_entries')
    .innerJoin('operations', 'operations.id', 'ledger_entries.operation_id')
    .where('ledger_entries.merchant_id', '=', merchantId)
    .where('ledger_entries.mode', '=', mode)
}

function filtered(query: ReturnType<typeof entriesOf>, filters: TransactionFilters) {
  let narrowed = query
  if (filters.type) narrowed = narrowed.where('ledger_entries.type', '=', filters.type)
  if (filters.operation) narrowed = narrowed.where('ledger_entries.operation_kind', '=', filters.operation)
  if (filters.status) narrowed = narrowed.where('ledger_entries.status', '=', filters.status)
  if (filters.fromUs !== undefined)
    narrowed = narrowed.where('ledger_entries.created_at_us', '>=', filters.fromUs)
  if (filters.toUs !== undefined) narrowed = narrowed.where('ledger_entries.created_at_us', '<', filters.toUs)
  return narrowed
}

/** The merchant's balance movements, newest first; unfiltered pages seek on the dense sequence. */
async function listEntries(
  { db }: RepositoryScope,
  merchantId: string,
  mode: Mode,
  filters: TransactionFilters,
  page: PageRequest,
): Promise<Page<LedgerEntry>> {
  const query = entriesOf(db, merchantId, mode)
  if (isUnfiltered(filters)) {
    const total = await counterValue(db, merchantId, mode, 'ledger')
    const seek = await seekPage(total, page, (top, limit) =>
      query
        .select(entryColumns)
        .where('ledger_entries.sequence', '<=', top)
        .orderBy('ledger_entries.sequence', 'desc')
        .limit(limit)
        .execute(),
    )
    return { items: seek.items.map(toEntry), total }
  }
  const narrowed = filtered(query, filters)
  const [counted, rows] = await Promise.all([
    narrowed.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    narrowed
      .select(entryColumns)
      .orderBy('ledger_entries.sequence', 'desc')
      .limit(page.perPage)
      .offset((page.page - 1) * page.perPage)
      .execute(),
  ])
  return { items: rows.map(toEntry), total: Number(counted.total) }
}

/** Batches below the last sequence seen; entries written after the scan began are not part of it. */
async function* scanEntries(
  { db }: RepositoryScope,
  merchantId: string,
  mode: Mode,
  filters: TransactionFilters,
  batchSize: number,
): AsyncIterable<LedgerEntry[]> {
  let below = (await counterValue(db, merchantId, mode, 'ledger')) + 1
  for (;;) {
    const rows = await filtered(entriesOf(db, merchantId, mode), filters)
      .select([...entryColumns, 'ledger_entries.sequence'])
      .where('ledger_entries.sequence', '<', below)
      .orderBy('ledger_entries.sequence', 'desc')
      .limit(batchSize)
      .execute()
    if (rows.length > 0) yield rows.map(toEntry)
    if (rows.length < batchSize) return
    below = rows[rows.length - 1]!.sequence
  }
}

function toEntry(row: {
  reference: string
  operation_kind: string
  type: string
  status: string
  currency: string
  amount_minor: number
  created_at_us: number
  balance_after_minor: number | null
  token: string
  merchant_reference: string
}): LedgerEntry {
  return {
    reference: row.reference,
    operationKind: row.operation_kind,
    type: row.type as EntryType,
    status: row.status as EntryStatus,
    currency: row.currency,
    amountMinor: row.amount_minor,
    createdAtUs: row.created_at_us,
    token: row.token,
    merchantReference: row.merchant_reference,
    balanceAfterMinor: row.balance_after_minor,
  }
}
