import type { RecordedRequest } from '../simulator.ts'
import { Timers } from '../timers.ts'
import type { Accounts } from './accounts.ts'
import type { CallbackSender } from './callbacks.ts'
import type { SimulatorConfig } from './config.ts'
import type { Ledger } from './ledger.ts'
import type { TokenStore } from './tokens.ts'

export { Timers }

/** Everything one running simulator holds. */
export interface SimulatorState {
  readonly config: SimulatorConfig
  readonly tokens: TokenStore
  readonly ledger: Ledger
  /** The partner's account of each product: what the balance endpoint reads. */
  readonly accounts: Accounts
  readonly callbacks: CallbackSender
  readonly timers: Timers
  readonly requests: RecordedRequest[]
  /** http://host:port once listening. */
  url: string
}
