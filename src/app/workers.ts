import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { modes } from '../domain/kinds.ts'
import { EndpointCircuits } from '../events/circuit.ts'
import { DeliveryPool } from '../events/delivery-pool.ts'
import {
  type Delivery,
  type DispatcherDependencies,
  deliverDueEvents,
  leaseMs,
} from '../events/dispatcher.ts'
import type { ClaimedEvent, EndedAttempt } from '../store/repositories/outbox.ts'
import type { WriterTurns } from '../store/writer-turns.ts'
import { watchOperatorBalances } from './console/operator-accounts.ts'
import { watchOperatorHours } from './console/operator-hours-roll-up.ts'
import type { AppContext } from './context.ts'
import { startDeliveryThread } from './delivery-thread.ts'
import { GroupedWrites, largestGroupOf } from './mechanisms/grouped-writes.ts'
import { ScheduledWorkPool } from './mechanisms/scheduled-work-pool.ts'
import { PayoutBatchWorker } from './payout-batches/worker.ts'
import { ReconciliationScheduler } from './reconciliation/scheduler.ts'
import { signingSecrets } from './webhook-secrets.ts'

export interface Workers {
  /** Runs what is due now, once (scheduled work, then callbacks); resolves with how many items were handled. */
  runDue(): Promise<number>
  /** Starts nothing more, and resolves once the work in hand is finished and recorded. */
  stop(): Promise<void>
}

/** Names this process in leases, so a lease is only ever released by its holder. */
export function workerIdentity(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
}

/**
 * The dispatcher's view of the app: the outbox, time, the log, the secrets. The records of
 * attempts that end while others are being committed are committed together, each with the
 * claim of its operation's next event (`GroupedWrites`): a drain's deliveries end many at a
 * time, and on PostgreSQL each statement's round trip was most of what a delivery cost.
 */
export function dispatcherDependencies(context: AppContext): DispatcherDependencies {
  const record = (ended: readonly EndedAttempt[]) =>
    context.store.transaction((tx) => tx.outbox.recordAttempts(ended, context.clock.nowUs(), leaseMs))
  const attempts = new GroupedWrites<EndedAttempt, ClaimedEvent | undefined>(
    {
      writeGroup: async (group) => {
        const next = await record(group)
        return group.map(({ event }) =>
          next.find(
            (claimed) =>
              claimed.operationId === event.operationId && claimed.payoutBatchId === event.payoutBatchId,
          ),
        )
      },
      writeOne: async (ended) => (await record([ended]))[0],
    },
    largestGroupOf(context.config, 32),
  )
  return {
    outbox: {
      claimDue: (...args) => context.store.outbox.claimDue(...args),
      claimTogether: (claim) =>
        context.store.groupsCommits
          ? context.store.transaction((tx) => claim(tx.outbox))
          : claim(context.store.outbox),
      recordAttempt: (ended) => attempts.write(ended),
      defer: (deferrals, owner) => context.store.transaction((tx) => tx.outbox.defer(deferrals, owner)),
      park: (...args) => context.store.outbox.park(...args),
    },
    clock: context.clock,
    logger: context.logger,
    signingSecrets: (merchantId, mode) => signingSecrets(context, merchantId, mode),
  }
}

/**
 * The background work of one instance, in loops that never wait for each other: scheduled work
 * (submissions, polls, expiry: items claimed in batches and run side by side,
 * `mechanisms/scheduled-work-pool.ts`), payout batches' items handed to their operators
 * (`payout-batches/worker.ts`), the reconciliation's runs of each ended day
 * (`reconciliation/scheduler.ts`), and callback delivery (a pool per mode of CALLBACK_CONCURRENCY
 * deliveries in flight or being recorded, shared fairly between merchants, with a circuit per
 * merchant's endpoint: `events/delivery-pool.ts`). A hanging receiver can so delay neither a
 * settlement nor another merchant's callbacks, and sandbox callbacks never take live's slots. Each
 * loop claims again as soon as it has room while it finds work, and every `idleMs` otherwise. `manual` leaves the running to
 * the caller (tests that move a clock by hand): `runDue` does one pass of each, deterministically,
 * and attempts every event it claims, whatever the state of its endpoint's circuit.
 */
export function createWorkers(
  context: AppContext,
  options: {
    idleMs?: number
    manual?: boolean
    /** Callbacks delivered from a thread of their own, taking `turns` at a SQLite file's write lock. */
    deliveryThread?: { turns: WriterTurns | undefined }
  } = {},
): Workers {
  const owner = workerIdentity()
  const idleMs = options.idleMs ?? 250
  const concurrency = context.config.callbackConcurrency
  const delivery: Delivery = { dependencies: dispatcherDependencies(context), owner }
  const scheduledWork = new ScheduledWorkPool(context, owner, {
    concurrency: scheduledConcurrency(context),
    idleMs,
  })
  const batches = new PayoutBatchWorker(context, owner, idleMs)
  const runDue = async () =>
    (await batches.runOnce()) +
    (await scheduledWork.runOnce()) +
    (await deliverDueEvents(delivery, concurrency))
  if (options.manual) return { runDue, stop: async () => {} }

  const scheduled = scheduledWork.start()
  const batchWork = batches.start()
  const balances = watchOperatorBalances(context)
  // Each live connection's days, reconciled once they end (app/reconciliation/scheduler.ts).
  const reconciliation =
    context.providers.liveConnections().length > 0
      ? new ReconciliationScheduler(context, owner).start()
      : undefined
  const operatorHours = watchOperatorHours(context)
  const callbacks = options.deliveryThread
    ? startDeliveryThread(context.config, context.logger, options.deliveryThread.turns, () =>
        startDeliveryPool(context, idleMs),
      )
    : startDeliveryPool(context, idleMs)
  return {
    runDue,
    stop: async () => {
      balances.stop()
      operatorHours.stop()
      await Promise.all([scheduled.stop(), batchWork.stop(), callbacks.stop(), reconciliation?.stop()])
    },
  }
}

/**
 * Callback delivery in this thread, until stopped: a pool for live events and one for sandbox
 * events, each with its own slots, circuits and records, so that sandbox, which anyone can use to
 * call back any host, never holds a slot live needs.
 */
export function startDeliveryPool(context: AppContext, idleMs = 250): { stop(): Promise<void> } {
  const concurrency = context.config.callbackConcurrency
  const pools = modes.map(
    (mode) =>
      new DeliveryPool(
        {
          dependencies: dispatcherDependencies(context),
          owner: workerIdentity(),
          circuits: new EndpointCircuits(),
        },
        { mode, concurrency, idleMs },
      ),
  )
  return {
    stop: async () => {
      await Promise.all(pools.map((pool) => pool.stop()))
    },
  }
}

/**
 * Scheduled items run at once. On SQLite their settlements share group commits, so more at once
 * is cheaper each. On PostgreSQL each holds one of the pool's 20 connections while it runs (while
 * it waits for its merchant's counters, too, or for a statement timeout when the database stops
 * answering), and the API's requests need the rest.
 */
function scheduledConcurrency(context: AppContext): number {
  return context.store.groupsCommits ? 32 : 8
}
