import type { RecordedRequest } from '../simulator.ts'
import type { SimulatorConfig } from './config.ts'
import type { NotificationSender } from './notifications.ts'
import type { PaymentBook } from './payments.ts'
import type { TokenStore } from './tokens.ts'

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
  readonly tokens: TokenStore
  readonly payments: PaymentBook
  readonly notifications: NotificationSender
  readonly timers: Timers
  readonly requests: RecordedRequest[]
  /** http://host:port once listening. */
  url: string
}
