import type { Logger } from 'pino'
import { Counter, Gauge, type Registry } from 'prom-client'
import type { Clock } from '../domain/clock.ts'
import type { WorkKind } from '../domain/transitions.ts'
import type { Store } from '../store/store.ts'

const workKinds = ['submit', 'poll', 'expire'] as const satisfies readonly WorkKind[]

/** Seconds from a time in microseconds to now; 0 for none, or one still in the future. */
const secondsSince = (nowUs: number, thenUs: number | null) =>
  thenUs === null ? 0 : Math.max(0, (nowUs - thenUs) / 1e6)

/** The connections as the driver sees them: no query. */
function connectionGauges(registry: Registry, store: Store): () => void {
  const pool = new Gauge({
    name: 'sika_db_pool_connections',
    help: 'Database connections by state: open, busy (held), idle, and waiting (requests waiting for one; PostgreSQL only).',
    labelNames: ['state'],
    registers: [registry],
  })
  const poolMax = new Gauge({
    name: 'sika_db_pool_max_connections',
    help: 'The most connections the store opens (SQLite: its one).',
    registers: [registry],
  })
  return () => {
    const use = store.monitoring.connections()
    poolMax.set(use.max)
    pool.set({ state: 'open' }, use.open)
    pool.set({ state: 'busy' }, use.busy)
    pool.set({ state: 'idle' }, use.open - use.busy)
    if (use.waiting !== undefined) pool.set({ state: 'waiting' }, use.waiting)
  }
}

function backlogGauges(registry: Registry) {
  const gauge = (name: string, help: string, labelNames: string[] = []) =>
    new Gauge({ name, help, labelNames, registers: [registry] })
  return {
    up: gauge(
      'sika_store_up',
      '1 when the last scrape read the backlogs from the store, 0 when it could not.',
    ),
    undelivered: gauge(
      'sika_outbox_undelivered_events',
      'Events not delivered yet: due now or waiting for a retry.',
    ),
    due: gauge('sika_outbox_due_events', 'Undelivered events due now: the callbacks backlog.'),
    oldest: gauge(
      'sika_outbox_oldest_undelivered_age_seconds',
      'Age of the oldest undelivered event (0 when there is none).',
    ),
    workOpen: gauge('sika_scheduled_work_open', 'Scheduled work not done yet, by kind.', ['kind']),
    workDue: gauge('sika_scheduled_work_due', 'Scheduled work due now and not done: the backlog, by kind.', [
      'kind',
    ]),
    workLate: gauge(
      'sika_scheduled_work_oldest_due_age_seconds',
      'How long ago the earliest scheduled work not done yet was due (0 when none is overdue).',
    ),
  }
}

/**
 * The reconciliation's gauges (CONTRACT.md, Reconciliation): open breaks by connection and kind,
 * and of each connection's last completed run its time and the share of its lines matched.
 */
function reconciliationGauges(registry: Registry, store: Store): () => Promise<void> {
  const gauge = (name: string, help: string, labelNames: string[]) =>
    new Gauge({ name, help, labelNames, registers: [registry] })
  const open = gauge(
    'sika_reconciliation_open_breaks',
    'Reconciliation breaks still open, by connection and kind.',
    ['connection', 'kind'],
  )
  const last = gauge(
    'sika_reconciliation_last_completed_run_timestamp_seconds',
    'When each connection last completed a reconciliation run (Unix time).',
    ['connection'],
  )
  const matched = gauge(
    'sika_reconciliation_lines_matched_ratio',
    "The share of the operator's lines matched in each connection's last completed run (1 when it had none).",
    ['connection'],
  )
  return async () => {
    const [counts, runs] = await Promise.all([
      store.reconciliation.openBreakCounts(),
      store.reconciliation.lastCompleted(),
    ])
    open.reset()
    for (const count of counts) open.set({ connection: count.connectionId, kind: count.kind }, count.count)
    for (const run of runs) {
      last.set({ connection: run.connectionId }, (run.completedAtUs ?? 0) / 1e6)
      matched.set({ connection: run.connectionId }, run.lines === 0 ? 1 : run.matched / run.lines)
    }
  }
}

/** The store's backlog is read at most this often, whatever the number of scrapers. */
export const storeReadIntervalMs = 5000

/**
 * The gauges read from the store: the outbox and scheduled-work backlogs (queries over the rows
 * still to do only), at most once every 5 s, and the database connections (no query) at every
 * scrape. Returns the refresh that /metrics runs before rendering: a scrape within 5 s of the last
 * read, or during one, costs no query (scrapers at once share one read). A store that does not
 * answer leaves the backlog gauges as they were and sets sika_store_up to 0, and the scrape still
 * answers. sika_metrics_store_reads_total counts the reads.
 */
export function storeGauges(
  registry: Registry,
  store: Store,
  clock: Clock,
  logger: Logger,
): () => Promise<void> {
  new Gauge({
    name: 'sika_store_info',
    help: 'The store this instance runs on.',
    labelNames: ['store'],
    registers: [registry],
  }).set({ store: store.name }, 1)
  const readConnections = connectionGauges(registry, store)
  const gauges = backlogGauges(registry)
  const readReconciliation = reconciliationGauges(registry, store)
  const reads = new Counter({
    name: 'sika_metrics_store_reads_total',
    help: 'Reads of the store by /metrics for its backlog gauges: at most one every 5 s, however many scrape.',
    registers: [registry],
  })
  const readBacklog = async () => {
    reads.inc()
    const nowUs = clock.nowUs()
    try {
      const backlog = await store.monitoring.backlog(nowUs)
      gauges.undelivered.set(backlog.outbox.undelivered)
      gauges.due.set(backlog.outbox.due)
      gauges.oldest.set(secondsSince(nowUs, backlog.outbox.oldestCreatedAtUs))
      for (const kind of workKinds) {
        const found = backlog.scheduledWork.find((entry) => entry.kind === kind)
        gauges.workOpen.set({ kind }, found?.open ?? 0)
        gauges.workDue.set({ kind }, found?.due ?? 0)
      }
      gauges.workLate.set(secondsSince(nowUs, backlog.oldestScheduledDueAtUs))
      await readReconciliation()
      gauges.up.set(1)
    } catch (error) {
      gauges.up.set(0)
      logger.warn({ err: error }, 'metrics: the store did not answer the backlog queries')
    }
  }
  let lastRead: { startedAtMs: number; done: Promise<void> } | undefined
  return () => {
    readConnections()
    const nowMs = performance.now()
    if (!lastRead || nowMs - lastRead.startedAtMs >= storeReadIntervalMs)
      lastRead = { startedAtMs: nowMs, done: readBacklog() }
    return lastRead.done
  }
}
