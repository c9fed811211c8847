import type { IncomingMessage, ServerResponse } from 'node:http'
import type { RecordedRequest } from '../simulator.ts'
import type { CheckoutStore } from './checkout-store.ts'
import type { SimulatorConfig } from './config.ts'
import type { PayoutStore } from './payout-store.ts'
import type { WebhookSender } from './webhooks.ts'

/** Timers that never hold the process open and that close() clears together. */
export class Timers {
  private readonly pending = new Set<NodeJS.Timeout>()

  after(delayMs: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.pending.delete(timer)
      run()
    }, delayMs)
    timer.unref()
    this.pending.add(timer)
  }

  clear(): void {
    for (const timer of this.pending) clearTimeout(timer)
    this.pending.clear()
  }
}

/** Everything one running simulator holds. */
export interface SimulatorState {
  readonly config: SimulatorConfig
  readonly checkout: CheckoutStore
  readonly payouts: PayoutStore
  readonly webhooks: WebhookSender
  readonly timers: Timers
  readonly requests: RecordedRequest[]
  /** Set by the control path that revokes the API key: every call then answers `api-key-revoked`. */
  apiKeyRevoked: boolean
  /** http://host:port once listening. */
  url: string
}

/** One request, once its body has been read. */
export interface Exchange {
  readonly request: IncomingMessage
  readonly response: ServerResponse
  readonly path: string
  readonly body: string
}
