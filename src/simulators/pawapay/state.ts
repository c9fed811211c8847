import type { RecordedRequest } from '../simulator.ts'
import type { CallbackSender } from './callbacks.ts'
import type { SimulatorConfig } from './config.ts'
import type { Ledger } from './ledger.ts'
import type { CallbackSigner } from './signing.ts'
import type { ApiTokens } from './tokens.ts'

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
  readonly tokens: ApiTokens
  readonly ledger: Ledger
  readonly callbacks: CallbackSender
  /** The key callbacks are signed with, when signing is on; its public half is always served. */
  readonly signer: CallbackSigner
  readonly timers: Timers
  readonly requests: RecordedRequest[]
  /** http://host:port once listening. */
  url: string
}
