import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { Counter, Histogram, type Registry } from 'prom-client'
import { type OperatorCallRecord, operatorCallsChannel } from '../providers/operator-http.ts'

/** Seconds, up to the 10 s every operator call is bounded by. */
const operatorBuckets = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/**
 * Operator calls by adapter: callOperator (src/providers/operator-http.ts) publishes each call on
 * a diagnostics channel; the adapter is the one whose connection's baseUrl the URL starts with
 * (the longest match). Calls to a URL of no connection of this instance belong to another app
 * in the same process (tests) and are not counted here.
 * Returns the unsubscribe.
 */
export function recordOperatorCalls(
  registry: Registry,
  connections: readonly { baseUrl: string; adapter: { name: string } }[],
): () => void {
  // Longest first, so a connection below another's path wins.
  const baseUrls = connections
    .map(({ baseUrl, adapter }) => ({ baseUrl, adapter: adapter.name }))
    .sort((a, b) => b.baseUrl.length - a.baseUrl.length)
  const adapters = new Set(baseUrls.map((entry) => entry.adapter))
  const duration = new Histogram({
    name: 'sika_operator_call_duration_seconds',
    help: 'Operator HTTP calls by adapter, method and outcome (2xx, 4xx, 5xx, or no_answer), with their duration.',
    labelNames: ['adapter', 'method', 'outcome'],
    buckets: operatorBuckets,
    registers: [registry],
  })
  const errors = new Counter({
    name: 'sika_operator_call_errors_total',
    help: 'Operator calls that failed, by adapter and reason: no_answer (timeout, refused, reset) or 5xx.',
    labelNames: ['adapter', 'reason'],
    registers: [registry],
  })
  for (const adapter of adapters) {
    errors.inc({ adapter, reason: 'no_answer' }, 0)
    errors.inc({ adapter, reason: '5xx' }, 0)
  }
  const adapterOf = (record: OperatorCallRecord) =>
    baseUrls.find((entry) => within(record.url, entry.baseUrl))?.adapter
  const listener = (message: unknown) => {
    const record = message as OperatorCallRecord
    const adapter = adapterOf(record)
    if (adapter === undefined) return
    const outcome = record.status === undefined ? 'no_answer' : `${Math.floor(record.status / 100)}xx`
    duration.observe({ adapter, method: record.method, outcome }, record.durationMs / 1000)
    if (outcome === 'no_answer' || outcome === '5xx') errors.inc({ adapter, reason: outcome })
  }
  subscribe(operatorCallsChannel, listener)
  return () => unsubscribe(operatorCallsChannel, listener)
}

/** The URL is the base URL or below it (http://op:80 is not under http://op:8). */
const within = (url: string, baseUrl: string) =>
  url === baseUrl || url.startsWith(`${baseUrl}/`) || url.startsWith(`${baseUrl}?`)
