import type { ProviderOutcome, ProviderRequest, QueuedCancelAnswer } from '../provider.ts'
import { outcomeOfInitiation } from './wire.ts'

/**
 * pawaPay's bulk payouts and fail-enqueued in Sika's terms (docs.pawapay.io/v2; the simulator's
 * SOURCES.md, "Bulk payouts" and "Cancel enqueued payout", names the page behind each line).
 */

/** "Bulk requests with more than 20 payout transactions may be rejected by pawaPay" (D-BULK). */
export const largestPawapayBulk = 20

export const bulkPath = '/v2/payouts/bulk'
export const failEnqueuedPath = (payoutId: string) =>
  `/v2/payouts/fail-enqueued/${encodeURIComponent(payoutId)}`

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const sameId = (a: unknown, b: string | undefined) =>
  typeof a === 'string' && b !== undefined && a.toLowerCase() === b.toLowerCase()

/**
 * A bulk's answer as one outcome per request, in order. A 200 is an array of per-payout answers,
 * each read as the single payout's answer is (ACCEPTED and DUPLICATE_IGNORED pending, REJECTED
 * ended), found by its payoutId; a payout the array does not name is pending, to be polled. A 401
 * or 403 refused the whole request: every payout ends as the single path ends it. Anything else
 * (a 5xx, a 429, a body this cannot read) leaves every payout pending: money may have moved.
 */
export function outcomesOfBulk(
  status: number,
  body: unknown,
  requests: readonly ProviderRequest[],
  pollAfterMs: (request: ProviderRequest) => number,
): ProviderOutcome[] {
  const pending = (request: ProviderRequest): ProviderOutcome => ({
    status: 'pending',
    pollAfterMs: pollAfterMs(request),
  })
  if (status === 401 || status === 403)
    return requests.map((request) => outcomeOfInitiation(status, body, pollAfterMs(request)))
  if (status !== 200 || !Array.isArray(body)) return requests.map(pending)
  const answers = body.filter(isObject)
  return requests.map((request) => {
    const answer = answers.find((candidate) => sameId(candidate.payoutId, request.operatorReference))
    return answer === undefined ? pending(request) : outcomeOfInitiation(200, answer, pollAfterMs(request))
  })
}

/** `failureReason: {failureCode, failureMessage}` (v2), or v1's `rejectionReason` text, as one sentence. */
function refusalOf(body: Record<string, unknown>): string {
  const reason = isObject(body.failureReason) ? body.failureReason : {}
  const code = typeof reason.failureCode === 'string' ? reason.failureCode : undefined
  const message =
    typeof reason.failureMessage === 'string'
      ? reason.failureMessage
      : typeof body.rejectionReason === 'string'
        ? body.rejectionReason
        : undefined
  const said = [code, message].filter((part) => part !== undefined).join(': ')
  return said === ''
    ? 'pawaPay refused to cancel the payout.'
    : `pawaPay refused to cancel the payout (${said}).`
}

/**
 * POST /v2/payouts/fail-enqueued/{payoutId} (D-CANCEL, PP-KIT): 200 `{payoutId, status: ACCEPTED}`
 * means pawaPay will fail the payout (FAILED, MANUALLY_CANCELLED, its status then says so); 200
 * `{status: REJECTED, failureReason}` means it could not (NOT_FOUND, or INVALID_STATE: no longer
 * ENQUEUED, so on its way to the recipient). Anything else (a 5xx, a 401, no body) says nothing
 * about the payout: unknown.
 */
export function answerOfCancel(status: number, body: unknown): QueuedCancelAnswer {
  if (status !== 200 || !isObject(body)) return { answer: 'unknown' }
  if (body.status === 'ACCEPTED') return { answer: 'accepted' }
  if (body.status === 'REJECTED') return { answer: 'refused', reason: refusalOf(body) }
  return { answer: 'unknown' }
}
