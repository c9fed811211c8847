import { createBoundedMemo } from './bounded-memo.ts'

/**
 * A circuit per callback endpoint (the origin of the callback URL: scheme, host and port), kept in
 * memory by each instance. After `failureThreshold` failed attempts in a row (no answer within the
 * delivery timeout, no connection, a 5xx or a 429) the circuit opens: the endpoint's events are
 * given back to the outbox unsent, due again when it may be tried (no attempt is spent, so each
 * event's attempts stay the requests really sent, on CONTRACT.md's schedule; none is held more
 * than `longestHoldMs` past its scheduled time). Once the cool-down
 * has passed, one attempt goes through as a probe while the endpoint's other events wait for its
 * answer: an answer closes the circuit and they go at once; a failure opens it again for twice as
 * long, up to `maxCooldownMs`. So a dead endpoint costs one request in flight now and then, not
 * a share of the deliveries of everybody else.
 */

export interface CircuitSettings {
  /** Failed attempts in a row, with no answer in between, that open an endpoint's circuit. */
  readonly failureThreshold: number
  /** How long a circuit stays open the first time; doubled after each failed probe. */
  readonly cooldownMs: number
  readonly maxCooldownMs: number
  /** Longer than a delivery can take: a probe not answered by then no longer holds the others. */
  readonly probeWindowMs: number
}

export const defaultCircuitSettings: CircuitSettings = {
  failureThreshold: 3,
  cooldownMs: 5_000,
  maxCooldownMs: 5 * 60_000,
  probeWindowMs: 15_000,
}

/**
 * The longest an open circuit holds an event back beyond the time CONTRACT.md's schedule gives
 * its next attempt (`scheduledAttemptAtUs`); past it the event is attempted whatever the circuit
 * says, so an endpoint that stays dead still has each event tried ten times, then given up, on
 * the schedule (shifted by this at most).
 */
export const longestHoldMs = defaultCircuitSettings.maxCooldownMs

/**
 * What one attempt says of its endpoint: it answered (any 2xx, 3xx or 4xx but 429: it is there
 * and decides), it failed (nothing, a 5xx or a 429), or nothing (the attempt was refused before
 * any request, as a live callback to an internal address is).
 */
export type EndpointVerdict = 'answered' | 'failed' | 'not-reached'

/** Whether an event may be sent now, must wait for a probe's answer, or goes back to the outbox until `untilUs`. */
export type CircuitDecision =
  | { readonly kind: 'send' }
  | { readonly kind: 'wait'; readonly probe: Promise<void> }
  | { readonly kind: 'defer'; readonly untilUs: number }

/** A change worth a log line. */
export type CircuitChange = 'opened' | 'reopened' | 'closed' | undefined

interface Circuit {
  failures: number
  /** Set while open: nothing is sent before it, then one probe. */
  openUntilUs: number | undefined
  cooldownMs: number
  probe: { eventId: string; sinceUs: number; settled: Promise<void>; settle(): void } | undefined
}

/** Ten per cent at most, like the retry schedule's: deferred events do not all come back together. */
const jitterRatio = 0.1

export class EndpointCircuits {
  private readonly circuits = new Map<string, Circuit>()

  constructor(
    private readonly settings: CircuitSettings = defaultCircuitSettings,
    private readonly random: () => number = Math.random,
  ) {}

  /** Decides for one event about to be sent to `endpoint`; the caller records the attempt's verdict if it sends. */
  admit(endpoint: string, eventId: string, nowUs: number): CircuitDecision {
    const circuit = this.circuits.get(endpoint)
    if (circuit?.openUntilUs === undefined) return { kind: 'send' }
    if (nowUs < circuit.openUntilUs)
      return { kind: 'defer', untilUs: this.spread(circuit.openUntilUs, circuit) }
    const probe = circuit.probe
    if (probe && nowUs - probe.sinceUs < this.settings.probeWindowMs * 1000) {
      return { kind: 'wait', probe: probe.settled }
    }
    probe?.settle()
    circuit.probe = newProbe(eventId, nowUs, this.settings.probeWindowMs)
    return { kind: 'send' }
  }

  /** While the endpoint's circuit is open, when an event deferred now is due again (as `admit` says). */
  deferredUntilUs(endpoint: string): number | undefined {
    const circuit = this.circuits.get(endpoint)
    return circuit?.openUntilUs === undefined ? undefined : this.spread(circuit.openUntilUs, circuit)
  }

  /** Takes the verdict of an attempt that was admitted; says when the circuit opened or closed. */
  record(endpoint: string, eventId: string, verdict: EndpointVerdict, nowUs: number): CircuitChange {
    const circuit = this.circuits.get(endpoint)
    const wasProbe = circuit?.probe?.eventId === eventId
    if (wasProbe) circuit?.probe?.settle()
    if (verdict === 'answered') {
      if (!circuit) return undefined
      this.circuits.delete(endpoint)
      return circuit.openUntilUs === undefined ? undefined : 'closed'
    }
    if (verdict === 'not-reached') {
      if (circuit && wasProbe) circuit.probe = undefined
      return undefined
    }
    return this.failed(endpoint, circuit, wasProbe, nowUs)
  }

  private failed(
    endpoint: string,
    known: Circuit | undefined,
    wasProbe: boolean,
    nowUs: number,
  ): CircuitChange {
    const circuit = known ?? { failures: 0, openUntilUs: undefined, cooldownMs: 0, probe: undefined }
    this.circuits.set(endpoint, circuit)
    circuit.failures++
    if (wasProbe) {
      circuit.probe = undefined
      circuit.cooldownMs = Math.min(circuit.cooldownMs * 2, this.settings.maxCooldownMs)
      circuit.openUntilUs = nowUs + circuit.cooldownMs * 1000
      return 'reopened'
    }
    // Attempts already in flight when it opened fail too: they neither reopen it nor lengthen it.
    if (circuit.openUntilUs !== undefined || circuit.failures < this.settings.failureThreshold)
      return undefined
    circuit.cooldownMs = this.settings.cooldownMs
    circuit.openUntilUs = nowUs + circuit.cooldownMs * 1000
    return 'opened'
  }

  private spread(untilUs: number, circuit: Circuit): number {
    return untilUs + Math.round(circuit.cooldownMs * 1000 * jitterRatio * this.random())
  }
}

function newProbe(eventId: string, sinceUs: number, windowMs: number): NonNullable<Circuit['probe']> {
  let settle = () => {}
  const settled = new Promise<void>((resolve) => {
    // Those waiting for it are let go after the window even if it never settles.
    const timer = setTimeout(resolve, windowMs)
    timer.unref()
    settle = () => {
      clearTimeout(timer)
      resolve()
    }
  })
  return { eventId, sinceUs, settled, settle }
}

/** The endpoint a callback URL is delivered to: its origin, or the URL itself if it has none. */
export const endpointOf = createBoundedMemo((callbackUrl: string): string => {
  try {
    const { origin } = new URL(callbackUrl)
    return origin === 'null' ? callbackUrl : origin
  } catch {
    return callbackUrl
  }
}, 1024)
