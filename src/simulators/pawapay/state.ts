import type { RecordedRequest } from '../simulator.ts'
import { Timers } from '../timers.ts'
import type { CallbackSender } from './callbacks.ts'
import type { SimulatorConfig } from './config.ts'
import type { Ledger } from './ledger.ts'
import type { Receipts } from './receipts.ts'
import type { CallbackSigner } from './signing.ts'
import type { Statements } from './statements.ts'
import type { ApiTokens } from './tokens.ts'
import type { Wallets } from './wallets.ts'

export { Timers }

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
  /** Bulk request sizes and each id's acceptances, for the control paths. */
  readonly receipts: Receipts
  /** The merchant's wallets, one per country and currency, with their books. */
  readonly wallets: Wallets
  /** Every statement asked for, and its file once generated. */
  readonly statements: Statements
  /** While true, every new payout stays ENQUEUED (its provider "delayed") until released. */
  holdPayouts: boolean
  /** http://host:port once listening. */
  url: string
}
