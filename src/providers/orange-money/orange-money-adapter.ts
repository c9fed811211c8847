import { toMajorUnits } from '../../domain/money.ts'
import type { OperatorAnswer } from '../operator-http.ts'
import { pollDelayMs, unsignedNotification } from '../operator-polling.ts'
import type { ProviderAdapter, ProviderOutcome, ProviderRequest } from '../provider.ts'
import { createOrangeClient, type OrangeConnection } from './client.ts'

type OrangeCall = ReturnType<typeof createOrangeClient>

export interface OrangeMoneyAdapterOptions {
  connection: OrangeConnection
  notificationUrl: string
  /** Where Orange's page sends the customer back (return_url and cancel_url). */
  returnUrl(token: string): string
}

const webpayPath = (request: ProviderRequest, action: 'webpayment' | 'transactionstatus') =>
  `/orange-money-webpay/${request.country.toLowerCase()}/v1/${action}`

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null

/**
 * A webpayment Orange did not answer (a timeout, a 5xx) may exist at Orange, but its payment_url
 * never reached Sika, so no customer can have paid it; and without its pay_token transactionstatus
 * cannot be asked. The side waits for its first poll, which ends it: nothing moved.
 */
const noPaymentPage: ProviderOutcome = {
  status: 'error',
  reason: {
    code: 'operator_unavailable',
    message:
      'Orange Money did not answer the payment request, so its payment page never reached the customer.',
  },
}

/** transactionstatus as our outcome: SUCCESS succeeded, FAILED failed, EXPIRED canceled, else pending. */
function outcomeOfStatus(answer: OperatorAnswer, pollAfterMs: number): ProviderOutcome {
  const status = isObject(answer.body) ? answer.body.status : undefined
  // A status Orange gives is its own record of the payment, which proves it holds it.
  const record = typeof status === 'string' ? { fromOperatorRecord: true } : {}
  if (status === 'SUCCESS') return { status: 'succeeded', ...record }
  if (status === 'FAILED')
    return {
      status: 'failed',
      reason: { code: 'orange_failed', message: 'Orange Money declined the payment.' },
      ...record,
    }
  if (status === 'EXPIRED')
    return {
      status: 'canceled',
      reason: { code: 'orange_expired', message: 'The customer did not pay on Orange Money in time.' },
      ...record,
    }
  return { status: 'pending', pollAfterMs, ...record }
}

/** Web Payment has no payout and no refund: a refund of an Orange collect cannot go through Orange. */
const cannotPayOut = (request: ProviderRequest): ProviderOutcome => ({
  status: 'error',
  reason: request.refund
    ? {
        code: 'operator_cannot_refund',
        message:
          'Orange Money Web Payment can neither refund nor pay out, so the customer must be paid back another way.',
      }
    : { code: 'operator_cannot_pay_out', message: 'Orange Money Web Payment only collects.' },
})

/** POST webpayment: the customer pays at payment_url; the pay_token is kept for status checks. */
async function openWebPayment(
  options: OrangeMoneyAdapterOptions,
  call: OrangeCall,
  request: ProviderRequest,
  nowUs: number,
): Promise<ProviderOutcome> {
  if (request.direction !== 'cash-in') return cannotPayOut(request)
  const notifyAt = new URL(options.notificationUrl)
  notifyAt.searchParams.set('token', request.token)
  notifyAt.searchParams.set('role', request.role)
  let answer: OperatorAnswer
  try {
    answer = await call(webpayPath(request, 'webpayment'), {
      merchant_key: options.connection.merchantKey,
      currency: request.currency,
      order_id: request.token,
      amount: toMajorUnits(request.amountMinor, request.currency),
      return_url: options.returnUrl(request.token),
      cancel_url: options.returnUrl(request.token),
      notif_url: notifyAt.toString(),
      lang: 'fr',
      // "The field reference refers to the merchant name" on Orange's page: the statement text.
      reference: request.statementDescriptor ?? 'Sika',
    })
  } catch {
    return { status: 'pending', pollAfterMs: pollDelayMs(request, nowUs) }
  }
  const body = isObject(answer.body) ? answer.body : {}
  if (answer.status === 201 && typeof body.pay_token === 'string' && typeof body.payment_url === 'string')
    return {
      status: 'pending',
      providerReference: body.pay_token,
      redirectUrl: body.payment_url,
      pollAfterMs: 5_000,
    }
  // Orange's own failure: the payment may exist, unreachable; the first poll ends it.
  if (answer.status >= 500) return { status: 'pending', pollAfterMs: pollDelayMs(request, nowUs) }
  // Orange refused it: nothing was opened, so nothing can be paid or looked up.
  return {
    status: 'error',
    reason: {
      code: 'operator_refused',
      message: `Orange Money refused the payment (HTTP ${answer.status}).`,
    },
  }
}

/**
 * Orange Money Web Payment (CONTRACT.md, Operators): cash-in only. The customer pays on Orange's
 * page (payment_url becomes the record's redirectUrl); the pay_token is kept as the side's
 * provider reference for status checks. Notifications are unsigned: they only trigger one.
 */
export function createOrangeMoneyAdapter(options: OrangeMoneyAdapterOptions): ProviderAdapter {
  const call = createOrangeClient(options.connection)
  const amountOf = (request: ProviderRequest) => toMajorUnits(request.amountMinor, request.currency)

  const initiate = (request: ProviderRequest, nowUs: number) => openWebPayment(options, call, request, nowUs)

  async function pollStatus(request: ProviderRequest, nowUs: number): Promise<ProviderOutcome> {
    const delay = pollDelayMs(request, nowUs)
    if (!request.providerReference) return noPaymentPage
    try {
      const answer = await call(webpayPath(request, 'transactionstatus'), {
        order_id: request.token,
        amount: amountOf(request),
        pay_token: request.providerReference,
      })
      return outcomeOfStatus(answer, delay)
    } catch {
      return { status: 'pending', pollAfterMs: delay }
    }
  }

  return {
    name: 'orange-money',
    // Web Payment is a checkout the customer pays: Orange offers no payout in this API.
    directions: ['cash-in'],
    initiate,
    pollStatus,
    parseNotification: async ({ query }) => unsignedNotification(query),
  }
}
