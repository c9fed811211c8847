import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.ts'
import { ApiError } from '../errors.ts'
import { sendError } from './error-handler.ts'

/**
 * Admission control for one instance. At most `maxInFlight` API requests are worked on at once;
 * as many more wait their turn in order, and one that has waited `admissionWaitMs` without a
 * turn, or that finds the line full, is answered 503 `unavailable` with Retry-After at once,
 * before authentication or any store read. Beyond capacity a client hears "retry later" quickly
 * instead of every request slowing down together, and the requests admitted keep their latency.
 * Probes, /metrics and the operators' notifications are outside the API scope and never wait here.
 *
 * "At once" counts the requests of one turn of the event loop, not only those still awaiting
 * something: a request answered without waiting for I/O (a read on SQLite) is done before the
 * next one starts, yet every request read in the same turn waited behind it. Without that, an
 * overloaded SQLite instance never had a request in flight: the line formed in the kernel's socket
 * queues, where nothing could see or shorten it, and latency grew without bound (BENCHMARKS.md).
 */
export function admitWithinCapacity(api: FastifyInstance, config: Config): void {
  const { maxInFlight, admissionWaitMs } = config
  if (maxInFlight === 0) return
  const line = new AdmissionLine(maxInFlight)
  api.addHook('onRequest', async (request, reply) => {
    if (!line.admitNow() && !(await line.turnWithin(admissionWaitMs))) {
      const error = new ApiError('unavailable', atCapacityMessage, undefined, { 'retry-after': '1' })
      return sendError(reply, request, error)
    }
    // Exactly once per admitted request, whether its answer was sent or its client went away
    // (perhaps while it waited: then its close has passed already).
    if (reply.raw.destroyed || request.raw.socket?.destroyed) {
      line.release()
      return reply.hijack()
    }
    reply.raw.once('close', () => line.release())
  })
}

const atCapacityMessage =
  'This instance is at capacity; nothing was done. Retry after the number of seconds in Retry-After.'

interface Waiter {
  admit(): void
}

/** The slots of one instance, its waiting line, and the requests done in the current turn. */
class AdmissionLine {
  private inFlight = 0
  /** Admitted and already done since the turn began: they still fill the turn's slots. */
  private doneThisTurn = 0
  private turnEndScheduled = false
  private readonly waiting: Waiter[] = []

  constructor(private readonly capacity: number) {}

  /** Takes a slot if one is free and nobody is waiting for it. */
  admitNow(): boolean {
    if (this.waiting.length > 0 || !this.hasFreeSlot()) return false
    this.inFlight += 1
    return true
  }

  /** Resolves true once a slot is handed over, false after `waitMs` or at once when the line is full. */
  turnWithin(waitMs: number): Promise<boolean> {
    if (this.waiting.length >= this.capacity) return Promise.resolve(false)
    return new Promise((resolve) => {
      const waiter = {
        admit: () => {
          clearTimeout(timer)
          resolve(true)
        },
      }
      const timer = setTimeout(() => {
        const at = this.waiting.indexOf(waiter)
        if (at >= 0) this.waiting.splice(at, 1)
        resolve(false)
      }, waitMs)
      this.waiting.push(waiter)
    })
  }

  release(): void {
    this.inFlight -= 1
    this.doneThisTurn += 1
    if (!this.turnEndScheduled) {
      this.turnEndScheduled = true
      // The check phase follows the poll phase that read this turn's requests.
      setImmediate(() => this.endTurn())
    }
    this.admitWaiting()
  }

  private endTurn(): void {
    this.turnEndScheduled = false
    this.doneThisTurn = 0
    this.admitWaiting()
  }

  private admitWaiting(): void {
    while (this.waiting.length > 0 && this.hasFreeSlot()) {
      this.inFlight += 1
      this.waiting.shift()!.admit()
    }
  }

  private hasFreeSlot(): boolean {
    return this.inFlight + this.doneThisTurn < this.capacity
  }
}
