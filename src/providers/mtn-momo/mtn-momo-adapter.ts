import { pollDelayMs, unsignedNotification } from '../operator-polling.ts'
import type { ProviderAdapter, ProviderOutcome, ProviderRequest } from '../provider.ts'
import { readBalances } from './balance.ts'
import { createMtnClient, type MtnConnection } from './client.ts'
import { outcomeOfStatus, paymentBody, productOf, resourceOf } from './wire.ts'

export interface MtnMomoAdapterOptions {
  connection: MtnConnection
  /** PUBLIC_BASE_URL/providers/mtn-momo/notifications */
  notificationUrl: string
}

const unknownOutcome = (request: ProviderRequest, nowUs: number): ProviderOutcome => ({
  status: 'pending',
  pollAfterMs: pollDelayMs(request, nowUs),
})

/**
 * MTN MoMo Open API (CONTRACT.md, Operators). The side's operator reference is the X-Reference-Id,
 * so a retry is the same payment to MTN (409 RESOURCE_ALREADY_EXIST: already submitted, poll it).
 * No answer, a timeout or a 5xx leaves the side pending for polling: money may have moved. Callbacks
 * are unsigned and sent once, so they only trigger a status check.
 */
export function createMtnMomoAdapter(options: MtnMomoAdapterOptions): ProviderAdapter {
  const client = createMtnClient(options.connection)
  const callbackUrl = (request: ProviderRequest) => {
    const url = new URL(options.notificationUrl)
    url.searchParams.set('token', request.token)
    url.searchParams.set('role', request.role)
    return url.toString()
  }

  async function initiate(request: ProviderRequest, nowUs: number): Promise<ProviderOutcome> {
    const product = productOf(request)
    const reference = request.operatorReference!
    let answer: Awaited<ReturnType<typeof client.api>>
    try {
      answer = await client.api(
        product,
        'POST',
        resourceOf(request),
        { 'x-reference-id': reference, 'x-callback-url': callbackUrl(request) },
        paymentBody(request),
      )
    } catch {
      return unknownOutcome(request, nowUs)
    }
    if (answer.status === 202 || answer.status === 409 || answer.status >= 500)
      return { status: 'pending', pollAfterMs: 2_000 }
    // MTN refused the request itself (400, 401 after a renewed token, 404...): nothing was created, so nothing moved.
    const code = (answer.body as { code?: unknown } | undefined)?.code
    return {
      status: 'error',
      reason: {
        code: 'operator_refused',
        message: `MTN MoMo refused the request (HTTP ${answer.status}${typeof code === 'string' ? ` ${code}` : ''}).`,
      },
    }
  }

  async function pollStatus(request: ProviderRequest, nowUs: number): Promise<ProviderOutcome> {
    const product = productOf(request)
    if (!request.operatorReference) return unknownOutcome(request, nowUs)
    try {
      const path = `${resourceOf(request)}/${request.operatorReference}`
      const answer = await client.api(product, 'GET', path)
      if (answer.status !== 200 || typeof answer.body !== 'object' || answer.body === null)
        return unknownOutcome(request, nowUs)
      return outcomeOfStatus(answer.body as Record<string, unknown>, pollDelayMs(request, nowUs))
    } catch {
      return unknownOutcome(request, nowUs)
    }
  }

  return {
    name: 'mtn-momo',
    directions: ['cash-in', 'cash-out'],
    initiate,
    pollStatus,
    // Unsigned: which side it is about comes from the query Sika put on X-Callback-Url; what
    // happened is asked of MTN's status endpoint before anything settles.
    parseNotification: async ({ query }) => unsignedNotification(query),
    // MTN publishes an account balance per product, and no statement.
    balance: () => readBalances(client),
  }
}
