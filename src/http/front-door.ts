import type { IncomingMessage, ServerResponse } from 'node:http'
import { normalizeIP } from '@fastify/rate-limit'
import type { AppContext } from '../app/context.ts'
import { principalProvenFromCache } from '../app/merchants.ts'
import type { RequestAdmission } from './admission.ts'
import { clientAddressReader } from './client-address.ts'
import { answerAtEdge, clientGone, isApiRequest } from './edge-answer.ts'
import type { LimitCount } from './key-limit.ts'
import { KeyProofs } from './key-proofs.ts'
import { overKeyLimit, type RateLimits } from './rate-limit.ts'

/**
 * What an API request meets before Fastify, on the server's request event (CONTRACT.md, Limits):
 * its merchant's own limit first, then admission (admission.ts), shared fairly between owners.
 *
 * A request is attributed from its api-key header: when the credential cache holds the key, fresh,
 * and the request's secret matches it (app/merchants.ts, principalProvenFromCache: no store read,
 * no wait), the request has proven its key. It counts against that key's per-key limit here,
 * before it takes any slot or place in the line, so that a request past the limit is a 429
 * however full the instance is; and it is its merchant's in admission. A request whose key is not
 * proven (unknown to the cache, a wrong secret, no credentials) counts against nothing here: it is
 * its address's in admission, and authentication counts it as before. Only a request that proved
 * its key ever counts against that key's limit. While one request of a key the cache holds nothing
 * for is being authenticated, the others of that key wait for it without a slot (key-proofs.ts).
 *
 * A 429 here is written at once, as admission's 503 is: a refusal must cost far less than an
 * answer. A count that asks Redis (REDIS_URL) waits for it holding nothing.
 */
export interface FrontDoor {
  handle(request: IncomingMessage, response: ServerResponse, next: () => void): void
}

/** What the front door tells the metrics. */
export interface FrontDoorObserver {
  /** A request was answered 429 in front, past its api-key's limit, after `durationMs`. */
  overLimit(request: IncomingMessage, durationMs: number): void
}

/** Requests that may wait at once for their key's proof; beyond, they go on unproven. */
const waitingForProofLimit = 1024

export function createFrontDoor(
  context: AppContext,
  admission: RequestAdmission,
  limits: () => RateLimits,
  observer: FrontDoorObserver,
): FrontDoor {
  const addressOf = clientAddressReader(context.config.trustProxy)
  const proofs = new KeyProofs(waitingForProofLimit)
  const admitProven = (
    request: IncomingMessage,
    response: ServerResponse,
    merchantId: string,
    next: () => void,
  ) => admission.handle(request, response, `merchant:${merchantId}`, next)

  /** Counted against its key's limit: a 429 past it, admission as its merchant's otherwise. */
  const countThenAdmit = (
    request: IncomingMessage,
    response: ServerResponse,
    proven: { apiKey: string; merchantId: string },
    next: () => void,
  ) => {
    const started = performance.now()
    const count = limits().countProvenKey(request, proven.apiKey)
    if (count === undefined) return admitProven(request, response, proven.merchantId, next)
    const decide = (counted: LimitCount) => {
      if (clientGone(request, response)) return
      if (!counted.exceeded) return admitProven(request, response, proven.merchantId, next)
      answerAtEdge(request, response, overKeyLimit(counted))
      observer.overLimit(request, performance.now() - started)
    }
    if (!(count instanceof Promise)) return decide(count)
    // Counted in memory instead when Redis fails (key-limit.ts); should the count fail all the
    // same, authentication counts the request as it would an unproven one.
    count.then(decide, () => {
      if (!clientGone(request, response)) admitProven(request, response, proven.merchantId, next)
    })
  }

  const handle = (
    request: IncomingMessage,
    response: ServerResponse,
    next: () => void,
    triedAgain: boolean,
  ) => {
    if (!isApiRequest(request.url)) return next()
    const apiKey = headerOf(request, 'api-key')
    const secretKey = headerOf(request, 'secret-key')
    if (apiKey !== undefined && secretKey !== undefined) {
      const principal = principalProvenFromCache(context, apiKey, secretKey)
      if (principal)
        return countThenAdmit(request, response, { apiKey, merchantId: principal.merchantId }, next)
      const resume = () => {
        if (!clientGone(request, response)) handle(request, response, next, true)
      }
      if (!triedAgain && proofs.waitForProof(apiKey, request, response, resume)) return
    }
    admission.handle(request, response, `address:${normalizeIP(addressOf(request))}`, next)
  }
  return { handle: (request, response, next) => handle(request, response, next, false) }
}

function headerOf(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name]
  return typeof value === 'string' && value !== '' ? value : undefined
}
