import { randomBytes } from 'node:crypto'
import { gunzipSync, gzipSync } from 'node:zlib'
import { type Insertable, type Selectable, sql } from 'kysely'
import type { Operation } from '../../domain/operation.ts'
import type { ReconciliationBreaksTable, ReconciliationRunsTable } from '../schema.ts'
import type { Executor, RepositoryScope } from './executor.ts'
import { toOperation } from './operations.ts'

export type RunStatus = 'due' | 'running' | 'completed' | 'failed'
export type BreakState = 'open' | 'auto_resolved' | 'resolved' | 'ignored'

export interface ReconciliationRun {
  id: number
  connectionId: string
  day: string
  status: RunStatus
  reason: string | null
  lines: number
  matched: number
  matchedAmountMinor: number
  dueAtUs: number
  attempts: number
  startedAtUs: number | null
  completedAtUs: number | null
}

export interface StoredBreak {
  id: string
  connectionId: string
  day: string
  kind: string
  reference: string
  operationId: number | null
  token: string | null
  role: string | null
  operatorReference: string | null
  amountMinor: number
  currency: string
  detail: string
  lines: string
  state: BreakState
  evidence: string | null
  reason: string | null
  pendingApproval: string | null
  foundAtUs: number
  lastSeenAtUs: number
  closedAtUs: number | null
}

/** A break as a run found it, to be written under its identity. */
export type FoundBreakRow = Pick<
  StoredBreak,
  | 'kind'
  | 'reference'
  | 'operationId'
  | 'token'
  | 'role'
  | 'operatorReference'
  | 'amountMinor'
  | 'currency'
  | 'detail'
  | 'lines'
>

export interface BreakFilter {
  connectionId?: string
  day?: string
  state?: BreakState
  kind?: string
  kinds?: readonly string[]
  operationId?: number
  /** Only breaks found before this instant (the queue's age filter). */
  foundBeforeUs?: number
  limit?: number
  /** Rows skipped first, in the list's order (a page of the queue). */
  offset?: number
}

export interface BreakHistoryEntry {
  atUs: number
  what: string
  actor: string
  detail: string | null
}

export interface StoredFile {
  connectionId: string
  day: string
  source: 'statement' | 'balance' | 'import'
  name: string
  contentType: string
  sha256: string
  bytes: Uint8Array
  mapping?: string
}

export interface ReconciliationRepository {
  /** The run of a connection and day, made due at `dueAtUs` when there is none yet. */
  ensureRun(connectionId: string, day: string, dueAtUs: number): Promise<void>
  findRun(connectionId: string, day: string): Promise<ReconciliationRun | undefined>
  /**
   * Leases a run (SKIP LOCKED on PostgreSQL): the named one when it is not leased by another
   * instance, or else up to `limit` runs due by `nowUs`. A run leased by nobody, or whose lease
   * ran out (its instance died), can be taken.
   */
  claimRun(
    connectionId: string,
    day: string,
    owner: string,
    nowUs: number,
    leaseMs: number,
  ): Promise<ReconciliationRun | undefined>
  claimDue(owner: string, nowUs: number, leaseMs: number, limit: number): Promise<ReconciliationRun[]>
  /** Keeps the owner's lease alive a while longer; false when it is no longer the owner's. */
  extendLease(id: number, owner: string, leaseUntilUs: number): Promise<boolean>
  /** Ends the owner's lease with the run's outcome. */
  finishRun(
    id: number,
    owner: string,
    outcome: {
      status: 'completed' | 'failed'
      reason: string | null
      lines: number
      matched: number
      matchedAmountMinor: number
      nowUs: number
      dueAgainAtUs?: number
    },
  ): Promise<void>
  /** The last completed run of each connection. */
  lastCompleted(): Promise<ReconciliationRun[]>
  listRuns(filter: { connectionId?: string; limit?: number }): Promise<ReconciliationRun[]>
  /**
   * Writes the breaks found under their identity, all seen at `nowUs`: a new one opens, one found
   * again keeps its id, state and history, only its figures and when it was last seen change.
   */
  recordBreaks(
    connectionId: string,
    day: string,
    found: readonly FoundBreakRow[],
    nowUs: number,
  ): Promise<void>
  /**
   * The open breaks of the day the run at `nowUs` did not find again: closed as auto_resolved with
   * `evidence`, each with its history row; how many. Run it in a transaction, so that each break's
   * change and its history row are one.
   */
  closeNotFound(connectionId: string, day: string, nowUs: number, evidence: string): Promise<number>
  findBreak(id: string): Promise<StoredBreak | undefined>
  listBreaks(filter: BreakFilter): Promise<StoredBreak[]>
  /** How many breaks the filter selects (its limit and offset aside). */
  countBreaks(filter: BreakFilter): Promise<number>
  /** Breaks counted by kind for each of these connections' days, whatever their state. */
  breakCountsOfDays(
    days: readonly { connectionId: string; day: string }[],
  ): Promise<{ connectionId: string; day: string; kind: string; count: number }[]>
  /** Open breaks counted by connection and kind. */
  openBreakCounts(): Promise<{ connectionId: string; kind: string; count: number }[]>
  /** Sets a break's state (with its evidence, reason or pending approval) and notes it in its history. */
  /**
   * Changes a break that is still open (and, to ask for an approval, waits for none), and keeps the
   * change in its history; false, with nothing written, when it was not so (a member's decision
   * racing another's, or a repair).
   * Run it in a transaction so that the change and its history row are one.
   */
  updateBreak(
    id: string,
    change: Partial<Pick<StoredBreak, 'state' | 'evidence' | 'reason' | 'pendingApproval' | 'closedAtUs'>>,
    history: BreakHistoryEntry,
  ): Promise<boolean>
  history(breakId: string): Promise<BreakHistoryEntry[]>
  /** Keeps a document once per (connection, day, source, hash). */
  keepFile(file: StoredFile, nowUs: number): Promise<void>
  files(connectionId: string, day: string, source?: StoredFile['source']): Promise<StoredFile[]>
  /** Live operations of a channel (either side) begun in [fromUs, toUs), any merchant. */
  liveOperationsOf(channel: string, fromUs: number, toUs: number): Promise<Operation[]>
  /** The operations named by these operator references or tokens, any merchant and mode. */
  operationsNamed(operatorReferences: readonly string[], tokens: readonly string[]): Promise<Operation[]>
  /** The repairs of an operation: the connection and day of each break auto-resolved by a write to it. */
  repairsOf(operationId: number): Promise<{ connectionId: string; day: string; closedAtUs: number }[]>
}

const toRun = (row: Selectable<ReconciliationRunsTable>): ReconciliationRun => ({
  id: Number(row.id),
  connectionId: row.connection_id,
  day: row.day,
  status: row.status as RunStatus,
  reason: row.reason,
  lines: row.lines,
  matched: row.matched,
  matchedAmountMinor: Number(row.matched_amount_minor),
  dueAtUs: Number(row.due_at_us),
  attempts: row.attempts,
  startedAtUs: row.started_at_us === null ? null : Number(row.started_at_us),
  completedAtUs: row.completed_at_us === null ? null : Number(row.completed_at_us),
})

const toBreak = (row: Selectable<ReconciliationBreaksTable>): StoredBreak => ({
  id: row.id,
  connectionId: row.connection_id,
  day: row.day,
  kind: row.kind,
  reference: row.reference,
  operationId: row.operation_id === null ? null : Number(row.operation_id),
  token: row.token,
  role: row.role,
  operatorReference: row.operator_reference,
  amountMinor: Number(row.amount_minor),
  currency: row.currency,
  detail: row.detail,
  lines: row.lines,
  state: row.state as BreakState,
  evidence: row.evidence,
  reason: row.reason,
  pendingApproval: row.pending_approval,
  foundAtUs: Number(row.found_at_us),
  lastSeenAtUs: Number(row.last_seen_at_us),
  closedAtUs: row.closed_at_us === null ? null : Number(row.closed_at_us),
})

/** Operations read by one statement of `liveOperationsOf`. */
const operationsPage = 2000

/** A run that failed this often waits for a person (`sika reconcile` by hand). */
const maxAttempts = 10

const newBreakId = () => `brk_${randomBytes(12).toString('base64url')}`

/** Rows a statement writes at most: 13 values each stay well under SQLite's bound on variables. */
const chunkSize = 500

export function reconciliationRepository(scope: RepositoryScope): ReconciliationRepository {
  return {
    ...runsPart(scope),
    ...runOutcomesPart(scope.db),
    ...breaksPart(scope.db),
    ...breakReadsPart(scope.db),
    ...breakCountsPart(scope.db),
    ...filesPart(scope.db),
    ...operationsPart(scope.db),
  }
}

/** Leases the runs `where` picks that nobody holds (or whose holder's lease ran out), SKIP LOCKED on PostgreSQL. */
async function claimRuns(
  { db, dialect }: Pick<RepositoryScope, 'db' | 'dialect'>,
  where: ReturnType<typeof sql>,
  owner: string,
  nowUs: number,
  leaseMs: number,
  limit: number,
) {
  const skipLocked = dialect.supportsRowLocks ? sql`for update skip locked` : sql``
  const { rows } = await sql<Selectable<ReconciliationRunsTable>>`
    update reconciliation_runs
    set lease_owner = ${owner}, lease_until_us = ${nowUs + leaseMs * 1000}, attempts = attempts + 1,
      status = 'running', started_at_us = ${nowUs}
    where id in (
      select id from reconciliation_runs
      where ${where} and (lease_until_us is null or lease_until_us < ${nowUs})
      order by due_at_us
      ${dialect.limit(limit)}
      ${skipLocked}
    )
    returning *`.execute(db)
  return rows.map(toRun)
}

type RunsPart = Pick<
  ReconciliationRepository,
  'ensureRun' | 'findRun' | 'claimRun' | 'claimDue' | 'extendLease'
>

function runsPart({ db, dialect }: RepositoryScope): RunsPart {
  return {
    async ensureRun(connectionId, day, dueAtUs) {
      await db
        .insertInto('reconciliation_runs')
        .values({
          connection_id: connectionId,
          day,
          status: 'due',
          due_at_us: dueAtUs,
          lines: 0,
          matched: 0,
          matched_amount_minor: 0,
          attempts: 0,
        })
        .onConflict((conflict) => conflict.columns(['connection_id', 'day']).doNothing())
        .execute()
    },
    async findRun(connectionId, day) {
      const row = await db
        .selectFrom('reconciliation_runs')
        .selectAll()
        .where('connection_id', '=', connectionId)
        .where('day', '=', day)
        .executeTakeFirst()
      return row && toRun(row)
    },
    async claimRun(connectionId, day, owner, nowUs, leaseMs) {
      const [run] = await claimRuns(
        { db, dialect },
        sql`connection_id = ${connectionId} and day = ${day}`,
        owner,
        nowUs,
        leaseMs,
        1,
      )
      return run
    },
    claimDue: (owner, nowUs, leaseMs, limit) =>
      claimRuns(
        { db, dialect },
        sql`status in ('due', 'running', 'failed') and due_at_us <= ${nowUs} and attempts < ${maxAttempts}`,
        owner,
        nowUs,
        leaseMs,
        limit,
      ),
    async extendLease(id, owner, leaseUntilUs) {
      const result = await db
        .updateTable('reconciliation_runs')
        .set({ lease_until_us: leaseUntilUs })
        .where('id', '=', id)
        .where('lease_owner', '=', owner)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    },
  }
}

type BreaksPart = Pick<ReconciliationRepository, 'recordBreaks' | 'closeNotFound' | 'updateBreak'>

function runOutcomesPart(
  db: Executor,
): Pick<ReconciliationRepository, 'finishRun' | 'lastCompleted' | 'listRuns'> {
  return {
    async finishRun(id, owner, outcome) {
      await db
        .updateTable('reconciliation_runs')
        .set({
          status: outcome.status,
          reason: outcome.reason,
          lines: outcome.lines,
          matched: outcome.matched,
          matched_amount_minor: outcome.matchedAmountMinor,
          lease_owner: null,
          lease_until_us: null,
          ...(outcome.status === 'completed' ? { completed_at_us: outcome.nowUs } : {}),
          ...(outcome.dueAgainAtUs === undefined ? {} : { due_at_us: outcome.dueAgainAtUs }),
        })
        .where('id', '=', id)
        .where('lease_owner', '=', owner)
        .execute()
    },
    async lastCompleted() {
      const rows = await db
        .selectFrom('reconciliation_runs as run')
        .selectAll('run')
        .where('run.completed_at_us', 'is not', null)
        .where(({ eb, selectFrom }) =>
          eb(
            'run.completed_at_us',
            '=',
            selectFrom('reconciliation_runs as other')
              .select(({ fn }) => fn.max('other.completed_at_us').as('latest'))
              .whereRef('other.connection_id', '=', 'run.connection_id'),
          ),
        )
        .execute()
      return rows.map(toRun)
    },
    async listRuns(filter) {
      let query = db
        .selectFrom('reconciliation_runs')
        .selectAll()
        .orderBy('day', 'desc')
        .orderBy('connection_id')
      if (filter.connectionId) query = query.where('connection_id', '=', filter.connectionId)
      return (await query.limit(filter.limit ?? 100).execute()).map(toRun)
    },
  }
}

async function closeNotFound(
  db: Executor,
  connectionId: string,
  day: string,
  nowUs: number,
  evidence: string,
): Promise<number> {
  const open = await db
    .selectFrom('reconciliation_breaks')
    .select('id')
    .where('connection_id', '=', connectionId)
    .where('day', '=', day)
    .where('state', '=', 'open')
    .where('last_seen_at_us', '<', nowUs)
    .execute()
  const gone = open.map((row) => row.id)
  let closedCount = 0
  for (let from = 0; from < gone.length; from += chunkSize) {
    // Only those still open: a member who decided one since the select keeps their decision.
    const closed = await db
      .updateTable('reconciliation_breaks')
      .set({ state: 'auto_resolved', evidence, closed_at_us: nowUs })
      .where('id', 'in', gone.slice(from, from + chunkSize))
      .where('state', '=', 'open')
      .returning('id')
      .execute()
    closedCount += closed.length
    if (closed.length === 0) continue
    await db
      .insertInto('reconciliation_break_history')
      .values(
        closed.map(({ id }) => ({
          break_id: id,
          at_us: nowUs,
          what: 'auto_resolved',
          actor: 'reconciliation',
          detail: evidence,
        })),
      )
      .execute()
  }
  return closedCount
}

function breaksPart(db: Executor): BreaksPart {
  return {
    recordBreaks: (connectionId, day, found, nowUs) => recordBreaks(db, connectionId, day, found, nowUs),
    closeNotFound: (connectionId, day, nowUs, evidence) =>
      closeNotFound(db, connectionId, day, nowUs, evidence),
    async updateBreak(id, change, history) {
      const updated = await db
        .updateTable('reconciliation_breaks')
        .set({
          ...(change.state === undefined ? {} : { state: change.state }),
          ...(change.evidence === undefined ? {} : { evidence: change.evidence }),
          ...(change.reason === undefined ? {} : { reason: change.reason }),
          ...(change.pendingApproval === undefined ? {} : { pending_approval: change.pendingApproval }),
          ...(change.closedAtUs === undefined ? {} : { closed_at_us: change.closedAtUs }),
        })
        .where('id', '=', id)
        .where('state', '=', 'open')
        // A decision waiting for approval is asked of a break that waits for none yet.
        .$if(typeof change.pendingApproval === 'string', (query) =>
          query.where('pending_approval', 'is', null),
        )
        .executeTakeFirst()
      if (updated.numUpdatedRows === 0n) return false
      await db
        .insertInto('reconciliation_break_history')
        .values({
          break_id: id,
          at_us: history.atUs,
          what: history.what,
          actor: history.actor,
          detail: history.detail,
        })
        .execute()
      return true
    },
  }
}

function breakReadsPart(
  db: Executor,
): Pick<ReconciliationRepository, 'findBreak' | 'listBreaks' | 'openBreakCounts' | 'history'> {
  return {
    async findBreak(id) {
      const row = await db
        .selectFrom('reconciliation_breaks')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst()
      return row && toBreak(row)
    },
    async listBreaks(filter) {
      const rows = await filteredBreaks(db, filter)
        .selectAll()
        .orderBy('day', 'desc')
        .orderBy('kind')
        .orderBy('reference')
        .orderBy('id')
        .limit(filter.limit ?? 1000)
        .offset(filter.offset ?? 0)
        .execute()
      return rows.map(toBreak)
    },
    async openBreakCounts() {
      const rows = await db
        .selectFrom('reconciliation_breaks')
        .select(({ fn }) => ['connection_id', 'kind', fn.countAll<number>().as('count')])
        .where('state', '=', 'open')
        .groupBy(['connection_id', 'kind'])
        .execute()
      return rows.map((row) => ({
        connectionId: row.connection_id,
        kind: row.kind,
        count: Number(row.count),
      }))
    },
    async history(breakId) {
      const rows = await db
        .selectFrom('reconciliation_break_history')
        .selectAll()
        .where('break_id', '=', breakId)
        .orderBy('id')
        .execute()
      return rows.map((row) => ({
        atUs: Number(row.at_us),
        what: row.what,
        actor: row.actor,
        detail: row.detail,
      }))
    },
  }
}

function breakCountsPart(db: Executor): Pick<ReconciliationRepository, 'countBreaks' | 'breakCountsOfDays'> {
  return {
    async countBreaks(filter) {
      const row = await filteredBreaks(db, filter)
        .select(({ fn }) => fn.countAll<number>().as('count'))
        .executeTakeFirst()
      return Number(row?.count ?? 0)
    },
    async breakCountsOfDays(days) {
      if (days.length === 0) return []
      const wanted = new Set(days.map(({ connectionId, day }) => `${connectionId}\n${day}`))
      const rows = await db
        .selectFrom('reconciliation_breaks')
        .select(({ fn }) => ['connection_id', 'day', 'kind', fn.countAll<number>().as('count')])
        .where('connection_id', 'in', [...new Set(days.map((each) => each.connectionId))])
        .where('day', 'in', [...new Set(days.map((each) => each.day))])
        .groupBy(['connection_id', 'day', 'kind'])
        .execute()
      return rows
        .filter((row) => wanted.has(`${row.connection_id}\n${row.day}`))
        .map((row) => ({
          connectionId: row.connection_id,
          day: row.day,
          kind: row.kind,
          count: Number(row.count),
        }))
    },
  }
}

/** The breaks a filter selects, before any ordering or page. */
function filteredBreaks(db: Executor, filter: BreakFilter) {
  let query = db.selectFrom('reconciliation_breaks')
  if (filter.connectionId) query = query.where('connection_id', '=', filter.connectionId)
  if (filter.day) query = query.where('day', '=', filter.day)
  if (filter.state) query = query.where('state', '=', filter.state)
  if (filter.kind) query = query.where('kind', '=', filter.kind)
  if (filter.kinds) query = query.where('kind', 'in', filter.kinds)
  if (filter.operationId !== undefined) query = query.where('operation_id', '=', filter.operationId)
  if (filter.foundBeforeUs !== undefined) query = query.where('found_at_us', '<', filter.foundBeforeUs)
  return query
}

function filesPart(db: Executor): Pick<ReconciliationRepository, 'keepFile' | 'files'> {
  return {
    async keepFile(file, nowUs) {
      await db
        .insertInto('reconciliation_files')
        .values({
          connection_id: file.connectionId,
          day: file.day,
          source: file.source,
          name: file.name,
          content_type: file.contentType,
          sha256: file.sha256,
          content: gzipSync(file.bytes).toString('base64'),
          mapping: file.mapping ?? null,
          created_at_us: nowUs,
        })
        .onConflict((conflict) => conflict.columns(['connection_id', 'day', 'source', 'sha256']).doNothing())
        .execute()
    },
    async files(connectionId, day, source) {
      let query = db
        .selectFrom('reconciliation_files')
        .selectAll()
        .where('connection_id', '=', connectionId)
        .where('day', '=', day)
      if (source) query = query.where('source', '=', source)
      const rows = await query.orderBy('id').execute()
      return rows.map((row) => ({
        connectionId: row.connection_id,
        day: row.day,
        source: row.source as StoredFile['source'],
        name: row.name,
        contentType: row.content_type,
        sha256: row.sha256,
        bytes: gunzipSync(Buffer.from(row.content, 'base64')),
        ...(row.mapping === null ? {} : { mapping: row.mapping }),
      }))
    },
  }
}

function operationsPart(
  db: Executor,
): Pick<ReconciliationRepository, 'liveOperationsOf' | 'operationsNamed' | 'repairsOf'> {
  return {
    async liveOperationsOf(channel, fromUs, toUs) {
      const found: Operation[] = []
      // Page by page, each statement short: a busy day's operations are more than one statement may read in time.
      for (const column of ['channel', 'to_channel'] as const) {
        let after = { atUs: fromUs - 1, id: Number.MAX_SAFE_INTEGER }
        for (;;) {
          const rows = await db
            .selectFrom('operations')
            .selectAll()
            // A literal, so that both stores see the partial index's own condition.
            .where('mode', '=', sql.lit('live'))
            .where(column, '=', channel)
            .where('initiated_at_us', '<', toUs)
            // Sargable bound first (the index's range), then the exact place after the last row read.
            .where('initiated_at_us', '>=', after.atUs)
            .where(
              sql<boolean>`(initiated_at_us > ${after.atUs} or (initiated_at_us = ${after.atUs} and id > ${after.id}))`,
            )
            .orderBy('initiated_at_us')
            .orderBy('id')
            .limit(operationsPage)
            .execute()
          for (const row of rows)
            if (column === 'channel' || row.channel !== channel) found.push(toOperation(row))
          const last = rows.at(-1)
          if (!last || rows.length < operationsPage) break
          after = { atUs: Number(last.initiated_at_us), id: Number(last.id) }
        }
      }
      return found
    },
    operationsNamed: (operatorReferences, tokens) => operationsNamed(db, operatorReferences, tokens),
    async repairsOf(operationId) {
      const rows = await db
        .selectFrom('reconciliation_breaks')
        .select(['connection_id', 'day', 'closed_at_us'])
        .where('operation_id', '=', operationId)
        .where('state', '=', 'auto_resolved')
        .where('evidence', 'like', '%"repaired":true%')
        .execute()
      return rows.map((row) => ({
        connectionId: row.connection_id,
        day: row.day,
        closedAtUs: Number(row.closed_at_us),
      }))
    },
  }
}

async function recordBreaks(
  db: Executor,
  connectionId: string,
  day: string,
  found: readonly FoundBreakRow[],
  nowUs: number,
): Promise<void> {
  for (let from = 0; from < found.length; from += chunkSize) {
    const rows: Insertable<ReconciliationBreaksTable>[] = found.slice(from, from + chunkSize).map((each) => ({
      id: newBreakId(),
      connection_id: connectionId,
      day,
      kind: each.kind,
      reference: each.reference,
      operation_id: each.operationId,
      token: each.token,
      role: each.role,
      operator_reference: each.operatorReference,
      amount_minor: each.amountMinor,
      currency: each.currency,
      detail: each.detail,
      lines: each.lines,
      state: 'open',
      evidence: null,
      reason: null,
      pending_approval: null,
      found_at_us: nowUs,
      last_seen_at_us: nowUs,
      closed_at_us: null,
    }))
    await db
      .insertInto('reconciliation_breaks')
      .values(rows)
      .onConflict((conflict) =>
        conflict.columns(['connection_id', 'day', 'kind', 'reference']).doUpdateSet((update) => ({
          amount_minor: update.ref('excluded.amount_minor'),
          detail: update.ref('excluded.detail'),
          lines: update.ref('excluded.lines'),
          operation_id: update.ref('excluded.operation_id'),
          token: update.ref('excluded.token'),
          role: update.ref('excluded.role'),
          operator_reference: update.ref('excluded.operator_reference'),
          last_seen_at_us: update.ref('excluded.last_seen_at_us'),
        })),
      )
      .execute()
  }
}

async function operationsNamed(
  db: Executor,
  operatorReferences: readonly string[],
  tokens: readonly string[],
): Promise<Operation[]> {
  const found = new Map<number, Operation>()
  for (let from = 0; from < operatorReferences.length; from += chunkSize) {
    const rows = await db
      .selectFrom('operator_references')
      .innerJoin('operations', 'operations.id', 'operator_references.operation_id')
      .selectAll('operations')
      .where('operator_references.reference', 'in', operatorReferences.slice(from, from + chunkSize))
      .execute()
    for (const row of rows) found.set(Number(row.id), toOperation(row))
  }
  for (let from = 0; from < tokens.length; from += chunkSize) {
    const rows = await db
      .selectFrom('operations')
      .selectAll()
      .where('token', 'in', tokens.slice(from, from + chunkSize))
      .execute()
    for (const row of rows) found.set(Number(row.id), toOperation(row))
  }
  return [...found.values()]
}
