import { isIP } from 'node:net'
import type { Logger } from 'pino'
import { Agent } from 'undici'
import type { Clock } from '../domain/clock.ts'
import type { Mode } from '../domain/kinds.ts'
import type {
  ClaimedEvent,
  EndedAttempt,
  OutboxRepository,
  ParkTarget,
} from '../store/repositories/outbox.ts'
import { createBoundedMemo } from './bounded-memo.ts'
import {
  type CircuitChange,
  type EndpointCircuits,
  type EndpointVerdict,
  endpointOf,
  longestHoldMs,
} from './circuit.ts'
import { nextRetryDelayMs, scheduledAttemptAtUs } from './retry-schedule.ts'
import { signatureHeaders } from './signing.ts'
import { anyAddressLookup, isForbiddenAddress, publicOnlyLookup } from './ssrf.ts'

export const deliveryTimeoutMs = 10_000
/** Longer than a delivery can take, waiting for an endpoint's probe included, so a live claim is never taken over mid-send. */
export const leaseMs = 3 * deliveryTimeoutMs

// Sandbox callbacks may target a developer's own machine; live ones reach public addresses only.
// Both resolve hosts off libuv's thread pool (host-resolver.ts).
const sandboxAgent = new Agent({ connect: { timeout: deliveryTimeoutMs, lookup: anyAddressLookup } })
const liveAgent = new Agent({ connect: { timeout: deliveryTimeoutMs, lookup: publicOnlyLookup } })

/** What the dispatcher needs, and nothing of the app: the outbox, time, a log, and the merchant's signing secrets per mode. */
export interface DispatcherDependencies {
  outbox: Pick<OutboxRepository, 'claimDue' | 'defer' | 'park'> & {
    /** Records the attempt; once its event is done, returns its operation's next event, claimed, if one is due. */
    recordAttempt(ended: EndedAttempt): Promise<ClaimedEvent | undefined>
    /**
     * Runs a claim's two statements (which merchants have events due, then their events)
     * together: where commits are grouped (SQLite), in one transaction, so that the claim waits
     * for one sync to disk, not one for its read and another for its write.
     */
    claimTogether<T>(claim: (outbox: ClaimingOutbox) => Promise<T>): Promise<T>
  }
  clock: Clock
  logger: Logger
  signingSecrets(merchantId: string, mode: Mode): Promise<string[]>
}

/** What a claim of due events in turn reads and writes. */
export type ClaimingOutbox = Pick<OutboxRepository, 'pendingMerchants' | 'claimDueOf'>

/** One instance's delivery: its dependencies, the name its leases carry, and its endpoints' circuits. */
export interface Delivery {
  readonly dependencies: DispatcherDependencies
  readonly owner: string
  /** Without them every event claimed is sent (`Workers.runDue`: everything due, once). */
  readonly circuits?: EndpointCircuits
  /** Hears how long each request sent took, and whether it was answered. */
  readonly attempted?: (durationMs: number, answered: boolean) => void
  /**
   * Asked as an attempt is recorded: whether the operation's next event, if one is due, is to be
   * claimed with the record (the default) or left due for a later claim (`EndedAttempt.claimNext`).
   */
  readonly takesNext?: () => boolean
}

/**
 * Where delivery sends an event, as it tells receivers apart: the callback URL's origin (its
 * endpoint), for one merchant in one mode. Each has its own circuit and its own share of the
 * pool: a merchant whose callbacks go to an origin another merchant uses (one that answers 500 to
 * the paths it is sent, say) can open no circuit but its own, and sandbox none of live's.
 */
export interface Destination extends ParkTarget {
  /** The three in one string: the key of its circuit, and of its load in the pool. */
  readonly key: string
}

export function destinationOf(event: Pick<ClaimedEvent, 'mode' | 'merchantId' | 'callbackUrl'>): Destination {
  const endpoint = event.callbackUrl ? endpointOf(event.callbackUrl) : ''
  const { mode, merchantId } = event
  return { mode, merchantId, endpoint, key: `${mode} ${merchantId} ${endpoint}` }
}

/**
 * Claims up to `limit` events that are due and not leased, and delivers them side by side (one
 * pass: `Workers.runDue`). Instances sharing a database never take the same event; an instance
 * that dies mid-send loses its lease and another delivers after it expires. One operation's
 * events go out in the order it took its statuses: the outbox lets an event be claimed only once
 * every earlier one of its operation is done (delivered, stopped or given up), and a delivery
 * that is done claims its operation's next event at once. Operations run side by side: one that
 * waits for a retry holds no other back.
 */
export async function deliverDueEvents(delivery: Delivery, limit: number): Promise<number> {
  const { dependencies, owner } = delivery
  const claimed = await dependencies.outbox.claimDue(owner, dependencies.clock.nowUs(), leaseMs, limit)
  const handled = await Promise.all(
    claimed.sort((a, b) => a.position - b.position).map((event) => deliverInOrder(delivery, event)),
  )
  return handled.reduce((sum, count) => sum + count, 0)
}

/** Delivers the event, then each next event of its operation that this delivery let through. */
export async function deliverInOrder(delivery: Delivery, first: ClaimedEvent): Promise<number> {
  let handled = 0
  let event: ClaimedEvent | undefined = first
  while (event) {
    handled++
    event = await deliverThroughCircuit(delivery, event)
  }
  return handled
}

/**
 * Sends the event unless its endpoint's circuit is open (then it goes back to the outbox unsent,
 * due when the endpoint may be tried again), or it is already held `longestHoldMs` past its
 * scheduled time. Once the event is done with, its operation's next event, claimed, if one is due.
 */
export async function deliverThroughCircuit(
  delivery: Delivery,
  event: ClaimedEvent,
): Promise<ClaimedEvent | undefined> {
  const { dependencies, circuits, owner } = delivery
  if (!event.callbackUrl) return deliver(delivery, event, () => {})
  const destination = destinationOf(event)
  const heldTooLong = dependencies.clock.nowUs() >= scheduledAttemptAtUs(event) + longestHoldMs * 1000
  const gated = circuits && !heldTooLong
  const deferUntilUs = gated
    ? await circuitDeferral(circuits, dependencies.clock, destination.key, event)
    : undefined
  if (deferUntilUs !== undefined) {
    await dependencies.outbox.defer([{ event, untilUs: deferUntilUs }], owner)
    return undefined
  }
  // The circuit hears the verdict as soon as the request ends, before the attempt is recorded
  // and before the endpoint's slot frees: the endpoint's next request is sent knowing it.
  let judged = false
  let parking: Promise<number> | undefined
  const judge = (verdict: EndpointVerdict) => {
    if (judged) return
    judged = true
    const change = circuits?.record(destination.key, event.id, verdict, dependencies.clock.nowUs())
    logCircuitChange(dependencies.logger, destination, change)
    // Its due backlog waits for the end of the cool-down in a statement a chunk, not a claim and a
    // give-back each. All of it is due again at once, as the circuit's own deferrals are (within
    // a tenth of the cool-down): the probe goes first and the rest wait for its answer. Spread
    // out, they would come due one by one while the circuit is open, each deferred alone.
    const untilUs =
      change === 'opened' || change === 'reopened' ? circuits?.deferredUntilUs(destination.key) : undefined
    if (untilUs !== undefined) parking = parkBacklog(dependencies, destination, untilUs, 0)
  }
  const started = performance.now()
  try {
    return await deliver(delivery, event, (verdict) => {
      judge(verdict)
      delivery.attempted?.(performance.now() - started, verdict === 'answered')
    })
  } finally {
    judge('not-reached')
    await parking
  }
}

/** A backlog of more than this many is left to the claims: a park does not run for ever. */
const parkedAtMost = 102_400

/**
 * Gives the destination's due backlog later turns (`OutboxRepository.park`, a statement a chunk),
 * from `fromUs`, one every `stepUs`; resolves with how many, and logs rather than throws when the
 * store fails (the events are then claimed and given back one by one, as without a park).
 */
export async function parkBacklog(
  dependencies: Pick<DispatcherDependencies, 'outbox' | 'clock' | 'logger'>,
  destination: ParkTarget,
  fromUs: number,
  stepUs: number,
): Promise<number> {
  const { mode, merchantId, endpoint } = destination
  try {
    const turn = { fromUs, stepUs, holdUs: longestHoldMs * 1000 }
    const target = { mode, merchantId, endpoint }
    return await dependencies.outbox.park(target, dependencies.clock.nowUs(), turn, parkedAtMost)
  } catch (error) {
    dependencies.logger.error({ err: error, merchantId, endpoint }, 'could not park an endpoint’s callbacks')
    return 0
  }
}

/** Undefined when the event may go now; otherwise when it is due again. Waits for a probe at most once. */
async function circuitDeferral(
  circuits: EndpointCircuits,
  clock: Clock,
  endpoint: string,
  event: ClaimedEvent,
): Promise<number | undefined> {
  let decision = circuits.admit(endpoint, event.id, clock.nowUs())
  if (decision.kind === 'wait') {
    await decision.probe
    decision = circuits.admit(endpoint, event.id, clock.nowUs())
  }
  if (decision.kind === 'send') return undefined
  if (decision.kind === 'defer') return decision.untilUs
  // Another probe is out already: try again once it can have been answered.
  return clock.nowUs() + deliveryTimeoutMs * 1000
}

function logCircuitChange(logger: Logger, destination: Destination, change: CircuitChange): void {
  const { mode, merchantId, endpoint } = destination
  if (change === 'closed')
    logger.info({ endpoint, merchantId, mode }, 'callback endpoint answers again: circuit closed')
  else if (change)
    logger.warn(
      { endpoint, merchantId, mode, change },
      'callback endpoint failing: circuit open, its events wait unsent',
    )
}

export interface AttemptResult {
  statusCode: number | null
  error: string | null
  /** What the attempt says of the endpoint, for its circuit. */
  verdict: EndpointVerdict
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

/**
 * One attempt, recorded; once the event is done with (delivered, stopped or given up), its
 * operation's next event, claimed, if one is due. `judged` hears what the attempt said of the
 * endpoint as soon as it is known.
 */
async function deliver(
  delivery: Delivery,
  event: ClaimedEvent,
  judged: (verdict: EndpointVerdict) => void,
): Promise<ClaimedEvent | undefined> {
  const { dependencies, owner } = delivery
  // Receivers compare the signature's timestamp with their own clock: it is the wall-clock time.
  const request = await signedDelivery(dependencies, event, Math.floor(Date.now() / 1000))
  if (!request) {
    const nowUs = dependencies.clock.nowUs()
    const { operationId, payoutBatchId } = event
    return (await dependencies.outbox.claimDue(owner, nowUs, leaseMs, 1, { operationId, payoutBatchId }))[0]
  }
  const startedAtUs = dependencies.clock.nowUs()
  const started = performance.now()
  const result = await post(request.url, request.body, request.headers, event.mode === 'live')
  const durationMs = Math.round(performance.now() - started)
  judged(result.verdict)
  return recordAttempt(delivery, event, startedAtUs, durationMs, result)
}

/** One signed POST, as a delivery sends it: live ones reach public addresses only; no redirect followed. */
export async function post(
  url: string,
  body: string,
  headers: Record<string, string>,
  live: boolean,
): Promise<AttemptResult> {
  // A timer cleared when the attempt ends, not AbortSignal.timeout: that costs more to make, and
  // its timer cannot be cleared, so one per callback sent stays armed for the whole limit after
  // the answer.
  const deadline = new AbortController()
  const timer = setTimeout(() => deadline.abort(timeoutReason()), deliveryTimeoutMs)
  try {
    const { origin, path, host } = targetOf(url)
    if (live && isIP(host) && isForbiddenAddress(host))
      return { statusCode: null, error: `${host} is not a public address`, verdict: 'not-reached' }
    // undici's request follows no redirects: a 3xx is an answer like any other non-2xx.
    const response = await (live ? liveAgent : sandboxAgent).request({
      origin,
      path,
      method: 'POST',
      body,
      headers,
      signal: deadline.signal,
    })
    await response.body.dump()
    const { statusCode } = response
    const failing = statusCode >= 500 || statusCode === 429
    return { statusCode, error: null, verdict: failing ? 'failed' : 'answered' }
  } catch (error) {
    if (!(error instanceof Error))
      return { statusCode: null, error: String(error).slice(0, 500), verdict: 'failed' }
    // Node's errors carry a string code (ECONNREFUSED); a DOMException a number nobody reads.
    const { code } = error as { code?: unknown }
    const reason = `${typeof code === 'string' ? code : error.name}: ${error.message}`
    // A live callback to a name that resolves to internal addresses is refused before connecting.
    const verdict = code === 'ESSRF' ? 'not-reached' : 'failed'
    return { statusCode: null, error: reason.slice(0, 500), verdict }
  } finally {
    clearTimeout(timer)
  }
}

const timeoutReason = () => new DOMException(`no answer within ${deliveryTimeoutMs / 1000} s`, 'TimeoutError')

/** Where a callback URL is sent, as undici's dispatcher takes it: its origin and path, and its host for the live check. */
interface Target {
  origin: string
  path: string
  host: string
}

/** Throws on a URL that does not parse: the attempt then fails with the reason. Each URL is split once. */
const targetOf = createBoundedMemo((url: string): Target => {
  const parsed = new URL(url)
  const host = parsed.hostname.replace(/^\[|\]$/g, '')
  return { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}`, host }
}, 1024)

async function recordAttempt(
  { dependencies, owner, takesNext }: Delivery,
  event: ClaimedEvent,
  startedAtUs: number,
  durationMs: number,
  result: AttemptResult,
): Promise<ClaimedEvent | undefined> {
  const number = event.attempts + 1
  const now = dependencies.clock.nowUs()
  const delivered = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300
  const gone = result.statusCode === 410
  const retryInMs = delivered || gone ? undefined : nextRetryDelayMs(number)
  const outcome = delivered ? 'delivered' : gone ? 'stopped' : retryInMs === undefined ? 'given_up' : 'retry'
  const next = await dependencies.outbox.recordAttempt({
    event,
    owner,
    claimNext: takesNext?.() ?? true,
    attempt: {
      number,
      startedAtUs,
      durationMs,
      statusCode: result.statusCode,
      error: result.error,
      outcome,
      deliveryStatus: outcome === 'retry' ? 'pending' : outcome,
      nextAttemptAtUs: retryInMs === undefined ? null : now + retryInMs * 1000,
      deliveredAtUs: delivered ? now : null,
    },
  })
  if (!delivered) {
    dependencies.logger.info(
      { eventId: event.id, attempt: number, statusCode: result.statusCode, error: result.error, outcome },
      'callback not delivered',
    )
  }
  return next
}
