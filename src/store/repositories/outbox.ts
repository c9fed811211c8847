import { type Insertable, type RawBuilder, type Selectable, sql } from 'kysely'
import { newEventId } from '../../domain/identifiers.ts'
import type { Mode } from '../../domain/kinds.ts'
import type { Page, PageRequest } from '../../domain/pages.ts'
import type { StoreDialect } from '../dialect.ts'
import type { DeliveryStatus, EventAttemptsTable, EventsTable } from '../schema.ts'
import type { Executor, RepositoryScope } from './executor.ts'
import { counterValue, isUnfiltered, seekPage } from './pages.ts'
import { powerOfTwoChunks } from './row-chunks.ts'
import { statementTemplate } from './statement-template.ts'

/**
 * The outbox: one row per status an operation takes, written in the transaction that took it,
 * so a crash can lose neither; and the delivery attempts of each.
 */

export type { DeliveryStatus }

export interface NewEvent {
  type: string
  callbackUrl: string | null
  /** The exact body POSTed to the callback URL, given the id and time the store assigns. */
  render(id: string, createdAtUs: number): string
}

/**
 * Whose events they are, as the outbox records them: an operation's (`id`), or a payout batch's
 * own (`payoutBatchId`), kept beside the batch's first item's operation (`id`), through which the
 * outbox finds them, and ordered apart from that operation's. One subject's events go out in the
 * order they were written; another subject's are never held back by them.
 */
export interface EventSubject {
  id: number
  merchantId: string
  mode: Mode
  payoutBatchId?: number
}

/** A subject as a claim names it: the operation its events are kept beside, and the batch whose they are, if any. */
export interface SubjectKey {
  operationId: number
  payoutBatchId: number | null
}

/** Events of one subject, at the positions from `firstPosition` on. */
export interface EventAppend {
  subject: EventSubject
  events: readonly NewEvent[]
  firstPosition: number
}

export interface EventView {
  id: string
  merchantId: string
  mode: Mode
  position: number
  operationId: number
  /** Set on a payout batch's own event: its subject is the batch. */
  payoutBatchId: number | null
  /** The subject's token: the operation's, or the batch's. */
  token: string
  /** The operation's kind, or `payout_batch`. */
  kind: string
  type: string
  payload: string
  callbackUrl: string | null
  createdAtUs: number
  deliveryStatus: DeliveryStatus
  attempts: number
  nextAttemptAtUs: number | null
  deliveredAtUs: number | null
}

export interface AttemptView {
  number: number
  startedAtUs: number
  durationMs: number
  statusCode: number | null
  error: string | null
  outcome: string
}

/** An event whose last delivery attempt failed, with that attempt. */
export interface FailedEvent {
  event: EventView
  lastAttempt: AttemptView | undefined
}

/** An event a dispatcher has claimed, to send now. */
export type ClaimedEvent = Omit<EventView, 'token' | 'kind'>

export interface AttemptRecord extends AttemptView {
  /** What the event becomes: delivered, pending again (a retry), stopped or given up. */
  deliveryStatus: DeliveryStatus
  nextAttemptAtUs: number | null
  deliveredAtUs: number | null
}

/** A delivery attempt that ended: the event as its owner claimed it, and what became of it. */
export interface EndedAttempt {
  event: ClaimedEvent
  owner: string
  attempt: AttemptRecord
  /**
   * False when its owner has no room for its subject's next event now: that event is then left
   * due for a later claim, not claimed with the record only to be given back.
   */
  claimNext?: boolean
}

/** The events a park moves: one merchant's, of one mode, to one endpoint (a callback URL's origin). */
export interface ParkTarget {
  readonly mode: Mode
  readonly merchantId: string
  readonly endpoint: string
}

/** When an endpoint's parked events are due again: from `fromUs`, one every `stepUs` (0: all at once). */
export interface ParkTurns {
  fromUs: number
  stepUs: number
  /** None is parked past its creation by this much or more (`longestHoldMs`). */
  holdUs: number
}

/** A merchant with events pending, and whether one is due. */
export interface PendingMerchant {
  readonly merchantId: string
  readonly due: boolean
}

/** How many of one merchant's due events a claim takes at most. */
export interface MerchantQuota {
  readonly merchantId: string
  readonly count: number
}

/** A claimed event to give back unsent, and when it is due again. */
export interface Deferral {
  event: ClaimedEvent
  untilUs: number
}

export interface EventFilters {
  type?: string
  token?: string
  deliveryStatus?: DeliveryStatus
}

export interface OutboxRepository {
  /** Writes the events at the positions from `firstPosition` on, reserved beforehand (`SequencesRepository`). */
  append(subject: EventSubject, events: readonly NewEvent[], firstPosition: number): Promise<void>
  /** As `append` for each of many subjects (a payout batch's items), in a few multi-row inserts. */
  appendAll(appends: readonly EventAppend[]): Promise<void>
  /**
   * Claims due events nobody holds, in one statement (SKIP LOCKED on PostgreSQL), so instances
   * sharing a database never take the same one; a claim whose holder died runs out and is retaken.
   * An event is not claimed while an earlier one of its subject is still pending: one operation's
   * events go out in the order it took its statuses (a batch's in the order it wrote them), and at
   * most one of them is claimed at a time. `subject` claims only that subject's (its next event,
   * once one is done).
   */
  claimDue(
    owner: string,
    nowUs: number,
    leaseMs: number,
    limit: number,
    subject?: SubjectKey,
  ): Promise<ClaimedEvent[]>
  /**
   * A look at the merchants with events of `mode` pending, `count` at most, in turn: from the
   * first after `afterMerchantId`, then from the first again (a round across claims); each with
   * whether one of its events is due at `nowUs`. One index probe a merchant, and one more to see
   * whether its first pending event is due. Fewer than `count` when the round is complete.
   */
  pendingMerchants(
    mode: Mode,
    nowUs: number,
    afterMerchantId: string,
    count: number,
  ): Promise<PendingMerchant[]>
  /**
   * As `claimDue`, for each quota up to its count of its merchant's due events of `mode`, in due
   * order, in one statement: a merchant's backlog is read no further than its count, however
   * long it is, and fills no other merchant's part of the claim.
   */
  claimDueOf(
    owner: string,
    nowUs: number,
    leaseMs: number,
    mode: Mode,
    quotas: readonly MerchantQuota[],
  ): Promise<ClaimedEvent[]>
  /**
   * Records each attempt, and its event's next state if the claim is still its owner's; then
   * claims for that owner the next event of each operation whose event is now done, if it is due
   * (returned, at most one per operation). A fixed handful of statements whatever the number of
   * attempts: deliveries that end together are recorded together, in one transaction.
   */
  recordAttempts(ended: readonly EndedAttempt[], nowUs: number, leaseMs: number): Promise<ClaimedEvent[]>
  /**
   * Gives claimed events back unsent, each due again at its `untilUs`, where the claim is still
   * the owner's: no attempt is recorded and attempt counts stay (an endpoint's circuit is open,
   * or it has as many deliveries in flight as it may). Their operations' later events wait as
   * long. Two statements whatever their number: run it in a transaction.
   */
  defer(deferrals: readonly Deferral[], owner: string): Promise<void>
  /**
   * Gives the target's due events that nobody holds later turns, without claiming them (one
   * statement a chunk of them): the first (in due order) at `turn.fromUs`, each next
   * `turn.stepUs` after the one before, at most `limit` of them. Only events never attempted, and
   * none that its turn would hold `turn.holdUs` or more past its creation. An endpoint that takes
   * nothing (it has not answered for a while, or its circuit is open) so costs a few statements a
   * chunk of its backlog instead of a claim and a give-back for each event. Only the target
   * merchant's events of its mode move, and of those only the ones whose callback URL has the
   * target's origin (events whose URL starts otherwise are left alone). Says how many it gave a
   * later turn: `limit` when more may be due.
   */
  park(target: ParkTarget, nowUs: number, turn: ParkTurns, limit: number): Promise<number>
  list(merchantId: string, mode: Mode, filters: EventFilters, page: PageRequest): Promise<Page<EventView>>
  find(merchantId: string, mode: Mode, id: string): Promise<EventView | undefined>
  /**
   * The merchant's latest events of the mode whose last delivery attempt failed (retrying,
   * stopped or given up), newest first, at most `limit`, with that attempt.
   */
  recentFailures(merchantId: string, mode: Mode, limit: number): Promise<FailedEvent[]>
  attempts(eventId: string): Promise<AttemptView[]>
  /** Due again now, whatever its delivery status; its attempt count goes on from where it was. */
  requeue(id: string, nowUs: number): Promise<void>
}

export function outboxRepository(scope: RepositoryScope): OutboxRepository {
  const { db } = scope
  return {
    append: (subject, events, firstPosition) => appendEvents(scope, [{ subject, events, firstPosition }]),
    appendAll: (appends) => appendEvents(scope, appends),
    claimDue: (owner, nowUs, leaseMs, limit, subject) =>
      claimDueEvents(scope, owner, nowUs, leaseMs, limit, subject === undefined ? undefined : [subject]),
    pendingMerchants: (mode, nowUs, afterMerchantId, count) =>
      pendingMerchants(scope, mode, nowUs, afterMerchantId, count),
    claimDueOf: (owner, nowUs, leaseMs, mode, quotas) =>
      claimDueOf(scope, owner, nowUs, leaseMs, mode, quotas),
    recordAttempts: (ended, nowUs, leaseMs) => recordAttempts(scope, ended, nowUs, leaseMs),
    defer: (deferrals, owner) => deferEvents(db, deferrals, owner),
    park: (target, nowUs, turn, limit) => parkEndpoint(scope, target, nowUs, turn, limit),
    list: (merchantId, mode, filters, page) => listEvents(scope, merchantId, mode, filters, page),
    async find(merchantId, mode, id) {
      const row = await eventsOf(db, merchantId, mode).where('events.id', '=', id).executeTakeFirst()
      return row && toView(row)
    },
    async recentFailures(merchantId, mode, limit) {
      // Newest first through the per-merchant position; the few failed ones are kept as they pass.
      const rows = await eventsOf(db, merchantId, mode)
        .where('events.attempts', '>', 0)
        .where('events.delivery_status', 'in', ['pending', 'stopped', 'given_up'])
        .orderBy('events.position', 'desc')
        .limit(limit)
        .execute()
      return Promise.all(
        rows.map(async (row) => {
          const last = await db
            .selectFrom('event_attempts')
            .selectAll()
            .where('event_id', '=', row.id)
            .orderBy('number', 'desc')
            .limit(1)
            .executeTakeFirst()
          return { event: toView(row), lastAttempt: last && toAttempt(last) }
        }),
      )
    },
    async attempts(eventId) {
      const rows = await db
        .selectFrom('event_attempts')
        .selectAll()
        .where('event_id', '=', eventId)
        .orderBy('number')
        .execute()
      return rows.map(toAttempt)
    },
    async requeue(id, nowUs) {
      await db
        .updateTable('events')
        .set({
          delivery_status: 'pending',
          next_attempt_at_us: nowUs,
          lease_owner: null,
          lease_until_us: null,
        })
        .where('id', '=', id)
        .execute()
    },
  }
}

/** The merchant's events of a mode, each with its subject's token and kind (an operation's, or a batch's). */
function eventsOf(db: Executor, merchantId: string, mode: Mode) {
  return db
    .selectFrom('events')
    .innerJoin('operations', 'operations.id', 'events.operation_id')
    .leftJoin('payout_batches', 'payout_batches.id', 'events.payout_batch_id')
    .selectAll('events')
    .select((eb) => [
      eb.fn.coalesce('payout_batches.token', 'operations.token').as('token'),
      eb
        .case()
        .when('events.payout_batch_id', 'is not', null)
        .then(sql.lit(payoutBatchKind))
        .else(eb.ref('operations.kind'))
        .end()
        .as('kind'),
    ])
    .where('events.merchant_id', '=', merchantId)
    .where('events.mode', '=', mode)
}

/** The kind a payout batch's own event names as its subject's (`EventView.kind`). */
const payoutBatchKind = 'payout_batch'

/** Nobody holds the event: it was never leased, or its lease ran out (its holder died). */
function unheld(table: string, nowUs: number) {
  const leaseUntil = sql.ref(`${table}.lease_until_us`)
  return sql`(${leaseUntil} is null or ${leaseUntil} < ${nowUs})`
}

async function claimDueEvents(
  { db, dialect }: RepositoryScope,
  owner: string,
  nowUs: number,
  leaseMs: number,
  limit: number,
  subjects: readonly SubjectKey[] | undefined,
): Promise<ClaimedEvent[]> {
  const skipLocked = dialect.supportsRowLocks ? sql`for update of due skip locked` : sql``
  // Subjects' next events are found through their operations (events_by_operation), in no
  // order: each subject has one claimable event at most, so the limit never binds. Ordered by
  // when due, PostgreSQL's generic plan would walk the due index instead, over every due event.
  const ofSubjects =
    subjects === undefined
      ? sql``
      : sql`and due.operation_id in (${sql.join(subjects.map((subject) => subject.operationId))})
        and (${sql.join(
          subjects.map(
            (subject) =>
              sql`(due.operation_id = ${subject.operationId} and ${sameBatch('due', subject.payoutBatchId ?? 0)})`,
          ),
          sql` or `,
        )})`
  const inDueOrder = subjects === undefined ? sql`order by due.next_attempt_at_us` : sql``
  const { rows } = await sql<Selectable<EventsTable>>`
    update events set lease_owner = ${owner}, lease_until_us = ${nowUs + leaseMs * 1000}
    where id in (
      select due.id from events due
      where ${claimable(nowUs)}
        ${ofSubjects}
      ${inDueOrder}
      ${dialect.limit(limit)}
      ${skipLocked}
    )
    returning *`.execute(db)
  return rows.map(toClaimed)
}

/**
 * The event of `table` belongs to this batch (0: to no batch, its operation's own). Batch ids
 * start at 1; `coalesce` says "the same subject" alike on both stores.
 */
function sameBatch(table: string, payoutBatchId: number | RawBuilder<unknown>) {
  return sql`coalesce(${sql.ref(`${table}.payout_batch_id`)}, 0) = ${payoutBatchId}`
}

/**
 * An event `due` that may be claimed now: pending, due, held by nobody, and not behind an earlier
 * event of its subject. Delivered, stopped, given up and no_callback are done: only a pending
 * earlier event holds a later one back (events_by_operation finds an operation's few events, and
 * those of a batch kept beside it, told apart by their batch).
 * "Not done" is written as the four done statuses, not as = 'pending': that would let
 * PostgreSQL's planner, on statistics older than a burst of events, AND the due index (every
 * pending event) into each probe. The earliest pending event of an operation is always claimable
 * when due, so nothing waits for ever, a redelivered old event included: it only goes before its
 * operation's later events still pending. 'pending' is written out, not a parameter, so that the
 * partial indexes on it apply.
 */
function claimable(nowUs: number) {
  return sql`due.delivery_status = 'pending' and due.next_attempt_at_us <= ${nowUs}
    and ${unheld('due', nowUs)}
    and not exists (
      select 1 from events earlier
      where earlier.operation_id = due.operation_id and earlier.position < due.position
        and ${sameBatch('earlier', sql`coalesce(due.payout_batch_id, 0)`)}
        and earlier.delivery_status not in ('delivered', 'stopped', 'given_up', 'no_callback')
    )`
}

/**
 * A loose scan of events_due_by_merchant: each step finds the next merchant with a pending
 * event of the mode in one probe, first after `afterMerchantId` (`later`), then from the first up
 * to it (`earlier`); each merchant found is due if its first pending event is.
 */
async function pendingMerchants(
  { db, dialect }: RepositoryScope,
  mode: Mode,
  nowUs: number,
  afterMerchantId: string,
  count: number,
): Promise<PendingMerchant[]> {
  const nextAfter = (merchant: RawBuilder<unknown> | string, upTo?: string) =>
    sql`(select pending.merchant_id from events pending
      where pending.delivery_status = 'pending' and pending.mode = ${mode}
        and pending.merchant_id > ${merchant}
        ${upTo === undefined ? sql`` : sql`and pending.merchant_id <= ${upTo}`}
      order by pending.merchant_id ${dialect.limit(1)})`
  const { rows } = await sql<{ merchant_id: string; due: number }>`
    with recursive later(merchant_id, step) as (
      select ${nextAfter(afterMerchantId)}, 1
      union all
      select ${nextAfter(sql.ref('later.merchant_id'))}, later.step + 1 from later
      where later.merchant_id is not null and later.step < ${count}
    ),
    earlier(merchant_id, step) as (
      select ${nextAfter('', afterMerchantId)}, ${count} + 1
      union all
      select ${nextAfter(sql.ref('earlier.merchant_id'), afterMerchantId)}, earlier.step + 1 from earlier
      where earlier.merchant_id is not null and earlier.step < 2 * ${count}
    )
    select found.merchant_id,
      case when (select earliest.next_attempt_at_us from events earliest
        where earliest.delivery_status = 'pending' and earliest.mode = ${mode}
          and earliest.merchant_id = found.merchant_id
        order by earliest.next_attempt_at_us ${dialect.limit(1)}) <= ${nowUs} then 1 else 0 end as due
    from (
      select merchant_id, step from later union all select merchant_id, step from earlier
    ) as found
    where found.merchant_id is not null
    order by found.step
    ${dialect.limit(count)}`.execute(db)
  return rows.map((row) => ({ merchantId: row.merchant_id, due: Number(row.due) === 1 }))
}

/**
 * One statement: each quota's merchant's first due events (events_due_by_merchant, in due
 * order), each part limited on its own, claimed together.
 */
async function claimDueOf(
  { db, dialect }: RepositoryScope,
  owner: string,
  nowUs: number,
  leaseMs: number,
  mode: Mode,
  quotas: readonly MerchantQuota[],
): Promise<ClaimedEvent[]> {
  if (quotas.length === 0) return []
  const skipLocked = dialect.supportsRowLocks ? sql`for update of due skip locked` : sql``
  const parts = quotas.map(
    ({ merchantId, count }, index) => sql`select id from (
      select due.id from events due
      where due.mode = ${mode} and due.merchant_id = ${merchantId} and ${claimable(nowUs)}
      order by due.next_attempt_at_us
      ${dialect.limit(count)}
      ${skipLocked}
    ) as ${sql.ref(`part${index}`)}`,
  )
  const { rows } = await sql<Selectable<EventsTable>>`
    update events set lease_owner = ${owner}, lease_until_us = ${nowUs + leaseMs * 1000}
    where id in (${sql.join(parts, sql` union all `)})
    returning *`.execute(db)
  return rows.map(toClaimed)
}

async function recordAttempts(
  scope: RepositoryScope,
  ended: readonly EndedAttempt[],
  nowUs: number,
  leaseMs: number,
): Promise<ClaimedEvent[]> {
  if (ended.length === 0) return []
  const { db } = scope
  await insertAttempts(db, {
    rows: ended.map(({ event, attempt }) => ({
      event_id: event.id,
      number: attempt.number,
      started_at_us: attempt.startedAtUs,
      duration_ms: attempt.durationMs,
      status_code: attempt.statusCode,
      error: attempt.error,
      outcome: attempt.outcome,
    })),
  })
  const recorded = new Set(await recordEventStates(db, ended))
  // A subject's next event goes to its event's owner (one owner per group, in practice).
  const doneByOwner = new Map<string, SubjectKey[]>()
  const retried: Deferral[] = []
  for (const { event, owner, attempt, claimNext } of ended) {
    if (!recorded.has(event.id)) continue
    if (attempt.deliveryStatus !== 'pending' && claimNext !== false)
      doneByOwner.set(owner, [...(doneByOwner.get(owner) ?? []), subjectOf(event)])
    else if (attempt.nextAttemptAtUs !== null) retried.push({ event, untilUs: attempt.nextAttemptAtUs })
  }
  await holdLaterEvents(db, retried)
  const claimed: ClaimedEvent[] = []
  for (const [owner, subjects] of doneByOwner)
    claimed.push(...(await claimDueEvents(scope, owner, nowUs, leaseMs, subjects.length, subjects)))
  return claimed
}

/**
 * Every attempt's event takes its next state in one statement, if its claim is still its
 * owner's; returns the ids of those that did. The values are cast so that PostgreSQL knows their
 * types, and named apart from the events' columns so that `returning id` is the event's. The
 * attempts held just before it ride along with it (write-only.ts).
 */
async function recordEventStates(db: Executor, ended: readonly EndedAttempt[]): Promise<string[]> {
  const rows = ended.map(({ event, owner, attempt }) => ({
    eventId: event.id,
    owner,
    attemptCount: attempt.number,
    status: attempt.deliveryStatus,
    nextAtUs: attempt.nextAttemptAtUs,
    deliveredUs: attempt.deliveredAtUs,
  }))
  return (await updateEventStates(db, { rows })).rows.map((row) => row.id)
}

const updateEventStates = statementTemplate(
  (
    _db,
    states: {
      rows: {
        eventId: string
        owner: string
        attemptCount: number
        status: string
        nextAtUs: number | null
        deliveredUs: number | null
      }[]
    },
  ) => {
    const values = states.rows.map(
      (state) =>
        sql`select cast(${state.eventId} as text) as event_id, cast(${state.owner} as text) as owner,
        cast(${state.attemptCount} as integer) as attempt_count,
        cast(${state.status} as text) as status,
        cast(${state.nextAtUs} as bigint) as next_at_us,
        cast(${state.deliveredUs} as bigint) as delivered_us`,
    )
    return sql<{ id: string }>`
    update events set attempts = v.attempt_count, delivery_status = v.status,
      next_attempt_at_us = v.next_at_us, delivered_at_us = v.delivered_us,
      lease_owner = null, lease_until_us = null
    from (${sql.join(values, sql` union all `)}) as v
    where events.id = v.event_id and events.lease_owner = v.owner
    returning id`
  },
  { carries: { tables: ['events'] } },
)

async function deferEvents(db: Executor, deferrals: readonly Deferral[], owner: string): Promise<void> {
  if (deferrals.length === 0) return
  const values = deferrals.map(
    ({ event, untilUs }) =>
      sql`select cast(${event.id} as text) as event_id, cast(${untilUs} as bigint) as until_us`,
  )
  const { rows } = await sql<{ id: string }>`
    update events set next_attempt_at_us = v.until_us, lease_owner = null, lease_until_us = null
    from (${sql.join(values, sql` union all `)}) as v
    where events.id = v.event_id and events.lease_owner = ${owner} and events.delivery_status = 'pending'
    returning id`.execute(db)
  const deferred = new Set(rows.map((row) => row.id))
  await holdLaterEvents(
    db,
    deferrals.filter(({ event }) => deferred.has(event.id)),
  )
}

async function parkEndpoint(
  { db, dialect }: RepositoryScope,
  target: ParkTarget,
  nowUs: number,
  turn: ParkTurns,
  limit: number,
): Promise<number> {
  const statementRows = dialect.supportsRowLocks ? parkRowsSkippedByClaims : parkRowsHoldingTheWriter
  let parked = 0
  while (parked < limit) {
    const rows = Math.min(statementRows, limit - parked)
    const fromUs = turn.fromUs + parked * turn.stepUs
    const count = await giveTurns(db, dialect, target, nowUs, { ...turn, fromUs }, rows)
    parked += count
    if (count < rows) break
  }
  return parked
}

/**
 * Events one park statement gives their turns to. Without row locks (SQLite) every other write
 * waits for it: a few milliseconds of the writer at most. With them (PostgreSQL) nobody waits for
 * its locks (claims skip them), and each statement reads every due event of the merchant to find
 * this endpoint's (no index knows how few are this endpoint's): fewer, larger statements.
 */
const parkRowsHoldingTheWriter = 256
const parkRowsSkippedByClaims = 2_048

/**
 * One statement: finds the target's first `rows` due events (events_due_by_merchant reads the
 * merchant's due events in order) and gives each its turn, counted in
 * due order, then by position (an operation's later event keeps a later turn than its earlier
 * one). The turns are computed by the database from their rank, not sent as values: PostgreSQL
 * takes longer to parse and plan a long list of ids and turns than to run the update itself.
 */
async function giveTurns(
  db: Executor,
  dialect: StoreDialect,
  { mode, merchantId, endpoint }: ParkTarget,
  nowUs: number,
  turn: ParkTurns,
  rows: number,
): Promise<number> {
  const length = endpoint.length
  // A park only saves claims, so it never waits for a row another transaction holds (a give-back
  // holding one event and waiting for its operation's later one, which the park holds, would deadlock).
  const skipLocked = dialect.supportsRowLocks ? sql`for update of parked skip locked` : sql``
  // The origin, then the URL's end or its path, query or fragment: never another port's or host's.
  // Only events due before the first turn: every one moves later, none earlier.
  // The turns are a materialized CTE: computed once, whatever the statistics say. As a subquery
  // joined to the update, stale statistics can plan it as a nested loop that runs it again for
  // every pending event.
  const { rows: moved } = await sql<{ id: string }>`
    with turns as materialized (
      select due.id, row_number() over (order by due.next_attempt_at_us, due.position) as rank
      from (
        select parked.id, parked.next_attempt_at_us, parked.position from events parked
        where parked.delivery_status = 'pending' and parked.mode = ${mode}
          and parked.merchant_id = ${merchantId} and parked.next_attempt_at_us <= ${nowUs}
          and parked.next_attempt_at_us < ${turn.fromUs}
          and parked.attempts = 0 and parked.created_at_us > ${turn.fromUs - turn.holdUs}
          and ${unheld('parked', nowUs)}
          and substr(parked.callback_url, 1, ${length}) = ${endpoint}
          and (length(parked.callback_url) = ${length}
            or substr(parked.callback_url, ${length + 1}, 1) in ('/', '?', '#'))
        order by parked.next_attempt_at_us, parked.position
        ${dialect.limit(rows)}
        ${skipLocked}
      ) as due
    )
    update events
    set next_attempt_at_us = cast(${turn.fromUs} as bigint) + cast(${turn.stepUs} as bigint) * (turns.rank - 1)
    from turns
    where events.id = turns.id
    returning events.id`.execute(db)
  return moved.length
}

/**
 * The operations' later events wait for these: none is due before its earlier one, so they leave
 * the due events every claim reads, and the events API shows when they can go at the earliest.
 * One statement for all of them.
 */
async function holdLaterEvents(db: Executor, held: readonly Deferral[]): Promise<void> {
  if (held.length === 0) return
  const values = held.map(
    ({ event, untilUs }) =>
      sql`select cast(${event.operationId} as bigint) as held_operation,
        cast(${event.payoutBatchId ?? 0} as bigint) as held_batch,
        cast(${event.position} as bigint) as held_position, cast(${untilUs} as bigint) as until_us`,
  )
  await sql`
    update events set next_attempt_at_us = v.until_us
    from (${sql.join(values, sql` union all `)}) as v
    where events.operation_id = v.held_operation and events.position > v.held_position
      and coalesce(events.payout_batch_id, 0) = v.held_batch
      and events.delivery_status = 'pending' and events.next_attempt_at_us < v.until_us`.execute(db)
}

/** Newest first; unfiltered pages seek on the dense per-merchant position, like every list. */
async function listEvents(
  { db }: RepositoryScope,
  merchantId: string,
  mode: Mode,
  filters: EventFilters,
  page: PageRequest,
): Promise<Page<EventView>> {
  let query = eventsOf(db, merchantId, mode)
  if (isUnfiltered(filters)) {
    const total = await counterValue(db, merchantId, mode, 'event')
    const seek = await seekPage(total, page, (top, limit) =>
      query.where('events.position', '<=', top).orderBy('events.position', 'desc').limit(limit).execute(),
    )
    return { items: seek.items.map(toView), total }
  }
  if (filters.type) query = query.where('events.type', '=', filters.type)
  if (filters.token) {
    // A batch's token selects its own events; an operation's, the operation's (never its batch's).
    const batch = await db
      .selectFrom('payout_batches')
      .select('id')
      .where('merchant_id', '=', merchantId)
      .where('mode', '=', mode)
      .where('token', '=', filters.token)
      .executeTakeFirst()
    query = batch
      ? query.where('events.payout_batch_id', '=', batch.id)
      : query.where('operations.token', '=', filters.token).where('events.payout_batch_id', 'is', null)
  }
  if (filters.deliveryStatus) query = query.where('events.delivery_status', '=', filters.deliveryStatus)
  const [rows, counted] = await Promise.all([
    query
      .orderBy('events.position', 'desc')
      .limit(page.perPage)
      .offset((page.page - 1) * page.perPage)
      .execute(),
    query
      .clearSelect()
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow(),
  ])
  return { items: rows.map(toView), total: Number(counted.total) }
}

async function appendEvents({ db, clock }: RepositoryScope, appends: readonly EventAppend[]): Promise<void> {
  if (appends.every(({ events }) => events.length === 0)) return
  // Read after the positions' counter lock is held, so list order and dates agree.
  const nowUs = clock.nowUs()
  const rows = appends.flatMap(({ subject, events, firstPosition }) =>
    events.map((event, index) => {
      const id = newEventId()
      return {
        id,
        merchant_id: subject.merchantId,
        mode: subject.mode,
        position: firstPosition + index,
        operation_id: subject.id,
        payout_batch_id: subject.payoutBatchId ?? null,
        type: event.type,
        payload: event.render(id, nowUs),
        callback_url: event.callbackUrl,
        created_at_us: nowUs,
        delivery_status: (event.callbackUrl ? 'pending' : 'no_callback') as DeliveryStatus,
        attempts: 0,
        next_attempt_at_us: event.callbackUrl ? nowUs : null,
        lease_owner: null,
        lease_until_us: null,
        delivered_at_us: null,
      }
    }),
  )
  // One write's few events are one statement, as always; a batch's many go in chunks of few shapes.
  if (rows.length <= 16) await insertEvents(db, { rows })
  else for (const chunk of powerOfTwoChunks(rows)) await insertEvents(db, { rows: chunk })
}

/**
 * Nobody reads what it returns: on PostgreSQL it rides with the events' update that follows, one
 * statement instead of two for each batch of ended attempts (write-only.ts).
 */
const insertAttempts = statementTemplate(
  (db, attempts: { rows: Insertable<EventAttemptsTable>[] }) =>
    db.insertInto('event_attempts').values(attempts.rows),
  { writeOnly: 'event_attempts' },
)

const insertEvents = statementTemplate(
  (db, events: { rows: Insertable<EventsTable>[] }) => db.insertInto('events').values(events.rows),
  { writeOnly: 'events' },
)

/** The subject of a claimed event, as a claim of its next one names it. */
function subjectOf(event: Pick<ClaimedEvent, 'operationId' | 'payoutBatchId'>): SubjectKey {
  return { operationId: event.operationId, payoutBatchId: event.payoutBatchId }
}

function toClaimed(row: Selectable<EventsTable>): ClaimedEvent {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    mode: row.mode as Mode,
    position: row.position,
    operationId: row.operation_id,
    payoutBatchId: row.payout_batch_id,
    type: row.type,
    payload: row.payload,
    callbackUrl: row.callback_url,
    createdAtUs: row.created_at_us,
    deliveryStatus: row.delivery_status,
    attempts: row.attempts,
    nextAttemptAtUs: row.next_attempt_at_us,
    deliveredAtUs: row.delivered_at_us,
  }
}

function toView(row: Selectable<EventsTable> & { token: string; kind: string }): EventView {
  return { ...toClaimed(row), token: row.token, kind: row.kind }
}

function toAttempt(row: Selectable<EventAttemptsTable>): AttemptView {
  return {
    number: row.number,
    startedAtUs: row.started_at_us,
    durationMs: row.duration_ms,
    statusCode: row.status_code,
    error: row.error,
    outcome: row.outcome,
  }
}
