import type { Logger } from 'pino'
import { type Config, ConfigError } from '../config.ts'
import { type Clock, systemClock } from '../domain/clock.ts'
import { createMetrics, type Metrics } from '../observability/metrics.ts'
import { liveConnections } from '../providers/live-adapters.ts'
import { OperatorsFileError } from '../providers/operators-file.ts'
import { createProviderRegistry, type LiveConnection } from '../providers/registry.ts'
import { createSandboxAdapter } from '../providers/sandbox/sandbox-adapter.ts'
import type { StoreSpeedMechanism } from '../store/dialect.ts'
import { migrate, openStore } from '../store/store.ts'
import type { WriterTurns } from '../store/writer-turns.ts'
import { balanceFigures } from './console/operator-accounts.ts'
import type { AppContext } from './context.ts'
import type { SecretBox } from './credentials.ts'
import { createCredentialCache, createMerchantControlsCache } from './mechanisms/credential-cache.ts'
import { LongWorkTurns } from './mechanisms/long-work-turns.ts'
import { MerchantGroupCommit } from './mechanisms/merchant-group-commit.ts'
import { OpeningNumbers } from './mechanisms/opening-numbers.ts'
import { OperatorBalances } from './mechanisms/operator-balances.ts'
import { PasswordWork } from './mechanisms/password-work.ts'
import { PayoutBatchLine } from './mechanisms/payout-batch-line.ts'
import { createPricingRulesCache } from './mechanisms/pricing-rules-cache.ts'
import { createRedisClient } from './mechanisms/redis-client.ts'
import { SideChecks } from './mechanisms/side-checks.ts'
import { createSigningSecretCache } from './mechanisms/signing-secret-cache.ts'
import { StatementSlots } from './mechanisms/statement-slots.ts'
import { createMerchant, type IssuedMerchant } from './merchants.ts'
import { openSecretBox } from './secrets-key.ts'
import { issueMissingLiveSecrets } from './webhook-secrets.ts'

/**
 * Opens the store, applies migrations, assembles the context every use case receives, and gives
 * each merchant that has none a live webhook secret (merchants created before each mode had one).
 */
function readLiveConnections(config: Config): LiveConnection[] {
  try {
    return liveConnections(config.operatorsFile, config.publicBaseUrl)
  } catch (error) {
    if (error instanceof OperatorsFileError) throw new ConfigError([error.message])
    throw error
  }
}

/** How a context is opened: by the service, or by its callback delivery thread (delivery-thread.ts). */
/** The store's own mechanisms among those SPEED_MECHANISMS_OFF switches off. */
function storeMechanismsOff(off: Config['speedMechanismsOff']): Partial<Record<StoreSpeedMechanism, true>> {
  const switched: Partial<Record<StoreSpeedMechanism, true>> = {}
  if (off.has('group-commit')) switched.groupCommit = true
  if (off.has('wal-sync')) switched.walSync = true
  if (off.has('held-writes')) switched.heldWrites = true
  if (off.has('read-batches')) switched.readBatches = true
  return switched
}

export interface ContextOptions {
  /** Turns at a SQLite file's write lock shared with a delivery thread, or the thread's side of them. */
  writerTurns?: WriterTurns
  /** The delivery thread's context: it neither migrates, nor issues secrets, nor checkpoints. */
  deliveryThread?: boolean
}

export async function createContext(
  config: Config,
  logger: Logger,
  clock: Clock = systemClock,
  options: ContextOptions = {},
): Promise<AppContext> {
  // A bad OPERATORS_FILE stops the start before anything is opened, naming the entry and field.
  const live = readLiveConnections(config)
  const store = openStore(config.database, {
    timeoutMs: config.databaseStatementTimeoutMs,
    clock,
    onWarning: (message) => logger.warn({ databaseWarning: message }, 'the database warned'),
    writerTurns: options.writerTurns,
    // The service that started a delivery thread checkpoints the file, migrated it and issued secrets.
    checkpoints: !options.deliveryThread,
    switchedOff: storeMechanismsOff(config.speedMechanismsOff),
  })
  let appliedMigrations: string[] = []
  let secrets: SecretBox
  try {
    if (!options.deliveryThread) appliedMigrations = await migrate(store)
    secrets = await openSecretBox(config, store)
  } catch (error) {
    await store.close()
    throw error
  }
  const sandbox = createSandboxAdapter({
    delayMs: config.sandboxDelayMs,
    notificationKey: secrets.derive('sandbox-notifications'),
    checkoutUrl: (token) => `${config.publicBaseUrl}/checkout/${token}`,
  })
  const merchantGroupCommit = new MerchantGroupCommit(store, {
    groups: !config.speedMechanismsOff.has('merchant-group-commit'),
  })
  const metrics = createMetrics({
    connections: live,
    store,
    clock,
    logger,
    groupedCommits: () => merchantGroupCommit.grouped(),
  })
  const context = {
    config,
    store,
    clock,
    logger,
    secrets,
    providers: createProviderRegistry(sandbox, live),
    appliedMigrations,
    merchantGroupCommit,
    ...instanceMechanisms(),
    redis: config.redisUrl === undefined ? undefined : await createRedisClient(config.redisUrl),
    metrics,
    operatorBalances: operatorBalances(metrics, clock),
  }
  try {
    const issued = options.deliveryThread ? [] : await issueMissingLiveSecrets(context)
    if (issued.length > 0)
      logger.info({ merchants: issued.length }, 'issued live webhook secrets to merchants that had none')
  } catch (error) {
    context.metrics.close()
    await store.close()
    throw error
  }
  return context
}

/** The operators' balances, each fresh reading setting the connection's gauges in /metrics. */
function operatorBalances(metrics: Metrics, clock: Clock): OperatorBalances {
  return new OperatorBalances(
    () => clock.nowUs(),
    (connection, { reading }) => {
      if (reading.ok) metrics.setOperatorBalances(connection.id, balanceFigures(connection, reading.value))
    },
  )
}

/** What each instance keeps for itself between requests: its caches, turns, lines and slots. */
function instanceMechanisms() {
  return {
    credentials: createCredentialCache(),
    merchantControls: createMerchantControlsCache(),
    signingSecrets: createSigningSecretCache(),
    pricingRules: createPricingRulesCache(),
    sideChecks: new SideChecks(),
    openingNumbers: new OpeningNumbers(),
    longWork: new LongWorkTurns(),
    payoutBatchLine: new PayoutBatchLine(),
    statementSlots: new StatementSlots(),
    passwordWork: new PasswordWork(),
  }
}

/** Closes what a context holds open: the Redis client, then the store. */
export async function closeContext(context: AppContext): Promise<void> {
  context.redis?.disconnect()
  await context.store.close()
}

const demoMarker = 'demo_merchant_created'

/**
 * On the very first start only, a demo sandbox merchant is created and its keys returned to
 * be printed. The marker row is claimed first, so several instances starting together on one
 * PostgreSQL create one demo merchant, not several.
 */
export async function ensureDemoMerchant(context: AppContext): Promise<IssuedMerchant | undefined> {
  if (await context.store.merchants.any()) return undefined
  if (!(await context.store.merchants.claimMarker(demoMarker, new Date().toISOString()))) return undefined
  return createMerchant(context, 'Demo merchant')
}
