import { pollDelayMs } from '../operator-polling.ts'
import type { ProviderOutcome, ProviderRequest, QueuedCancelAnswer } from '../provider.ts'
import {
  answerOfCancel,
  bulkPath,
  failEnqueuedPath,
  largestPawapayBulk,
  outcomesOfBulk,
} from './bulk-wire.ts'
import type { PawapayAnswer, PawapayCall } from './client.ts'
import { initiationBody, resourceOf } from './wire.ts'

/** What the bulk path needs of the adapter: its HTTP, its providers, and the single initiation. */
export interface BulkPayouts {
  readonly call: PawapayCall
  readonly providers: Readonly<Record<string, string>>
  readonly initiate: (request: ProviderRequest, nowUs: number) => Promise<ProviderOutcome>
}

const pending = (request: ProviderRequest, nowUs: number): ProviderOutcome => ({
  status: 'pending',
  pollAfterMs: pollDelayMs(request, nowUs),
})

/**
 * One POST /v2/payouts/bulk of at most 20 payouts. A 400 or 404 refused the request as a whole
 * and created nothing (a bulk over pawaPay's limit, one payout of the wrong shape, no bulk
 * endpoint): each payout then goes alone, to get its own answer; a payoutId pawaPay did accept
 * meanwhile is DUPLICATE_IGNORED, never paid twice. No answer leaves every payout pending.
 */
async function initiateBulk(bulk: BulkPayouts, requests: readonly ProviderRequest[], nowUs: number) {
  const bodies = requests.map((request) => initiationBody(request, bulk.providers[request.country] ?? ''))
  let answer: PawapayAnswer
  try {
    answer = await bulk.call('POST', bulkPath, bodies)
  } catch {
    return requests.map((request) => pending(request, nowUs))
  }
  if (answer.status === 400 || answer.status === 404)
    return Promise.all(requests.map((request) => bulk.initiate(request, nowUs)))
  return outcomesOfBulk(answer.status, answer.body, requests, (request) => pollDelayMs(request, nowUs))
}

/**
 * Payouts go in bulks of at most 20, one bulk at a time; a request a bulk cannot carry (a
 * deposit, a refund, no payoutId, no provider for its country) goes alone. One outcome per
 * request, in the order given.
 */
export async function initiateMany(
  bulk: BulkPayouts,
  requests: readonly ProviderRequest[],
  nowUs: number,
): Promise<ProviderOutcome[]> {
  const outcomes: ProviderOutcome[] = new Array(requests.length)
  const bulkable = (request: ProviderRequest) =>
    resourceOf(request).path === '/v2/payouts' &&
    request.operatorReference !== undefined &&
    bulk.providers[request.country] !== undefined
  const inBulk = requests.flatMap((request, index) => (bulkable(request) ? [index] : []))
  const alone = requests.flatMap((request, index) => (bulkable(request) ? [] : [index]))
  for (let start = 0; start < inBulk.length; start += largestPawapayBulk) {
    const chunk = inBulk.slice(start, start + largestPawapayBulk)
    const answers = await initiateBulk(
      bulk,
      chunk.map((index) => requests[index]!),
      nowUs,
    )
    chunk.forEach((index, at) => {
      outcomes[index] = answers[at]!
    })
  }
  const singles = await Promise.all(alone.map((index) => bulk.initiate(requests[index]!, nowUs)))
  alone.forEach((index, at) => {
    outcomes[index] = singles[at]!
  })
  return outcomes
}

/** POST /v2/payouts/fail-enqueued/{payoutId}: only a payout pawaPay still holds ENQUEUED stops. */
export async function cancelQueued(call: PawapayCall, request: ProviderRequest): Promise<QueuedCancelAnswer> {
  if (resourceOf(request).path !== '/v2/payouts')
    return { answer: 'refused', reason: 'pawaPay cancels only payouts it holds ENQUEUED.' }
  if (!request.operatorReference) return { answer: 'refused', reason: 'pawaPay was never sent this payout.' }
  try {
    const answer = await call('POST', failEnqueuedPath(request.operatorReference))
    return answerOfCancel(answer.status, answer.body)
  } catch {
    return { answer: 'unknown' }
  }
}
