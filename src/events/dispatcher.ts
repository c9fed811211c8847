import { isIP } from 'node:net'
import { type Selectable, sql } from 'kysely'
import { Agent, request } from 'undici'
import type { AppContext } from '../app/context.ts'
import { signingSecrets } from '../app/webhook-secrets.ts'
import type { EventsTable } from '../store/schema.ts'
import { nextRetryDelayMs } from './retry-schedule.ts'
import { signatureHeaders } from './signing.ts'
import { isForbiddenAddress, publicOnlyLookup } from './ssrf.ts'

type EventRow = Selectable<EventsTable>

export const deliveryTimeoutMs = 10_000
/** Longer than a delivery can take, so a live claim is never taken over mid-send. */
const leaseMs = 3 * deliveryTimeoutMs
const batchSize = 16

// Sandbox callbacks may target a developer's own machine; live ones reach public addresses only.
const sandboxAgent = new Agent({ connect: { timeout: deliveryTimeoutMs } })
const liveAgent = new Agent({ connect: { timeout: deliveryTimeoutMs, lookup: publicOnlyLookup } })

/**
 * Claims the events that are due and not leased, and delivers them. The claim is one statement
 * (with SKIP LOCKED on PostgreSQL), so instances sharing a database never take the same event;
 * an instance that dies mid-send loses its lease and another delivers after it expires.
 */
export async function deliverDueEvents(context: AppContext, owner: string): Promise<number> {
  const now = context.clock.nowMicros()
  const skipLocked = context.store.dialect.supportsRowLocks ? sql`for update skip locked` : sql``
  const { rows } = await sql<EventRow>`
    update events set lease_owner = ${owner}, lease_until_us = ${now + leaseMs * 1000}
    where id in (
      select id from events
      where delivery_status = 'pending' and next_attempt_at_us <= ${now}
        and (lease_until_us is null or lease_until_us < ${now})
      order by next_attempt_at_us
      limit ${batchSize}
      ${skipLocked}
    )
    returning *`.execute(context.store.db)
  // One operation's events go out in the order it took its statuses; operations run side by side.
  const byOperation = new Map<number, EventRow[]>()
  for (const event of rows.sort((a, b) => a.position - b.position)) {
    byOperation.set(event.operation_id, [...(byOperation.get(event.operation_id) ?? []), event])
  }
  await Promise.all(
    [...byOperation.values()].map(async (events) => {
      for (const event of events) await deliver(context, event, owner)
    }),
  )
  return rows.length
}

interface AttemptResult {
  statusCode: number | null
  error: string | null
}

async function deliver(context: AppContext, event: EventRow, owner: string): Promise<void> {
  const url = event.callback_url
  if (!url) return
  const secrets = await signingSecrets(context, event.merchant_id)
  const startedAtUs = context.clock.nowMicros()
  const started = performance.now()
  // The signature's timestamp is the wall-clock time of sending: receivers compare it with theirs.
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'Sika-Webhooks/1',
    ...signatureHeaders(event.id, Math.floor(Date.now() / 1000), event.payload, secrets),
  }
  const result = await post(url, event.payload, headers, event.mode === 'live')
  const durationMs = Math.round(performance.now() - started)
  await recordAttempt(context, event, owner, startedAtUs, durationMs, result)
}

async function post(
  url: string,
  body: string,
  headers: Record<string, string>,
  live: boolean,
): Promise<AttemptResult> {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '')
    if (live && isIP(host) && isForbiddenAddress(host))
      return { statusCode: null, error: `${host} is not a public address` }
    // undici's request follows no redirects: a 3xx is an answer like any other non-2xx.
    const response = await request(url, {
      method: 'POST',
      body,
      headers,
      dispatcher: live ? liveAgent : sandboxAgent,
      signal: AbortSignal.timeout(deliveryTimeoutMs),
    })
    await response.body.dump()
    return { statusCode: response.statusCode, error: null }
  } catch (error) {
    const reason =
      error instanceof Error
        ? `${(error as { code?: string }).code ?? error.name}: ${error.message}`
        : String(error)
    return { statusCode: null, error: reason.slice(0, 500) }
  }
}

async function recordAttempt(
  context: AppContext,
  event: EventRow,
  owner: string,
  startedAtUs: number,
  durationMs: number,
  result: AttemptResult,
): Promise<void> {
  const number = event.attempts + 1
  const now = context.clock.nowMicros()
  const delivered = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300
  const gone = result.statusCode === 410
  const retryInMs = delivered || gone ? undefined : nextRetryDelayMs(number)
  const outcome = delivered ? 'delivered' : gone ? 'stopped' : retryInMs === undefined ? 'given_up' : 'retry'
  await context.store.transaction(async (trx) => {
    await trx
      .insertInto('event_attempts')
      .values({
        event_id: event.id,
        number,
        started_at_us: startedAtUs,
        duration_ms: durationMs,
        status_code: result.statusCode,
        error: result.error,
        outcome,
      })
      .execute()
    await trx
      .updateTable('events')
      .set({
        attempts: number,
        delivery_status: outcome === 'retry' ? 'pending' : outcome,
        next_attempt_at_us: retryInMs === undefined ? null : now + retryInMs * 1000,
        delivered_at_us: delivered ? now : null,
        lease_owner: null,
        lease_until_us: null,
      })
      .where('id', '=', event.id)
      .where('lease_owner', '=', owner)
      .execute()
  })
  if (!delivered) {
    context.logger.info(
      { eventId: event.id, attempt: number, statusCode: result.statusCode, error: result.error, outcome },
      'callback not delivered',
    )
  }
}
