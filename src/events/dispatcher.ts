import { isIP } from 'node:net'
import type { Logger } from 'pino'
import { Agent, request } from 'undici'
import type { Clock } from '../domain/clock.ts'
import type { Mode } from '../domain/kinds.ts'
import type { ClaimedEvent, OutboxRepository } from '../store/repositories/outbox.ts'
import { nextRetryDelayMs } from './retry-schedule.ts'
import { signatureHeaders } from './signing.ts'
import { isForbiddenAddress, publicOnlyLookup } from './ssrf.ts'

export const deliveryTimeoutMs = 10_000
/** Longer than a delivery can take, so a live claim is never taken over mid-send. */
const leaseMs = 3 * deliveryTimeoutMs
const batchSize = 16

// Sandbox callbacks may target a developer's own machine; live ones reach public addresses only.
const sandboxAgent = new Agent({ connect: { timeout: deliveryTimeoutMs } })
const liveAgent = new Agent({ connect: { timeout: deliveryTimeoutMs, lookup: publicOnlyLookup } })

/** What the dispatcher needs, and nothing of the app: the outbox, time, a log, and the merchant's signing secrets per mode. */
export interface DispatcherDependencies {
  outbox: Pick<OutboxRepository, 'claimDue' | 'recordAttempt'>
  clock: Clock
  logger: Logger
  signingSecrets(merchantId: string, mode: Mode): Promise<string[]>
}

/**
 * Claims the events that are due and not leased, and delivers them. Instances sharing a database
 * never take the same event; an instance that dies mid-send loses its lease and another delivers
 * after it expires. One operation's events go out in the order it took its statuses: the outbox
 * lets an event be claimed only once every earlier one of its operation is done (delivered,
 * stopped or given up), and a delivery that is done claims its operation's next event at once.
 * Operations run side by side: one that waits for a retry holds no other back.
 */
export async function deliverDueEvents(dependencies: DispatcherDependencies, owner: string): Promise<number> {
  const claimed = await dependencies.outbox.claimDue(owner, dependencies.clock.nowUs(), leaseMs, batchSize)
  const handled = await Promise.all(
    claimed
      .sort((a, b) => a.position - b.position)
      .map((event) => deliverInOrder(dependencies, event, owner)),
  )
  return handled.reduce((sum, count) => sum + count, 0)
}

/** Delivers the event, then each next event of its operation that this delivery let through. */
async function deliverInOrder(
  dependencies: DispatcherDependencies,
  first: ClaimedEvent,
  owner: string,
): Promise<number> {
  let handled = 0
  let event: ClaimedEvent | undefined = first
  while (event) {
    handled++
    if (!(await deliver(dependencies, event, owner))) break
    const nowUs = dependencies.clock.nowUs()
    ;[event] = await dependencies.outbox.claimDue(owner, nowUs, leaseMs, 1, event.operationId)
  }
  return handled
}

interface AttemptResult {
  statusCode: number | null
  error: string | null
}

/** What a delivery sends: the exact body, signed by the secrets of the event's mode. */
export interface SignedDelivery {
  url: string
  body: string
  headers: Record<string, string>
}

/** The request that delivers the event, signed at `timestampSeconds` (the wall-clock time of sending). */
export async function signedDelivery(
  dependencies: Pick<DispatcherDependencies, 'signingSecrets'>,
  event: Pick<ClaimedEvent, 'id' | 'merchantId' | 'mode' | 'payload' | 'callbackUrl'>,
  timestampSeconds: number,
): Promise<SignedDelivery | undefined> {
  if (!event.callbackUrl) return undefined
  const secrets = await dependencies.signingSecrets(event.merchantId, event.mode)
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'Sika-Webhooks/1',
    ...signatureHeaders(event.id, timestampSeconds, event.payload, secrets),
  }
  return { url: event.callbackUrl, body: event.payload, headers }
}

/** One attempt, recorded; true when the event is done with (delivered, stopped or given up). */
async function deliver(
  dependencies: DispatcherDependencies,
  event: ClaimedEvent,
  owner: string,
): Promise<boolean> {
  // Receivers compare the signature's timestamp with their own clock: it is the wall-clock time.
  const request = await signedDelivery(dependencies, event, Math.floor(Date.now() / 1000))
  if (!request) return true
  const startedAtUs = dependencies.clock.nowUs()
  const started = performance.now()
  const result = await post(request.url, request.body, request.headers, event.mode === 'live')
  const durationMs = Math.round(performance.now() - started)
  return recordAttempt(dependencies, event, owner, startedAtUs, durationMs, result)
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
  dependencies: DispatcherDependencies,
  event: ClaimedEvent,
  owner: string,
  startedAtUs: number,
  durationMs: number,
  result: AttemptResult,
): Promise<boolean> {
  const number = event.attempts + 1
  const now = dependencies.clock.nowUs()
  const delivered = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300
  const gone = result.statusCode === 410
  const retryInMs = delivered || gone ? undefined : nextRetryDelayMs(number)
  const outcome = delivered ? 'delivered' : gone ? 'stopped' : retryInMs === undefined ? 'given_up' : 'retry'
  await dependencies.outbox.recordAttempt(event, owner, {
    number,
    startedAtUs,
    durationMs,
    statusCode: result.statusCode,
    error: result.error,
    outcome,
    deliveryStatus: outcome === 'retry' ? 'pending' : outcome,
    nextAttemptAtUs: retryInMs === undefined ? null : now + retryInMs * 1000,
    deliveredAtUs: delivered ? now : null,
  })
  if (!delivered) {
    dependencies.logger.info(
      { eventId: event.id, attempt: number, statusCode: result.statusCode, error: result.error, outcome },
      'callback not delivered',
    )
  }
  return outcome !== 'retry'
}
