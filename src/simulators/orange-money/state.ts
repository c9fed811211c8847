import type { RecordedRequest } from '../simulator.ts'
import { Timers } from '../timers.ts'
import type { SimulatorConfig } from './config.ts'
import type { NotificationSender } from './notifications.ts'
import type { PaymentBook } from './payments.ts'
import type { TokenStore } from './tokens.ts'

export { Timers }

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
