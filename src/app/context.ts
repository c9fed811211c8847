import type { Redis } from 'ioredis'
import type { Logger } from 'pino'
import type { Config } from '../config.ts'
import type { Clock } from '../domain/clock.ts'
import type { Metrics } from '../observability/metrics.ts'
import type { ProviderRegistry } from '../providers/registry.ts'
import type { Store } from '../store/store.ts'
import type { SecretBox } from './credentials.ts'
import type { CredentialCache, MerchantControlsCache } from './mechanisms/credential-cache.ts'
import type { LongWorkTurns } from './mechanisms/long-work-turns.ts'
import type { MerchantGroupCommit } from './mechanisms/merchant-group-commit.ts'
import type { OpeningNumbers } from './mechanisms/opening-numbers.ts'
import type { OperatorBalances } from './mechanisms/operator-balances.ts'
import type { PasswordWork } from './mechanisms/password-work.ts'
import type { PayoutBatchLine } from './mechanisms/payout-batch-line.ts'
import type { PricingRulesCache } from './mechanisms/pricing-rules-cache.ts'
import type { SideChecks } from './mechanisms/side-checks.ts'
import type { SigningSecretCache } from './mechanisms/signing-secret-cache.ts'
import type { StatementSlots } from './mechanisms/statement-slots.ts'

/** What every use case needs, built once in main and passed down. The store offers repositories and transactions, never a database handle. */
export interface AppContext {
  readonly config: Config
  readonly store: Store
  readonly clock: Clock
  readonly secrets: SecretBox
  readonly providers: ProviderRegistry
  readonly logger: Logger
  /** This instance's Prometheus registry (GET /metrics); each context has its own. */
  readonly metrics: Metrics
  /** Each api-key's credential as authentication last read it, fresh for at most 500 ms. */
  readonly credentials: CredentialCache
  /** The platform's controls of each merchant and mode read for a principal no api-key proved, fresh for at most 500 ms. */
  readonly merchantControls: MerchantControlsCache
  /** Each merchant's signing secrets per mode as a delivery last read them, fresh for at most 500 ms. */
  readonly signingSecrets: SigningSecretCache
  /** The route and fee rule of each side priced, fresh for at most 500 ms. */
  readonly pricingRules: PricingRulesCache
  /** One merchant's initiations committed together, on a store that commits each transaction alone. */
  readonly merchantGroupCommit: MerchantGroupCommit
  /** What the last opening of each sort wanted of the ledger and event counters, taken with its position. */
  readonly openingNumbers: OpeningNumbers
  /** Each live side's submission in flight on this instance, and its status checks (at most one a second). */
  readonly sideChecks: SideChecks
  /** Long work (statements and exports, a payout batch's pricing and writes), a turn at a time, shared fairly. */
  readonly longWork: LongWorkTurns
  /** The payout batches each merchant and mode has being accepted, or waiting to be, on this instance. */
  readonly payoutBatchLine: PayoutBatchLine
  /** The statements each merchant and mode is streaming on this instance. */
  readonly statementSlots: StatementSlots
  /** The argon2id hashes this instance runs at once, and those waiting their turn (sign-ins, passwords set). */
  readonly passwordWork: PasswordWork
  /** Each live connection's balances as its operator last gave them on this instance, read at most once a minute. */
  readonly operatorBalances: OperatorBalances
  /** The client of REDIS_URL (closed with the store by closeContext), used by the HTTP rate limiter alone. */
  readonly redis: Redis | undefined
  /** The migrations this process applied when it opened the store (usually none). */
  readonly appliedMigrations: readonly string[]
}
