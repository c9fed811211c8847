import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { deliverDueEvents } from '../events/dispatcher.ts'
import type { AppContext } from './context.ts'
import { runDueScheduledWork } from './lifecycle.ts'

export interface Workers {
  /** Runs what is due now, once; resolves with how many items were handled. */
  runDue(): Promise<number>
  /** Asks the loop to look again at once (after a commit that made work due). */
  wake(): void
  stop(): Promise<void>
}

/** Names this process in leases, so a lease is only ever released by its holder. */
export function workerIdentity(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
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
  let stopped = false
  let wakeUp: (() => void) | undefined
  const runDue = async () =>
    (await runDueScheduledWork(context, owner)) + (await deliverDueEvents(context, owner))

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
    wake: () => wakeUp?.(),
    stop: async () => {
      stopped = true
      wakeUp?.()
      await running
    },
  }
}
