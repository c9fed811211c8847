import { pollDelayMs } from '../operator-polling.ts'
import type {
  NotificationInput,
  ProviderAdapter,
  ProviderNotification,
  ProviderOutcome,
  ProviderRequest,
} from '../provider.ts'
import { createWaveClient, createWaveDocumentReader, type WaveAnswer, type WaveCall } from './client.ts'
import { readWaveBalance, readWaveStatement } from './reconciliation.ts'
import { verifyWaveSignature } from './signature.ts'
import {
  checkoutBody,
  clientReferenceOf,
  outcomeOfPayout,
  outcomeOfSession,
  payoutBody,
  refundedSessionOf,
  sideOfClientReference,
} from './wire.ts'

export interface WaveAdapterOptions {
  baseUrl: string
  apiKey: string
  webhookSecret: string
  /** Where Wave sends the customer back after its checkout page: Sika's, which then redirects to the merchant's. */
  returnUrl(token: string): string
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null

/** A webhook whose Wave-Signature verifies names its side by client_reference; a status check settles it. */
function parseWaveWebhook(
  { headers, rawBody }: NotificationInput,
  webhookSecret: string,
): ProviderNotification | undefined {
  const header = headers['wave-signature']
  const nowSeconds = Math.floor(Date.now() / 1000)
  if (
    !verifyWaveSignature(typeof header === 'string' ? header : undefined, rawBody, webhookSecret, nowSeconds)
  )
    return undefined
  let event: unknown
  try {
    event = JSON.parse(rawBody)
  } catch {
    return undefined
  }
  const data = isObject(event) && isObject(event.data) ? event.data : undefined
  const side = sideOfClientReference(data?.client_reference)
  if (!side) return undefined
  // Authentic, but the status check decides: duplicates and out-of-order webhooks then change nothing.
  return { side, outcome: { status: 'pending' }, confirm: true }
}

/**
 * POST /v1/checkout/sessions/:id/refund: 200 with no body refunds the whole session, and asking
 * again refunds nothing more (so a poll asks again); a session Wave cannot refund is refused.
 */
async function refundSession(
  call: WaveCall,
  request: ProviderRequest,
  sessionId: string,
  pending: ProviderOutcome,
): Promise<ProviderOutcome> {
  let answer: WaveAnswer
  try {
    answer = await call('POST', `/v1/checkout/sessions/${encodeURIComponent(sessionId)}/refund`, undefined, {
      'idempotency-key': request.operatorReference ?? clientReferenceOf(request),
    })
  } catch {
    return pending
  }
  if (answer.status === 200) return { status: 'succeeded', fromOperatorRecord: true }
  if (answer.status >= 500 || answer.status === 429) return pending
  const code = isObject(answer.body) && typeof answer.body.code === 'string' ? answer.body.code : undefined
  // Wave declined this refund (a session it cannot refund), or refused the request itself: either way nothing moved.
  return {
    status: code === 'checkout-refund-failed' ? 'failed' : 'error',
    reason: {
      code: code ? `wave_${code.replaceAll('-', '_')}` : 'operator_refused',
      message: `Wave refused to refund the checkout session (HTTP ${answer.status}${code ? ` ${code}` : ''}).`,
    },
  }
}

/** Wave refused the request itself (validation, authentication, funds): nothing was created. */
function refusalOf(answer: WaveAnswer): ProviderOutcome {
  const code = isObject(answer.body) && typeof answer.body.code === 'string' ? answer.body.code : undefined
  return {
    status: code === 'insufficient-funds' ? 'failed' : 'error',
    reason: {
      code: code ? `wave_${code.replaceAll('-', '_')}` : 'operator_refused',
      message: `Wave refused the request (HTTP ${answer.status}${code ? ` ${code}` : ''}).`,
    },
  }
}

/**
 * Wave Business API (CONTRACT.md, Operators). Cash-in is a checkout session whose wave_launch_url
 * becomes the record's redirectUrl; cash-out a payout under Idempotency-Key = the side's operator
 * reference, so a retry is the same payout. Anything without a clear answer stays pending and is
 * looked up by client_reference. Webhooks are verified (Wave-Signature) and then confirmed. The
 * wallet's balance and its transactions of a window come from the Balance & Reconciliation API.
 */
export function createWaveAdapter(options: WaveAdapterOptions): ProviderAdapter {
  const call = createWaveClient(options.baseUrl, options.apiKey)
  const pending = (request: ProviderRequest, nowUs: number): ProviderOutcome => ({
    status: 'pending',
    pollAfterMs: pollDelayMs(request, nowUs),
  })

  async function initiate(request: ProviderRequest, nowUs: number): Promise<ProviderOutcome> {
    const sessionId = refundedSessionOf(request)
    if (sessionId) return refundSession(call, request, sessionId, pending(request, nowUs))
    const cashIn = request.direction === 'cash-in'
    let answer: WaveAnswer
    try {
      answer = cashIn
        ? await call(
            'POST',
            '/v1/checkout/sessions',
            checkoutBody(request, options.returnUrl(request.token)),
            {
              'idempotency-key': request.operatorReference ?? clientReferenceOf(request),
            },
          )
        : await call('POST', '/v1/payout', payoutBody(request), {
            'idempotency-key': request.operatorReference ?? clientReferenceOf(request),
          })
    } catch {
      return pending(request, nowUs)
    }
    if (answer.status === 200 && isObject(answer.body))
      return cashIn ? outcomeOfSession(answer.body, 2_000) : outcomeOfPayout(answer.body, 2_000)
    if (answer.status >= 500 || answer.status === 409) return pending(request, nowUs)
    return refusalOf(answer)
  }

  /** By its id once known; otherwise by client_reference, which a lost answer cannot hide. */
  async function pollStatus(request: ProviderRequest, nowUs: number): Promise<ProviderOutcome> {
    const sessionId = refundedSessionOf(request)
    if (sessionId) return refundSession(call, request, sessionId, pending(request, nowUs))
    const cashIn = request.direction === 'cash-in'
    const delay = pollDelayMs(request, nowUs)
    try {
      const path = request.providerReference
        ? `${cashIn ? '/v1/checkout/sessions' : '/v1/payout'}/${request.providerReference}`
        : `${cashIn ? '/v1/checkout/sessions/search' : '/v1/payouts/search'}?client_reference=${encodeURIComponent(clientReferenceOf(request))}`
      const answer = await call('GET', path)
      if (answer.status !== 200 || !isObject(answer.body)) return pending(request, nowUs)
      const found = Array.isArray(answer.body.result) ? answer.body.result.at(-1) : answer.body
      if (!isObject(found)) return pending(request, nowUs)
      return cashIn ? outcomeOfSession(found, delay) : outcomeOfPayout(found, delay)
    } catch {
      return pending(request, nowUs)
    }
  }

  return {
    name: 'wave',
    directions: ['cash-in', 'cash-out'],
    initiate,
    pollStatus,
    parseNotification: async (input) => parseWaveWebhook(input, options.webhookSecret),
    balance: () => readWaveBalance(call),
    statement: (request) =>
      readWaveStatement(createWaveDocumentReader(options.baseUrl, options.apiKey), request),
  }
}
