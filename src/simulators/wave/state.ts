import type { RecordedRequest } from '../simulator.ts'
import { Timers } from '../timers.ts'
import type { WalletBook } from '../wallet-book.ts'
import type { CheckoutStore } from './checkout-store.ts'
import type { SimulatorConfig } from './config.ts'
import type { PayoutStore } from './payout-store.ts'
import type { WalletLine } from './wallet.ts'
import type { WebhookSender } from './webhooks.ts'

export { Timers }

/** Everything one running simulator holds. */
export interface SimulatorState {
  readonly config: SimulatorConfig
  readonly checkout: CheckoutStore
  readonly payouts: PayoutStore
  /** The business wallet's books: what GET /v1/balance and GET /v1/transactions read. */
  readonly wallet: WalletBook<WalletLine>
  readonly webhooks: WebhookSender
  readonly timers: Timers
  readonly requests: RecordedRequest[]
  /** Set by the control path that revokes the API key: every call then answers `api-key-revoked`. */
  apiKeyRevoked: boolean
  /** http://host:port once listening. */
  url: string
}

import type { Exchange } from '../http-io.ts'

export type { Exchange }
