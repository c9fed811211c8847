import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.ts'
import { ApiError } from '../errors.ts'
import { sendError } from './error-handler.ts'

/**
 * Admission control for one instance. At most `maxInFlight` API requests are worked on at once;
 * the next ones wait their turn in order, and one that has waited `admissionWaitMs` without a
 * turn is answered 503 `unavailable` with Retry-After at once, before authentication or any
 * store read. Beyond capacity a client hears "retry later" quickly instead of every request
 * slowing down together, and the requests admitted keep their latency. Probes, /metrics and the
 * operators' notifications are outside the API scope and never wait here.
 */
export function admitWithinCapacity(api: FastifyInstance, config: Config): void {
  const { maxInFlight, admissionWaitMs } = config
  if (maxInFlight === 0) return
  let inFlight = 0
  const waiting: { admit(): void }[] = []
  const release = () => {
    const next = waiting.shift()
    if (next) next.admit()
    else inFlight -= 1
  }
  api.addHook('onRequest', async (request, reply) => {
    if (inFlight < maxInFlight) inFlight += 1
    else if (!(await turnWithin(waiting, admissionWaitMs))) {
      const error = new ApiError('unavailable', atCapacityMessage, undefined, { 'retry-after': '1' })
      return sendError(reply, request, error)
    }
    // Exactly once per admitted request, whether its answer was sent or its client went away
    // (perhaps while it waited: then its close has passed already).
    if (reply.raw.destroyed || request.raw.socket?.destroyed) {
      release()
      return reply.hijack()
    }
    reply.raw.once('close', release)
  })
}

const atCapacityMessage =
  'This instance is at capacity; nothing was done. Retry after the number of seconds in Retry-After.'

/** Resolves true when a slot is handed over (the slot's count passes with it), false after `waitMs`. */
function turnWithin(waiting: { admit(): void }[], waitMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const waiter = {
      admit: () => {
        clearTimeout(timer)
        resolve(true)
      },
    }
    const timer = setTimeout(() => {
      const at = waiting.indexOf(waiter)
      if (at >= 0) waiting.splice(at, 1)
      resolve(false)
    }, waitMs)
    waiting.push(waiter)
  })
}
