import { pollDelayMs } from '../operator-polling.ts'
import type {
  NotificationInput,
  ProviderAdapter,
  ProviderNotification,
  ProviderOutcome,
  ProviderRequest,
} from '../provider.ts'
import { cancelQueued, initiateMany } from './bulk.ts'
import { largestPawapayBulk } from './bulk-wire.ts'
import { createPawapayClient, type PawapayAnswer } from './client.ts'
import { readPawapayBalances, readPawapayStatement } from './finances.ts'
import { createCallbackVerifier } from './signature.ts'
import {
  initiationBody,
  outcomeOfInitiation,
  outcomeOfStatus,
  paymentIdOfCallback,
  resourceOf,
} from './wire.ts'

export interface PawapayAdapterOptions {
  baseUrl: string
  apiToken: string
  /** The pawaPay provider code of each country the connection serves, e.g. `{ BJ: 'MOOV_BEN' }`. */
  providers: Readonly<Record<string, string>>
  /** PUBLIC_BASE_URL/providers/pawapay/notifications: the callback URL set in pawaPay's Dashboard. */
  notificationUrl: string
  /** pawaPay's callback-signing public key (PEM): when given, only signed callbacks are heard. */
  callbackPublicKey?: string
  /** Ask statements gzipped (default true); a plain CSV is read as well. */
  compressedStatements?: boolean
}

/** A callback names its payment by depositId or payoutId only; what happened is asked of the status endpoint. */
async function parseCallback(
  input: NotificationInput,
  verify: ((input: NotificationInput) => Promise<boolean>) | undefined,
): Promise<ProviderNotification | undefined> {
  if (verify && !(await verify(input))) return undefined
  const operatorReference = paymentIdOfCallback(input.rawBody)
  if (!operatorReference) return undefined
  return { side: { operatorReference }, outcome: { status: 'pending' }, confirm: true }
}

/**
 * pawaPay Merchant API v2 (CONTRACT.md, Operators). A cash-in is a deposit and a cash-out a payout
 * whose depositId or payoutId is the side's operator reference, so a retry is never a second
 * payment (DUPLICATE_IGNORED). A REJECTED initiation, or one refused outright (400, 401, 403),
 * created nothing: the side ends. No answer, a timeout or a 5xx leaves it pending for polling, as
 * money may have moved. Callbacks carry no reference of Sika's (no clientReferenceId), only the
 * payment's id, and are only a hint: Sika asks GET /v2/{deposits|payouts}/{id} before it settles.
 * Payouts also go 20 to a request (POST /v2/payouts/bulk), each answered as a single payout is,
 * and a payout pawaPay holds ENQUEUED can be stopped (fail-enqueued): it then ends FAILED with
 * MANUALLY_CANCELLED, which maps to `canceled`. The wallets' balances and statements come from
 * pawaPay's finance endpoints.
 */
export function createPawapayAdapter(options: PawapayAdapterOptions): ProviderAdapter {
  const call = createPawapayClient(options.baseUrl, options.apiToken)
  const verify = options.callbackPublicKey
    ? createCallbackVerifier(options.callbackPublicKey, options.notificationUrl)
    : undefined
  const pending = (request: ProviderRequest, nowUs: number): ProviderOutcome => ({
    status: 'pending',
    pollAfterMs: pollDelayMs(request, nowUs),
  })

  async function initiate(request: ProviderRequest, nowUs: number): Promise<ProviderOutcome> {
    const provider = options.providers[request.country]
    if (!provider)
      return {
        status: 'error',
        reason: {
          code: 'operator_not_connected',
          message: `No pawaPay provider is configured for ${request.channel} in ${request.country}.`,
        },
      }
    let answer: PawapayAnswer
    try {
      answer = await call('POST', resourceOf(request).path, initiationBody(request, provider))
    } catch {
      return pending(request, nowUs)
    }
    return outcomeOfInitiation(answer.status, answer.body, pollDelayMs(request, nowUs))
  }

  const bulk = { call, providers: options.providers, initiate }
  const finances = {
    call,
    providers: options.providers,
    callbackUrl: options.notificationUrl,
    compressed: options.compressedStatements ?? true,
  }

  async function pollStatus(request: ProviderRequest, nowUs: number): Promise<ProviderOutcome> {
    if (!request.operatorReference) return pending(request, nowUs)
    try {
      const path = `${resourceOf(request).path}/${encodeURIComponent(request.operatorReference)}`
      const answer = await call('GET', path)
      // A 401 or 403 here (a revoked token) or a 5xx says nothing about the payment: ask again later.
      if (answer.status !== 200) return pending(request, nowUs)
      return outcomeOfStatus(answer.body, pollDelayMs(request, nowUs))
    } catch {
      return pending(request, nowUs)
    }
  }

  return {
    name: 'pawapay',
    directions: ['cash-in', 'cash-out'],
    initiate,
    pollStatus,
    parseNotification: (input) => parseCallback(input, verify),
    initiateMany: (requests, nowUs) => initiateMany(bulk, requests, nowUs),
    largestBulk: largestPawapayBulk,
    cancelQueued: (request) => cancelQueued(call, request),
    balance: () => readPawapayBalances(finances),
    statement: (request) => readPawapayStatement(finances, request),
  }
}
