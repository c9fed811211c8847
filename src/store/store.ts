import { Kysely, sql, type Transaction } from 'kysely'
import { type Migration, Migrator } from 'kysely/migration'
import { type Clock, systemClock } from '../domain/clock.ts'
import { type DatabaseLocation, prepareDatabaseFolder } from './database-location.ts'
import { createDialect, type DialectOptions, type StoreDialect } from './dialect.ts'
import * as foundation from './migrations/0001-foundation.ts'
import * as defaultCatalogue from './migrations/0002-default-catalogue.ts'
import * as ledger from './migrations/0003-ledger.ts'
import * as lifecycle from './migrations/0004-lifecycle.ts'
import * as refundsAndStatements from './migrations/0005-refunds-and-statements.ts'
import * as operatorReferences from './migrations/0006-operator-references.ts'
import * as statusBuckets from './migrations/0007-status-buckets.ts'
import * as eventsDueByMerchant from './migrations/0008-events-due-by-merchant.ts'
import * as dashboard from './migrations/0009-dashboard.ts'
import * as payoutBatches from './migrations/0010-payout-batches.ts'
import * as paymentLinks from './migrations/0011-payment-links.ts'
import * as statusCheckMarks from './migrations/0012-status-check-marks.ts'
import * as eventSubjects from './migrations/0013-event-subjects.ts'
import * as secretAttempts from './migrations/0014-secret-attempts.ts'
import * as merchantControls from './migrations/0015-merchant-controls.ts'
import * as reconciliation from './migrations/0016-reconciliation.ts'
import * as platformMembers from './migrations/0017-platform-members.ts'
import * as consoleData from './migrations/0018-console-data.ts'
import { type ApiKeysRepository, apiKeysRepository } from './repositories/api-keys.ts'
import { type AuditLogRepository, auditLogRepository } from './repositories/audit-log.ts'
import { type CatalogueRepository, catalogueRepository } from './repositories/catalogue.ts'
import {
  type DashboardSessionsRepository,
  dashboardSessionsRepository,
} from './repositories/dashboard-sessions.ts'
import type { RepositoryScope } from './repositories/executor.ts'
import { type LedgerRepository, ledgerRepository } from './repositories/ledger.ts'
import { type MembersRepository, membersRepository } from './repositories/members.ts'
import {
  type MerchantDirectoryRepository,
  merchantDirectoryRepository,
} from './repositories/merchant-directory.ts'
import { type MerchantsRepository, merchantsRepository } from './repositories/merchants.ts'
import { type MonitoringRepository, monitoringRepository } from './repositories/monitoring.ts'
import { type OperationSearchRepository, operationSearchRepository } from './repositories/operation-search.ts'
import { type OperationsRepository, operationsRepository } from './repositories/operations.ts'
import {
  type OperatorActivityRepository,
  operatorActivityRepository,
} from './repositories/operator-activity.ts'
import { type OperatorHoursRepository, operatorHoursRepository } from './repositories/operator-hours.ts'
import { type OutboxRepository, outboxRepository } from './repositories/outbox.ts'
import { type PaymentLinksRepository, paymentLinksRepository } from './repositories/payment-links.ts'
import { type PayoutBatchesRepository, payoutBatchesRepository } from './repositories/payout-batches.ts'
import {
  type PlatformAuditLogRepository,
  platformAuditLogRepository,
} from './repositories/platform-audit-log.ts'
import { type PlatformMembersRepository, platformMembersRepository } from './repositories/platform-members.ts'
import { type PlatformSearchRepository, platformSearchRepository } from './repositories/platform-search.ts'
import {
  type PlatformSessionsRepository,
  platformSessionsRepository,
} from './repositories/platform-sessions.ts'
import { type ReconciliationRepository, reconciliationRepository } from './repositories/reconciliation.ts'
import { type ScheduledWorkRepository, scheduledWorkRepository } from './repositories/scheduled-work.ts'
import { type SecretAttemptsRepository, secretAttemptsRepository } from './repositories/secret-attempts.ts'
import { type SequencesRepository, sequencesRepository } from './repositories/sequences.ts'
import {
  type StatusCheckMarksRepository,
  statusCheckMarksRepository,
} from './repositories/status-check-marks.ts'
import { type WebhookSecretsRepository, webhookSecretsRepository } from './repositories/webhook-secrets.ts'
import type { Database } from './schema.ts'
import type { CommitStatistics } from './sqlite-driver.ts'

/** Every repository, on the database or inside one transaction. */
export interface Repositories {
  readonly operations: OperationsRepository
  readonly ledger: LedgerRepository
  readonly outbox: OutboxRepository
  readonly scheduledWork: ScheduledWorkRepository
  /** When each live side's status was last asked of its operator, shared by every instance. */
  readonly statusCheckMarks: StatusCheckMarksRepository
  readonly sequences: SequencesRepository
  readonly catalogue: CatalogueRepository
  readonly merchants: MerchantsRepository
  readonly apiKeys: ApiKeysRepository
  readonly webhookSecrets: WebhookSecretsRepository
  /** What /metrics reads: the backlogs and the connections in use. */
  readonly monitoring: MonitoringRepository
  readonly members: MembersRepository
  readonly dashboardSessions: DashboardSessionsRepository
  /** Attempts at a password or a code, per subject and per address (sign-in and every form that asks for one). */
  readonly secretAttempts: SecretAttemptsRepository
  readonly auditLog: AuditLogRepository
  /** The dashboard's search, cross-kind list and home page figures. */
  readonly operationSearch: OperationSearchRepository
  /** Payout batches, their items, and the merchant's setting that makes them await approval. */
  readonly payoutBatches: PayoutBatchesRepository
  readonly operatorActivity: OperatorActivityRepository
  readonly platformSearch: PlatformSearchRepository
  readonly operatorHours: OperatorHoursRepository
  readonly merchantDirectory: MerchantDirectoryRepository
  readonly paymentLinks: PaymentLinksRepository
  /** The platform's own members (the console's staff), their sessions, and the platform's audit log. */
  readonly platformMembers: PlatformMembersRepository
  readonly platformSessions: PlatformSessionsRepository
  readonly platformAuditLog: PlatformAuditLogRepository
  /** Reconciliation runs, their breaks and the operators' documents kept as evidence. */
  readonly reconciliation: ReconciliationRepository
}

/**
 * One database, whichever of the two it is. The rest of the code sees repositories with typed
 * methods named for what they do; the query builder and the handle never leave src/store.
 */
export interface Store extends Repositories {
  readonly name: 'sqlite' | 'postgres'
  /** One transaction: the repositories it is given write and read inside it; it commits when `work` resolves. */
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>
  /** True when the store commits concurrent transactions together itself (SQLite); false when each commits alone (PostgreSQL). */
  readonly groupsCommits: boolean
  /** SQLite's group commit: durable COMMITs so far and the transactions they held; undefined on PostgreSQL. */
  commitStatistics(): CommitStatistics | undefined
  /** True when the failure means the database cannot answer now (503), rather than a bug. */
  isUnavailable(error: unknown): boolean
  /** True when the failure is a unique index refusing a second row with the same key. */
  isUniqueViolation(error: unknown): boolean
  /** Resolves when the database answers a query within `withinMs`; rejects otherwise. */
  ping(withinMs: number): Promise<void>
  close(): Promise<void>
}

export interface StoreOptions extends DialectOptions {
  clock?: Clock
}

interface StoreInternals {
  db: Kysely<Database>
  dialect: StoreDialect
}

const internals = new WeakMap<Store, StoreInternals>()

function repositoriesOn(scope: RepositoryScope, inTransaction = false): Repositories {
  return {
    operations: operationsRepository(scope),
    ledger: ledgerRepository(scope, inTransaction),
    outbox: outboxRepository(scope),
    scheduledWork: scheduledWorkRepository(scope),
    statusCheckMarks: statusCheckMarksRepository(scope),
    sequences: sequencesRepository(scope, inTransaction),
    catalogue: catalogueRepository(scope),
    merchants: merchantsRepository(scope),
    apiKeys: apiKeysRepository(scope),
    webhookSecrets: webhookSecretsRepository(scope),
    monitoring: monitoringRepository(scope),
    members: membersRepository(scope),
    dashboardSessions: dashboardSessionsRepository(scope),
    secretAttempts: secretAttemptsRepository(scope),
    auditLog: auditLogRepository(scope),
    operationSearch: operationSearchRepository(scope),
    payoutBatches: payoutBatchesRepository(scope),
    operatorActivity: operatorActivityRepository(scope),
    platformSearch: platformSearchRepository(scope),
    operatorHours: operatorHoursRepository(scope),
    merchantDirectory: merchantDirectoryRepository(scope),
    paymentLinks: paymentLinksRepository(scope),
    platformMembers: platformMembersRepository(scope),
    platformSessions: platformSessionsRepository(scope),
    platformAuditLog: platformAuditLogRepository(scope),
    reconciliation: reconciliationRepository(scope),
  }
}

export function openStore(location: DatabaseLocation, options: StoreOptions = { timeoutMs: 2000 }): Store {
  prepareDatabaseFolder(location)
  const dialect = createDialect(location, options)
  const db = new Kysely<Database>({ dialect: dialect.kyselyDialect })
  const outside = dialect.outsideTransactionsDialect
  const outsideDb = outside ? new Kysely<Database>({ dialect: outside }) : db
  const clock = options.clock ?? systemClock
  let closed = false
  const store: Store = {
    name: dialect.name,
    groupsCommits: dialect.groupsCommits,
    ...repositoriesOn({ db: outsideDb, dialect, clock }),
    transaction: async (work) => {
      let committed: Promise<void> | undefined
      let result: Awaited<ReturnType<typeof work>>
      try {
        result = await db.transaction().execute(async (trx) => {
          const done = await work(repositoriesOn({ db: trx, dialect, clock }, true))
          committed = dialect.groupCommitted()
          return done
        })
      } catch (error) {
        // A refusal may carry what it read (the operation a merchantReference already names):
        // heard only once that is durable too.
        await dialect.durable().catch(() => {})
        throw error
      }
      // Acknowledged only once durable: with group commit, that is the group's COMMIT.
      await committed
      return result
    },
    commitStatistics: () => dialect.commitStatistics(),
    isUnavailable: (error) => dialect.isUnavailable(error),
    isUniqueViolation: (error) => dialect.isUniqueViolation(error),
    ping: (withinMs) => answerWithin(sql`select 1`.execute(db), withinMs),
    close: async () => {
      if (closed) return
      closed = true
      if (outsideDb !== db) await outsideDb.destroy()
      await db.destroy()
      await dialect.close()
    },
  }
  internals.set(store, { db, dialect })
  return store
}

function internalsOf(store: Store): StoreInternals {
  const found = internals.get(store)
  if (!found) throw new Error('not a store opened by openStore')
  return found
}

/** The raw handle, for tests that read and damage real rows, and for nothing else. */
export function rawDatabase(store: Store): Kysely<Database> {
  return internalsOf(store).db
}

/**
 * Reads in one consistent snapshot that writers do not wait for, without the request path's
 * statement timeout: for whole-store checks and exports.
 */
export async function readSnapshot<T>(
  store: Store,
  work: (snapshot: Transaction<Database>) => Promise<T>,
): Promise<T> {
  const isolation = internalsOf(store).dialect.snapshotIsolation
  return withMaintenanceDatabase(store, (reader) => {
    const snapshot = reader.transaction().setAccessMode('read only')
    return (isolation ? snapshot.setIsolationLevel(isolation) : snapshot).execute(work)
  })
}

/**
 * Work on a connection of its own without the request path's bounds (PostgreSQL), closed after:
 * migrations, whole-store reads and bulk seeding may take minutes. SQLite has no such bounds and
 * one writer, so the store's own handle serves.
 */
export async function withMaintenanceDatabase<T>(
  store: Store,
  work: (db: Kysely<Database>) => Promise<T>,
): Promise<T> {
  const { db, dialect } = internalsOf(store)
  const maintenance = dialect.maintenanceDialect()
  const own = maintenance ? new Kysely<Database>({ dialect: maintenance }) : db
  try {
    return await work(own)
  } finally {
    if (maintenance) await own.destroy()
  }
}

type MigrationModule = { up(db: Kysely<any>, dialect: StoreDialect): Promise<void> }

/** In order; a name, once shipped, never changes. */
const migrations: Record<string, MigrationModule> = {
  '0001-foundation': foundation,
  '0002-default-catalogue': defaultCatalogue,
  '0003-ledger': ledger,
  '0004-lifecycle': lifecycle,
  '0005-refunds-and-statements': refundsAndStatements,
  '0006-operator-references': operatorReferences,
  '0007-status-buckets': statusBuckets,
  '0008-events-due-by-merchant': eventsDueByMerchant,
  '0009-dashboard': dashboard,
  '0010-payout-batches': payoutBatches,
  '0011-payment-links': paymentLinks,
  '0012-status-check-marks': statusCheckMarks,
  '0013-event-subjects': eventSubjects,
  '0014-secret-attempts': secretAttempts,
  '0015-merchant-controls': merchantControls,
  '0016-reconciliation': reconciliation,
  '0017-platform-members': platformMembers,
  '0018-console-data': consoleData,
}

/**
 * The probe's query goes on in the background when the bound passes (the connection's own
 * timeouts end it); the caller hears at once that the database did not answer in time.
 */
async function answerWithin(query: Promise<unknown>, withinMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`the database did not answer within ${withinMs} ms`)), withinMs)
  })
  query.catch(() => {})
  try {
    await Promise.race([query, late])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Applies what is missing; a second run finds nothing to do. Concurrent runs are serialised by
 * Kysely's lock table. It runs on its own connection without the request path's timeouts: an
 * index over a large table may take minutes.
 */
export function migrate(store: Store): Promise<string[]> {
  const { dialect } = internalsOf(store)
  return withMaintenanceDatabase(store, (db) => applyMigrations(db, dialect))
}

async function applyMigrations(db: Kysely<Database>, dialect: StoreDialect): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: {
      getMigrations: async () =>
        Object.fromEntries(
          Object.entries(migrations).map(([name, module]): [string, Migration] => [
            name,
            { up: (migrationDb) => module.up(migrationDb, dialect) },
          ]),
        ),
    },
  })
  const { error, results = [] } = await migrator.migrateToLatest()
  if (error) throw error
  const failed = results.find((result) => result.status === 'Error')
  if (failed) throw new Error(`migration ${failed.migrationName} failed`)
  return results.filter((result) => result.status === 'Success').map((result) => result.migrationName)
}
