/**
 * Operator simulators: real HTTP servers on 127.0.0.1 that behave as the operators' published
 * APIs say they do, so Sika's adapters can be proven without reaching an operator. Each one is
 * written from the operator's published documentation and SDKs, never from Sika's adapters: it
 * imports nothing from src/providers, so a misreading in an adapter cannot hide in its simulator.
 */

export type SimulatorName = 'mtn-momo' | 'wave' | 'orange-money' | 'pawapay'

/** One HTTP request the simulator received, as it arrived. */
export interface RecordedRequest {
  method: string
  /** Path and query, as sent. */
  url: string
  headers: Record<string, string | string[] | undefined>
  /** The raw body, as text. */
  body: string
  receivedAtMs: number
}

/** One callback (webhook, notification) the simulator sent, and how the receiver answered. */
export interface SentCallback {
  url: string
  method: string
  headers: Record<string, string>
  body: string
  /** The receiver's status, or undefined when it could not be reached. */
  status: number | undefined
  sentAtMs: number
}

export interface SimulatorOptions {
  /** 0 (the default) picks a free port. */
  port?: number
  /** Always 127.0.0.1 unless a person asks otherwise. */
  host?: string
  /** How long an asynchronous outcome takes to settle (default 1000 ms). */
  settleDelayMs?: number
  /** How long the "answers too late" test number (107) keeps a request waiting (default 15000 ms). */
  hangMs?: number
  /** Lifetime of the access tokens it issues (default: the operator's own, e.g. 3600 s). */
  tokenLifetimeSeconds?: number
  /**
   * Where the simulator POSTs webhooks when the operator's API takes the address from a
   * dashboard rather than from each request (Wave, pawaPay). MTN and Orange take it per request.
   */
  webhookUrl?: string
}

export interface RunningSimulator {
  readonly name: SimulatorName
  /** http://127.0.0.1:<port>, the operator's base URL. */
  readonly url: string
  /**
   * A `connections` entry of Sika's OPERATORS_FILE (CONTRACT.md, Operators) that connects to this
   * simulator with credentials it accepts, for the given channel and countries.
   */
  connection(channel: string, countries: readonly string[]): Record<string, unknown>
  /** Every request received, in order of arrival (the /_simulator control paths included). */
  readonly requests: readonly RecordedRequest[]
  /** Every callback sent, in order. */
  readonly callbacks: readonly SentCallback[]
  /** Makes every access token issued so far invalid: the next call with one answers 401. */
  expireAccessTokens(): void
  close(): Promise<void>
}

/**
 * The `id` a simulator's connection entry carries: its channel and countries (`moov-money-bj`),
 * unique in any OPERATORS_FILE, as one channel and country is served by one connection only.
 */
export function connectionId(channel: string, countries: readonly string[]): string {
  return [channel, ...countries].join('-').toLowerCase()
}
