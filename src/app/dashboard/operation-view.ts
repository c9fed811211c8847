import { randomBytes } from 'node:crypto'
import { type Mode, operationKinds, refundKindFor, type SideRole } from '../../domain/kinds.ts'
import { type Currency, toMajorUnits } from '../../domain/money.ts'
import type { Operation } from '../../domain/operation.ts'
import { leftToRefundMinor } from '../../domain/refunds.ts'
import type { Status } from '../../domain/status.ts'
import { ApiError } from '../../errors.ts'
import type { AppContext } from '../context.ts'
import {
  type AttemptView,
  type EventView,
  eventAttempts,
  findEvent,
  listEvents,
  redeliverEvent,
} from '../events.ts'
import type { Principal } from '../principal.ts'
import { refundOperation } from '../refunds.ts'
import type { LedgerEntry } from '../transactions.ts'
import { type Actor, audit } from './audit.ts'

/** One line of an operation's timeline. */
export type TimelineEntry =
  | { what: 'initiated'; atUs: number }
  | {
      what: 'submitted'
      atUs: number
      role: SideRole
      operatorReference?: string
      providerReference?: string
    }
  | { what: 'status'; atUs: number; status: Status; reason?: string }
  /** A reconciliation's repair wrote the operator's answer: "corrected by the reconciliation of <connection> for <day>". */
  | { what: 'corrected'; atUs: number; connection: string; day: string }

export interface CallbackView {
  event: EventView
  attempts: AttemptView[]
}

export interface OperationView {
  operation: Operation
  timeline: TimelineEntry[]
  movements: LedgerEntry[]
  callbacks: CallbackView[]
  /** What is left to refund, when the operation's kind can be refunded and it succeeded. */
  leftToRefundMinor: number | undefined
  /** Its refunds, newest first (at most `refundsShown`); none for an operation never refunded. */
  refunds: Operation[]
}

/** Refunds of one operation shown at most: a collect is refunded a few times, rarely more. */
export const refundsShown = 100

/** Events of one operation read at most: one per status it takes, a handful. */
const eventsRead = 50

/** An operation's page: its record, what happened to it and when, what it moved, its callbacks. */
export async function operationView(
  context: AppContext,
  merchantId: string,
  mode: Mode,
  token: string,
): Promise<OperationView | undefined> {
  const operation = await context.store.operations.findByToken(merchantId, mode, token)
  if (!operation) return undefined
  const principal: Principal = { merchantId, merchantName: '', mode }
  const [events, movements, refunds, repairs] = await Promise.all([
    listEvents(context, principal, { token }, { page: 1, perPage: eventsRead }),
    movementsOf(context, operation),
    refundKindFor(operation.kind) !== undefined
      ? context.store.operationSearch.refundsOf(merchantId, mode, operation.id, refundsShown)
      : Promise.resolve([]),
    mode === 'live' ? context.store.reconciliation.repairsOf(operation.id) : Promise.resolve([]),
  ])
  const ordered = [...events.items].sort((a, b) => a.position - b.position)
  const callbacks = await Promise.all(
    ordered.map(async (event) => ({ event, attempts: await eventAttempts(context, event.id) })),
  )
  return {
    operation,
    timeline: [
      ...timelineOf(operation, ordered),
      ...repairs.map(
        (repair): TimelineEntry => ({
          what: 'corrected',
          atUs: repair.closedAtUs,
          connection: repair.connectionId,
          day: repair.day,
        }),
      ),
    ].sort((a, b) => a.atUs - b.atUs),
    movements,
    callbacks,
    leftToRefundMinor: refundable(operation) ? leftToRefundMinor(operation) : undefined,
    refunds,
  }
}

function refundable(operation: Operation): boolean {
  return refundKindFor(operation.kind) !== undefined && operation.status === 'succeeded'
}

/** The operation's ledger entries, oldest first. */
function movementsOf(context: AppContext, operation: Operation): Promise<LedgerEntry[]> {
  return context.store.ledger.entriesOfOperation(operation.id)
}

function timelineOf(operation: Operation, events: readonly EventView[]): TimelineEntry[] {
  const entries: TimelineEntry[] = [{ what: 'initiated', atUs: operation.initiatedAtUs }]
  for (const side of operation.sides) {
    if (side.submittedAtUs === undefined) continue
    const submitted: TimelineEntry = { what: 'submitted', atUs: side.submittedAtUs, role: side.role }
    if (side.operatorReference) submitted.operatorReference = side.operatorReference
    if (side.providerReference) submitted.providerReference = side.providerReference
    entries.push(submitted)
  }
  for (const event of events) {
    const status = event.type.slice(event.type.lastIndexOf('.') + 1) as Status
    const reason = reasonIn(event.payload, operation)
    entries.push({ what: 'status', atUs: event.createdAtUs, status, ...(reason ? { reason } : {}) })
  }
  const ended =
    operation.status !== 'pending' && !events.some((event) => event.type.endsWith(`.${operation.status}`))
  if (ended && operation.completedAtUs !== null) {
    const reason = operation.failure?.message
    entries.push({
      what: 'status',
      atUs: operation.completedAtUs,
      status: operation.status,
      ...(reason ? { reason } : {}),
    })
  }
  return entries.sort((a, b) => a.atUs - b.atUs)
}

/** The failure reason the event's record carries, if any. */
function reasonIn(payload: string, operation: Operation): string | undefined {
  try {
    const parsed = JSON.parse(payload) as { data?: Record<string, { failureReason?: { message?: string } }> }
    const record = parsed.data?.[operationKinds[operation.kind].dataKey.details]
    return record?.failureReason?.message
  } catch {
    return undefined
  }
}

/** A member's action, as the audit log names who did it. */
export interface MemberActor {
  memberId: string
  email: string
  address: string
}

/**
 * The refund form carries the reference its refund will have, made when the page is shown: the
 * same form sent twice (a double click, a reload) is one refund, answered again as the API answers
 * a retry.
 */
export function newRefundReference(): string {
  return `dashboard-${randomBytes(9).toString('base64url')}`
}
const refundReferencePattern = /^dashboard-[A-Za-z0-9_-]{12}$/

export type RefundOutcome =
  | { refund: Operation }
  | { refused: 'amount_invalid' }
  | { refused: 'api'; message: string; code: string; leftMinor?: number; currency?: string }

/**
 * A refund asked in the dashboard: the same use case as POST /api/v1/collect/{token}/refund, with
 * a reference of its own (`dashboard-…`) and the reason in its metadata; the refund's callbacks
 * go to the refunded operation's callbackUrl, as the API does when none is given.
 */
export async function refundFromDashboard(
  context: AppContext,
  member: MemberActor,
  target: { merchantId: string; mode: Mode; token: string },
  form: { amount?: string; reason?: string; reference?: string },
): Promise<RefundOutcome> {
  const amountText = form.amount?.trim().replace(',', '.') ?? ''
  const amount = amountText === '' ? undefined : Number(amountText)
  if (amount !== undefined && !(Number.isFinite(amount) && amount > 0)) return { refused: 'amount_invalid' }
  const reason = form.reason?.trim().slice(0, 500) ?? ''
  const principal = await principalOf(context, target.merchantId, target.mode)
  const operation = await context.store.operations.findByToken(target.merchantId, target.mode, target.token)
  // The page of an operation that does not exist answers it: a 404.
  if (!operation)
    return { refused: 'api', message: `No operation has token ${target.token}.`, code: 'not_found' }
  const askedAtUs = context.clock.nowUs()
  try {
    const refund = await refundOperation(context, principal, operation.kind, operation.token, {
      merchantReference: refundReferencePattern.test(form.reference ?? '')
        ? (form.reference as string)
        : newRefundReference(),
      ...(amount === undefined ? {} : { amount }),
      ...(reason ? { metadata: { reason } } : {}),
    })
    // The same form sent again answers the refund it made then: audited once, when it was made.
    if (refund.initiatedAtUs < askedAtUs) return { refund }
    const refundedMinor = refund.sides[0]?.amountMinor ?? 0
    await audit(context, memberActor(member), {
      merchantId: target.merchantId,
      mode: target.mode,
      action: 'refund.created',
      target: operation.token,
      after: {
        refund: refund.token,
        amount: toMajorUnits(refundedMinor, refund.currency as Currency),
        currency: refund.currency,
        reason,
      },
    })
    return { refund }
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    return refusalOf(context, target, error)
  }
}

async function refusalOf(
  context: AppContext,
  target: { merchantId: string; mode: Mode; token: string },
  error: ApiError,
): Promise<RefundOutcome> {
  const refused = { refused: 'api' as const, message: error.message, code: error.code }
  if (error.code !== 'refund_exceeds_collected') return refused
  const now = await context.store.operations.findByToken(target.merchantId, target.mode, target.token)
  if (!now?.refunds) return refused
  return {
    ...refused,
    leftMinor: now.refunds.refundableMinor - now.refunds.refundedMinor,
    currency: now.currency,
  }
}

/** Queues one of the operation's callbacks again (the API's redeliver), and audits it. */
export async function resendFromDashboard(
  context: AppContext,
  member: MemberActor,
  target: { merchantId: string; mode: Mode; token: string; eventId: string },
): Promise<EventView> {
  const principal = await principalOf(context, target.merchantId, target.mode)
  const event = await findEvent(context, principal, target.eventId)
  if (event.token !== target.token) throw new ApiError('not_found', `No event has id ${target.eventId}.`)
  const resent = await redeliverEvent(context, principal, event.id)
  await audit(context, memberActor(member), {
    merchantId: target.merchantId,
    mode: target.mode,
    action: 'callback.resent',
    target: target.token,
    after: { eventId: event.id, type: event.type },
  })
  return resent
}

async function principalOf(context: AppContext, merchantId: string, mode: Mode): Promise<Principal> {
  return { merchantId, merchantName: (await context.store.merchants.nameOf(merchantId)) ?? '', mode }
}

function memberActor(member: MemberActor): Actor {
  return { kind: 'member', ...member }
}
