import { type Currency, toMajorUnits } from '../../domain/money.ts'
import type { OperatorLine, StatementWindow } from '../../domain/operator-lines.ts'
import { type FoundBreak, matchDay } from '../../domain/reconciliation.ts'
import { dayWindow, isDay } from '../../domain/reconciliation-days.ts'
import { ApiError } from '../../errors.ts'
import type { StatementFile } from '../../providers/provider.ts'
import type { LiveConnection } from '../../providers/registry.ts'
import type { ReconciliationRun, StoredBreak } from '../../store/repositories/reconciliation.ts'
import type { AppContext } from '../context.ts'
import { askSideStatus } from '../lifecycle.ts'
import { readOperator, sha256Of } from './operator-reading.ts'
import { repairBreaks, type StatusAnswer } from './repair.ts'
import { type SidesOfRun, sidesOfRun } from './sika-sides.ts'

/** How long a run's lease lasts without being renewed: another instance takes a run whose instance died after this. */
export const runLeaseMs = 60_000
/** A failed run is due again after this (times its attempts). */
const retryMs = 15 * 60_000

/** How long after a day ends each operator's statement is complete (CONTRACT.md: pawaPay 60 minutes). */
export function operatorDelayMs(adapterName: string): number {
  return adapterName === 'pawapay' ? 60 * 60_000 : 15 * 60_000
}

/** What `sika reconcile --json` prints (CONTRACT.md, Reconciliation). */
export interface RunReport {
  connection: string
  date: string
  status: 'completed' | 'failed'
  reason?: string
  lines: number
  matched: number
  matchedAmount: number
  breaks: BreakReport[]
}

export interface BreakReport {
  id: string
  kind: string
  token: string | null
  operatorReference: string | null
  amount: number
  currency: string
  state: string
}

export const breakReport = (stored: StoredBreak): BreakReport => ({
  id: stored.id,
  kind: stored.kind,
  token: stored.token,
  operatorReference: stored.operatorReference,
  amount: toMajorUnits(stored.amountMinor, stored.currency as Currency),
  currency: stored.currency,
  state: stored.state,
})

/** The live connection named `id`, or a not_found error. */
export function connectionNamed(context: AppContext, id: string): LiveConnection {
  const connection = context.providers.liveConnection(id)
  if (!connection) {
    const known = context.providers.liveConnections().map((each) => each.id)
    throw new ApiError(
      'not_found',
      `No live connection has id ${id}${known.length ? ` (connected: ${known.join(', ')})` : ''}.`,
    )
  }
  return connection
}

/**
 * Runs one connection's day by hand (the CLI, the console): the run is leased as the scheduled
 * runs are, so it never runs on two instances at once; asked while another instance holds it, the
 * answer is a failure that says so, and nothing is written.
 */
export async function reconcileDay(
  context: AppContext,
  connectionId: string,
  day: string,
  owner: string,
): Promise<RunReport> {
  const connection = connectionNamed(context, connectionId)
  if (!isDay(day)) throw new ApiError('bad_request', `--date takes a day written YYYY-MM-DD, not "${day}".`)
  const window = dayWindow(day, context.config.reconciliationTimezone)
  await context.store.reconciliation.ensureRun(
    connection.id,
    day,
    window.endAtUs + operatorDelayMs(connection.adapter.name) * 1000,
  )
  const run = await context.store.reconciliation.claimRun(
    connection.id,
    day,
    owner,
    context.clock.nowUs(),
    runLeaseMs,
  )
  if (!run)
    return failedReport(
      connection.id,
      day,
      'Another instance is running this day now; try again once it has finished.',
    )
  return performRun(context, connection, run, owner)
}

function failedReport(connection: string, date: string, reason: string): RunReport {
  return { connection, date, status: 'failed', reason, lines: 0, matched: 0, matchedAmount: 0, breaks: [] }
}

/** Runs a leased run to its end, renewing the lease while it works, and writes its outcome. */
export async function performRun(
  context: AppContext,
  connection: LiveConnection,
  run: ReconciliationRun,
  owner: string,
  signal?: AbortSignal,
): Promise<RunReport> {
  const renew = setInterval(() => {
    void context.store.reconciliation
      .extendLease(run.id, owner, context.clock.nowUs() + runLeaseMs * 1000)
      .catch((error) =>
        context.logger.warn({ err: error, run: run.id }, 'renewing a reconciliation lease failed'),
      )
  }, runLeaseMs / 3)
  try {
    const outcome = await work(context, connection, run.day, signal)
    const nowUs = context.clock.nowUs()
    if ('reason' in outcome) {
      const dueAgainAtUs = nowUs + retryMs * 1000 * Math.max(1, run.attempts)
      await context.store.reconciliation.finishRun(run.id, owner, {
        status: 'failed',
        reason: outcome.reason,
        lines: 0,
        matched: 0,
        matchedAmountMinor: 0,
        nowUs,
        dueAgainAtUs,
      })
      return failedReport(connection.id, run.day, outcome.reason)
    }
    await context.store.reconciliation.finishRun(run.id, owner, {
      status: 'completed',
      reason: null,
      ...outcome.figures,
      nowUs,
    })
    context.logger.info(
      { connection: connection.id, day: run.day, ...outcome.figures },
      'reconciliation run completed',
    )
    return await reportOf(context, connection.id, run.day, outcome.figures)
  } catch (error) {
    const reason = `The run stopped: ${error instanceof Error ? error.message : String(error)}`
    const nowUs = context.clock.nowUs()
    await context.store.reconciliation
      .finishRun(run.id, owner, {
        status: 'failed',
        reason,
        lines: 0,
        matched: 0,
        matchedAmountMinor: 0,
        nowUs,
        dueAgainAtUs: nowUs + retryMs * 1000,
      })
      .catch(() => {})
    context.logger.error({ err: error, connection: connection.id, day: run.day }, 'reconciliation run failed')
    return failedReport(connection.id, run.day, reason)
  } finally {
    clearInterval(renew)
  }
}

type Figures = { lines: number; matched: number; matchedAmountMinor: number }

async function reportOf(
  context: AppContext,
  connection: string,
  day: string,
  figures: Figures,
): Promise<RunReport> {
  const breaks = await context.store.reconciliation.listBreaks({
    connectionId: connection,
    day,
    limit: 1_000_000,
  })
  const currency = breaks[0]?.currency ?? 'XOF'
  return {
    connection,
    date: day,
    status: 'completed',
    lines: figures.lines,
    matched: figures.matched,
    matchedAmount: toMajorUnits(figures.matchedAmountMinor, currency as Currency),
    breaks: breaks.map(breakReport),
  }
}

/** Fetch (outside any transaction), match, store, repair. */
async function work(
  context: AppContext,
  connection: LiveConnection,
  day: string,
  signal: AbortSignal | undefined,
): Promise<{ figures: Figures } | { reason: string }> {
  const window = dayWindow(day, context.config.reconciliationTimezone)
  const phases = phaseTimer()
  const read = await readOperator(context, connection, day, window, signal)
  phases.lap('read')
  if (!read.ok) return { reason: read.reason }
  const operator = read.value
  await keepFiles(context, connection.id, day, operator.files)
  phases.lap('files')
  const sides = await sidesOfRun(context, connection, window, operator.lines)
  phases.lap('sides')
  const answered = new Map<string, StatusAnswer>()
  if (!operator.hasStatement)
    operator.lines.push(...(await statusLines(context, connection, sides, window, answered)))
  const matching = matchDay({
    sides: sides.sides,
    lines: operator.lines,
    accounts: operator.accounts,
    ...(operator.balances ? { balances: operator.balances } : {}),
    day: window,
  })
  phases.lap('match')
  const nowUs = context.clock.nowUs()
  await context.store.reconciliation.recordBreaks(connection.id, day, matching.breaks.map(breakRow), nowUs)
  const notFoundAgain = JSON.stringify({
    repaired: false,
    by: `${connection.id} for ${day}`,
    notFoundAgainAtUs: nowUs,
  })
  await context.store.transaction((tx) =>
    tx.reconciliation.closeNotFound(connection.id, day, nowUs, notFoundAgain),
  )
  const repairable = await context.store.reconciliation.listBreaks({
    connectionId: connection.id,
    day,
    state: 'open',
    kinds: ['status_mismatch', 'missing_at_operator'],
    limit: 1_000_000,
  })
  const byIdentity = new Map(repairable.map((each) => [`${each.kind}/${each.reference}`, each]))
  phases.lap('breaks')
  const pairs = matching.breaks.flatMap((found) => {
    const row = byIdentity.get(`${found.kind}/${found.reference}`)
    return row ? [{ found, stored: row }] : []
  })
  await repairBreaks(context, { connectionId: connection.id, day }, pairs, answered)
  phases.lap('repairs')
  context.logger.info({ connection: connection.id, day, phasesMs: phases.laps }, 'reconciliation run phases')
  return {
    figures: {
      lines: matching.lines,
      matched: matching.matched,
      matchedAmountMinor: matching.matchedAmountMinor,
    },
  }
}

/** The operator's documents, kept with their hash as the run's evidence. */
async function keepFiles(
  context: AppContext,
  connectionId: string,
  day: string,
  files: readonly StatementFile[],
) {
  for (const file of files)
    await context.store.reconciliation.keepFile(
      {
        connectionId,
        day,
        source: file.name.startsWith('balance-') ? 'balance' : 'statement',
        name: file.name,
        contentType: file.contentType,
        sha256: sha256Of(file.bytes),
        bytes: file.bytes,
      },
      context.clock.nowUs(),
    )
}

/** How long each phase of a run took, in milliseconds, for the log. */
function phaseTimer() {
  let last = performance.now()
  const laps: Record<string, number> = {}
  return {
    laps,
    lap(name: string) {
      const now = performance.now()
      laps[name] = Math.round(now - last)
      last = now
    },
  }
}

function breakRow(found: FoundBreak) {
  return {
    kind: found.kind,
    reference: found.reference,
    operationId: found.side?.operationId ?? null,
    token: found.side?.token ?? null,
    role: found.side?.role ?? null,
    operatorReference: found.operatorReference,
    amountMinor: found.amountMinor,
    currency: found.currency,
    detail: found.detail,
    lines: JSON.stringify(found.lines.map((line) => line.raw)),
  }
}

/**
 * An operator without a statement (MTN MoMo, Orange Money) proves each side of the day through its
 * status endpoint: each answer becomes the side's line. A pending side the answer settles is
 * written then, as any poll's answer; its line then agrees, and nothing is left to repair.
 */
async function statusLines(
  context: AppContext,
  connection: LiveConnection,
  { sides }: SidesOfRun,
  window: StatementWindow,
  answered: Map<string, StatusAnswer>,
): Promise<OperatorLine[]> {
  const queue = sides.filter((side) => side.ofTheDay)
  const lines: OperatorLine[] = []
  const lane = async () => {
    for (let side = queue.shift(); side !== undefined; side = queue.shift()) {
      const askedAtUs = context.clock.nowUs()
      const asked = await askSideStatus(context, side.operationId, side.role).catch(() => undefined)
      if (!asked) continue
      answered.set(`${side.token}.${side.role}`, { ...asked, askedAtUs })
      const status = asked.outcome.status
      lines.push({
        account: connection.id,
        lineId: `status:${side.token}.${side.role}`,
        kind: 'payment',
        references: { side: { token: side.token, role: side.role } },
        direction: side.direction,
        amountMinor: side.amountMinor,
        feeMinor: 0,
        balanceEffectMinor: 0,
        currency: side.currency,
        status: status === 'succeeded' ? 'succeeded' : status === 'pending' ? 'pending' : 'failed',
        atUs: Math.max(window.startAtUs, Math.min(window.endAtUs - 1, context.clock.nowUs())),
        raw: { statusAnswer: asked.outcome, written: asked.wrote },
      })
    }
  }
  await Promise.all(Array.from({ length: 4 }, lane))
  return lines
}
