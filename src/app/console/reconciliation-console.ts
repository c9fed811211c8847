import { type Country, countries, isCurrency } from '../../domain/money.ts'
import type { Operation } from '../../domain/operation.ts'
import { type BreakKind, breakKinds } from '../../domain/reconciliation.ts'
import { isDay } from '../../domain/reconciliation-days.ts'
import { reviewAmountIn } from '../../domain/review-amount.ts'
import { ApiError } from '../../errors.ts'
import type {
  BreakFilter,
  BreakHistoryEntry,
  BreakState,
  ReconciliationRun,
  StoredBreak,
} from '../../store/repositories/reconciliation.ts'
import type { AppContext } from '../context.ts'
import type { DashboardRefusal } from '../dashboard/refusals.ts'
import {
  approveBreak,
  type Decision,
  decideBreak,
  needsSecondApprover,
  type PendingApproval,
} from '../reconciliation/breaks.ts'
import { type RunReport, reconcileDay } from '../reconciliation/run.ts'
import { confirmCodeOf, type SecretHolder } from '../sign-in/secrets.ts'
import { workerIdentity } from '../workers.ts'
import { platformAccounts } from './platform-accounts.ts'
import { type PlatformActor, recordPlatformChange } from './platform-audit.ts'
import { takesExports } from './reconciliation-import.ts'

/**
 * The console's reconciliation (CONTRACT.md, Reconciliation and Platform console): the runs per
 * connection and day, the break queue, a break with both sides, and a finance member's run by
 * hand, resolution and second approval, each written to the platform audit log.
 */

export const breakStates = ['open', 'auto_resolved', 'resolved', 'ignored'] as const satisfies BreakState[]
/** The queue's age filter: breaks found more than this many days ago. */
export const breakAges = ['1', '7', '30'] as const
export type BreakAge = (typeof breakAges)[number]
export const breaksPerPage = 50

const dayUs = 86_400_000_000

export interface RunRow extends ReconciliationRun {
  breaksByKind: Partial<Record<BreakKind, number>>
}

export interface RunsView {
  /**
   * The live connections, each with the currency of its first country (its runs' matched value),
   * and whether it takes portal exports (its operator publishes no statement API).
   */
  connections: { id: string; currency: string; takesExports: boolean }[]
  runs: RunRow[]
}

/** The latest runs, newest day first, each with its breaks counted by kind; and the live connections. */
export async function reconciliationRuns(context: AppContext, connectionId?: string): Promise<RunsView> {
  const { reconciliation } = context.store
  const runs = await reconciliation.listRuns({ ...(connectionId ? { connectionId } : {}), limit: 60 })
  const counts = await reconciliation.breakCountsOfDays(runs)
  const rows = runs.map((run) => {
    const breaksByKind: RunRow['breaksByKind'] = {}
    for (const count of counts)
      if (count.connectionId === run.connectionId && count.day === run.day)
        breaksByKind[count.kind as BreakKind] = count.count
    return { ...run, breaksByKind }
  })
  const connections = context.providers.liveConnections().map((each) => ({
    id: each.id,
    currency: countries[each.countries[0] as Country] ?? 'XOF',
    takesExports: takesExports(context, each.id),
  }))
  return { connections, runs: rows }
}

/** The queue's filters as read from a query string: anything not recognised is left out. */
export interface QueueFilter {
  connectionId?: string
  kind?: BreakKind
  state?: BreakState
  age?: BreakAge
  day?: string
}

export function queueFilterOf(query: Record<string, string | undefined>): QueueFilter {
  const filter: QueueFilter = {}
  if (query.connection) filter.connectionId = query.connection.slice(0, 100)
  if ((breakKinds as readonly string[]).includes(query.kind ?? '')) filter.kind = query.kind as BreakKind
  if ((breakStates as readonly string[]).includes(query.state ?? '')) filter.state = query.state as BreakState
  if ((breakAges as readonly string[]).includes(query.age ?? '')) filter.age = query.age as BreakAge
  if (query.day && isDay(query.day)) filter.day = query.day
  return filter
}

function storeFilter(context: AppContext, filter: QueueFilter): BreakFilter {
  return {
    ...(filter.connectionId ? { connectionId: filter.connectionId } : {}),
    ...(filter.kind ? { kind: filter.kind } : {}),
    ...(filter.state ? { state: filter.state } : {}),
    ...(filter.day ? { day: filter.day } : {}),
    ...(filter.age ? { foundBeforeUs: context.clock.nowUs() - Number(filter.age) * dayUs } : {}),
  }
}

/** A page of the break queue (1-based), with how many breaks the filters select. */
export async function breakQueue(
  context: AppContext,
  filter: QueueFilter,
  page: number,
): Promise<{ breaks: StoredBreak[]; total: number }> {
  const selected = storeFilter(context, filter)
  const [breaks, total] = await Promise.all([
    context.store.reconciliation.listBreaks({
      ...selected,
      limit: breaksPerPage,
      offset: (page - 1) * breaksPerPage,
    }),
    context.store.reconciliation.countBreaks(selected),
  ])
  return { breaks, total }
}

/** Every break of one run (connection and day), for its CSV. */
export function breaksOfRun(context: AppContext, connectionId: string, day: string): Promise<StoredBreak[]> {
  return context.store.reconciliation.listBreaks({ connectionId, day, limit: 100_000 })
}

export interface BreakView {
  found: StoredBreak
  /** Sika's operation, when the break names one. */
  operation?: Operation
  history: BreakHistoryEntry[]
  pending?: PendingApproval
  needsSecondApprover: boolean
  /** RECONCILIATION_REVIEW_AMOUNT in the break's currency (its minor units), at the review's fixed rates. */
  reviewAmountMinor: number
}

export async function breakView(context: AppContext, breakId: string): Promise<BreakView | undefined> {
  const { reconciliation, operations } = context.store
  const found = await reconciliation.findBreak(breakId)
  if (!found) return undefined
  const [operation, history] = await Promise.all([
    found.operationId === null ? undefined : operations.findById(found.operationId),
    reconciliation.history(breakId),
  ])
  return {
    found,
    ...(operation ? { operation } : {}),
    history,
    ...(found.pendingApproval ? { pending: JSON.parse(found.pendingApproval) as PendingApproval } : {}),
    needsSecondApprover: needsSecondApprover(context, found),
    reviewAmountMinor: isCurrency(found.currency)
      ? reviewAmountIn(found.currency, context.config.reconciliationReviewAmount)
      : context.config.reconciliationReviewAmount,
  }
}

/** Why a console action on reconciliation was refused, in the page's words. */
export type ReconciliationRefusal =
  | DashboardRefusal
  | {
      refused:
        | 'reason_missing'
        | 'break_not_open'
        | 'no_approval'
        | 'approval_waiting'
        | 'run_input'
        | 'same_member'
    }

const memberLabel = (actor: PlatformActor) => (actor.kind === 'member' ? actor.email : (actor.label ?? 'cli'))

/** A finance member (in the console) or the CLI runs a connection's day by hand, audited as either. */
export async function runDayByHand(
  context: AppContext,
  actor: PlatformActor,
  connectionId: string,
  day: string,
): Promise<RunReport | ReconciliationRefusal> {
  if (!isDay(day) || !context.providers.liveConnection(connectionId)) return { refused: 'run_input' }
  const owner = actor.kind === 'member' ? `console:${actor.memberId}` : workerIdentity()
  const report = await reconcileDay(context, connectionId, day, owner)
  await recordPlatformChange(context, actor, {
    action: 'reconciliation.run',
    target: `${connectionId} ${day}`,
    after: {
      status: report.status,
      lines: report.lines,
      matched: report.matched,
      breaks: report.breaks.length,
    },
  })
  return report
}

/**
 * A finance member (in the console) or the CLI resolves or ignores an open break with a reason: at
 * once, or above the review amount as a decision that waits for a second member. Audited as either.
 */
export async function decideBreakByHand(
  context: AppContext,
  actor: PlatformActor,
  breakId: string,
  decision: Decision,
  reason: string,
): Promise<{ state: BreakState; pendingApproval: boolean } | ReconciliationRefusal | undefined> {
  const found = await context.store.reconciliation.findBreak(breakId)
  if (!found) return undefined
  if (found.state !== 'open') return { refused: 'break_not_open' }
  if (found.pendingApproval) return { refused: 'approval_waiting' }
  if (reason.trim() === '') return { refused: 'reason_missing' }
  try {
    return await decideBreak(
      context,
      breakId,
      decision,
      reason.slice(0, 2000),
      memberLabel(actor),
      (tx, outcome) =>
        recordPlatformChange(
          context,
          actor,
          {
            action: outcome.pendingApproval
              ? 'reconciliation.approval_asked'
              : `reconciliation.break_${decision}`,
            target: breakId,
            before: { state: found.state },
            after: {
              state: outcome.state,
              decision,
              reason: reason.trim(),
              pendingApproval: outcome.pendingApproval,
            },
          },
          tx,
        ),
    )
  } catch (error) {
    // Another member decided it, or asked for an approval of it, between the read and the write.
    if (!(error instanceof ApiError)) throw error
    const now = await context.store.reconciliation.findBreak(breakId)
    return { refused: now?.state === 'open' && now.pendingApproval ? 'approval_waiting' : 'break_not_open' }
  }
}

/**
 * A second finance member approves the decision waiting on a break with a fresh code of their
 * authenticator, counted with their sign-in's attempts; the member who asked never approves it.
 */
export async function approveFromConsole(
  context: AppContext,
  actor: PlatformActor & { kind: 'member' },
  holder: SecretHolder,
  breakId: string,
  code: string,
): Promise<BreakState | ReconciliationRefusal | undefined> {
  const found = await context.store.reconciliation.findBreak(breakId)
  if (!found) return undefined
  if (found.state !== 'open') return { refused: 'break_not_open' }
  if (!found.pendingApproval) return { refused: 'no_approval' }
  const pending = JSON.parse(found.pendingApproval) as PendingApproval
  if (pending.requestedBy === memberLabel(actor)) return { refused: 'same_member' }
  const confirmed = await confirmCodeOf(context, platformAccounts, holder, code)
  if (confirmed !== true) return confirmed
  try {
    return await approveBreak(context, breakId, memberLabel(actor), (tx, state) =>
      recordPlatformChange(
        context,
        actor,
        {
          action: 'reconciliation.break_approved',
          target: breakId,
          before: { state: found.state, askedBy: pending.requestedBy },
          after: { state, reason: pending.reason },
        },
        tx,
      ),
    )
  } catch (error) {
    // Another member approved it between the read and the write.
    if (error instanceof ApiError) return { refused: 'break_not_open' }
    throw error
  }
}

/** What the console's overview shows of reconciliation: open breaks by connection and kind, each connection's last completed run. */
export interface ReconciliationSummary {
  openBreaks: { connectionId: string; kind: string; count: number }[]
  lastCompleted: ReconciliationRun[]
}

export async function reconciliationSummary(context: AppContext): Promise<ReconciliationSummary> {
  const { reconciliation } = context.store
  const [openBreaks, lastCompleted] = await Promise.all([
    reconciliation.openBreakCounts(),
    reconciliation.lastCompleted(),
  ])
  return { openBreaks, lastCompleted }
}
