import type { Logger } from 'pino'
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client'
import type { Clock } from '../domain/clock.ts'
import { modes, operationKindNames } from '../domain/kinds.ts'
import { statuses } from '../domain/status.ts'
import type { Store } from '../store/store.ts'
import { type AccountBalanceFigure, operatorBalanceGauges } from './operator-balances.ts'
import { recordOperatorCalls } from './operator-calls.ts'
import { storeGauges } from './store-gauges.ts'

/**
 * This instance's Prometheus metrics (GET /metrics), in a registry of its own: several apps in
 * one process (the tests) never share a series. Counters and histograms are this instance's;
 * the store's gauges (backlogs) read the shared database, so across instances take their max,
 * not their sum.
 */
export interface Metrics {
  /** The exposition format's content type. */
  readonly contentType: string
  /** After a commit: the statuses the operations took in it (one event each). */
  countStatuses(states: readonly StatusTaken[]): void
  /** After each HTTP answer: `route` is the route's pattern (/api/v1/collect/:token), never the URL. */
  observeRequest(answer: AnsweredRequest): void
  /** An API request found every slot of admission control taken (it waits in the line, or is refused when that is full). */
  countAdmissionWait(): void
  /** After a connection's balances were read from its operator: its accounts' gauges and its low-balance alerts. */
  setOperatorBalances(connectionId: string, figures: readonly AccountBalanceFigure[]): void
  /**
   * The text exposition, rendered at most every 250 ms (scrapes within that share it), the store's
   * gauges at most 5 s old.
   */
  render(): Promise<string>
  /** Stops listening to operator calls. */
  close(): void
}

export interface StatusTaken {
  kind: string
  mode: string
  status: string
}

export interface AnsweredRequest {
  method: string
  /**
   * The matched route's pattern; `at-capacity` or `over-key-limit` for a request refused before
   * routing (admission's 503, the front door's 429); undefined when no route matched (404, 405).
   */
  route: string | undefined
  statusCode: number
  durationMs: number
}

export interface MetricsOptions {
  /** The live connections the registry was built from: operator calls are told apart by their baseUrl. */
  connections: readonly {
    id: string
    baseUrl: string
    adapter: { name: string }
    lowBalanceAlerts: readonly { currency: AccountBalanceFigure['currency'] }[]
  }[]
  store: Store
  clock: Clock
  logger: Logger
  /** Commits that held grouped writes so far, and the writes they held (`MerchantGroupCommit.grouped`). */
  groupedCommits(): { commits: number; writes: number }
}

/**
 * The exposition is rendered at most this often: a rendering (the process metrics, the text of
 * every series) holds the event loop, so a storm of scrapers each rendering its own would take that
 * time from every other request. Prometheus scrapes every few seconds and never sees the difference.
 */
export const renderIntervalMs = 250

/** Seconds: from a cached GET to a request that waits for the database's timeout. */
const httpBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

export function createMetrics({
  connections,
  store,
  clock,
  logger,
  groupedCommits,
}: MetricsOptions): Metrics {
  const registry = new Registry()
  // Process metrics, event-loop delay included: nodejs_eventloop_lag_seconds, and the
  // monitorEventLoopDelay histogram's nodejs_eventloop_lag_{min,mean,max,p50,p90,p99}_seconds.
  collectDefaultMetrics({ register: registry })
  const http = httpMetrics(registry)
  const operations = new Counter({
    name: 'sika_operation_statuses_total',
    help: 'Statuses operations took, by kind, mode and status: pending counts initiations, the others completions.',
    labelNames: ['kind', 'mode', 'status'],
    registers: [registry],
  })
  // Every series exists from the start, so rate() sees the first increase.
  for (const kind of operationKindNames)
    for (const mode of modes) for (const status of statuses) operations.inc({ kind, mode, status }, 0)
  const admissionWaits = new Counter({
    name: 'sika_admission_waits_total',
    help: 'API requests that found all MAX_IN_FLIGHT slots taken: they waited in the line and were admitted later or refused 503, or were refused at once when the line was full too (refusals: route="at-capacity" in sika_http_requests_total).',
    registers: [registry],
  })
  groupedCommitMetrics(registry, groupedCommits)
  const refreshStore = storeGauges(registry, store, clock, logger)
  const stopOperatorCalls = recordOperatorCalls(registry, connections)
  const setOperatorBalances = operatorBalanceGauges(registry, connections)
  let rendered: { startedAtMs: number; text: Promise<string> } | undefined
  const renderNow = async () => {
    await refreshStore()
    return registry.metrics()
  }
  return {
    contentType: registry.contentType,
    countStatuses: (states) => {
      for (const { kind, mode, status } of states) operations.inc({ kind, mode, status })
    },
    observeRequest: ({ method, route, statusCode, durationMs }) => {
      const labels = { method, route: route ?? 'unmatched', status_code: String(statusCode) }
      http.requests.inc(labels)
      http.duration.observe(labels, durationMs / 1000)
    },
    countAdmissionWait: () => admissionWaits.inc(),
    setOperatorBalances,
    render: () => {
      const nowMs = performance.now()
      if (!rendered || nowMs - rendered.startedAtMs >= renderIntervalMs) {
        const text = renderNow()
        rendered = { startedAtMs: nowMs, text }
        text.catch(() => {
          if (rendered?.text === text) rendered = undefined
        })
      }
      return rendered.text
    },
    close: stopOperatorCalls,
  }
}

/** Read at each scrape from what the store or the merchant group commit counted: writes per commit is their ratio. */
function groupedCommitMetrics(registry: Registry, read: MetricsOptions['groupedCommits']): void {
  const counterOf = (name: string, help: string, value: (figures: ReturnType<typeof read>) => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset()
        this.inc(value(read()))
      },
    })
  counterOf(
    'sika_grouped_commits_total',
    'Commits of grouped writes: on SQLite every group commit; on PostgreSQL every transaction of a merchant group commit (one merchant’s initiations).',
    (figures) => figures.commits,
  )
  counterOf(
    'sika_grouped_commit_writes_total',
    'The writes those commits held: divided by sika_grouped_commits_total, the writes per commit.',
    (figures) => figures.writes,
  )
}

function httpMetrics(registry: Registry) {
  const labelNames = ['method', 'route', 'status_code']
  return {
    requests: new Counter({
      name: 'sika_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status (route="unmatched": no route; route="at-capacity": refused 503 by admission control before any route; route="over-key-limit": refused 429 past the limit of its api-key before any route).',
      labelNames,
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'sika_http_request_duration_seconds',
      help: 'Time from the request to its answer, by method, route pattern and status.',
      labelNames,
      buckets: httpBuckets,
      registers: [registry],
    }),
  }
}
