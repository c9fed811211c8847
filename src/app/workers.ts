import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { type DispatcherDependencies, deliverDueEvents } from '../events/dispatcher.ts'
import type { AppContext } from './context.ts'
import { runDueScheduledWork } from './lifecycle.ts'
import { signingSecrets } from './webhook-secrets.ts'

export interface Workers {
  /** Runs what is due now, once; resolves with how many items were handled. */
  runDue(): Promise<number>
  stop(): Promise<void>
}

/** Names this process in leases, so a lease is only ever released by its holder. */
export function workerIdentity(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
}

/** The dispatcher's view of the app: the outbox (each attempt recorded in its own transaction), time, the log, the secrets. */
export function dispatcherDependencies(context: AppContext): DispatcherDependencies {
  return {
    outbox: {
      claimDue: (...args) => context.store.outbox.claimDue(...args),
      recordAttempt: (...args) => context.store.transaction((tx) => tx.outbox.recordAttempt(...args)),
    },
    clock: context.clock,
    logger: context.logger,
    signingSecrets: (merchantId, mode) => signingSecrets(context, merchantId, mode),
  }
}

/**
 * The background loop of one instance: scheduled work, then callbacks, repeated while there is
 * work and every `idleMs` otherwise. `manual` leaves the running to the caller (tests that move
 * a clock by hand).
 */
export function createWorkers(
  context: AppContext,
  options: { idleMs?: number; manual?: boolean } = {},
): Workers {
  const owner = workerIdentity()
  const idleMs = options.idleMs ?? 250
  const dispatcher = dispatcherDependencies(context)
  let stopped = false
  let wakeUp: (() => void) | undefined
  const runDue = async () =>
    (await runDueScheduledWork(context, owner)) + (await deliverDueEvents(dispatcher, owner))

  const loop = async () => {
    while (!stopped) {
      let handled = 0
      try {
        handled = await runDue()
      } catch (error) {
        context.logger.error({ err: error }, 'background work failed; retrying')
      }
      if (handled > 0 || stopped) continue
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, idleMs)
        wakeUp = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      wakeUp = undefined
    }
  }
  const running = options.manual ? Promise.resolve() : loop()
  return {
    runDue,
    stop: async () => {
      stopped = true
      wakeUp?.()
      await running
    },
  }
}
