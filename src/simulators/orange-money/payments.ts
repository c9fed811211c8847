import { randomBytes, randomInt } from 'node:crypto'
import type { SimulatorOutcome } from '../test-numbers.ts'

/** The statuses of Orange's transaction status API, and only those. */
export type WebPaymentStatus = 'INITIATED' | 'PENDING' | 'SUCCESS' | 'FAILED' | 'EXPIRED'

export const webPaymentStatuses: readonly WebPaymentStatus[] = [
  'INITIATED',
  'PENDING',
  'SUCCESS',
  'FAILED',
  'EXPIRED',
]

/** What a checked webpayment body carries. */
export interface WebPaymentRequest {
  readonly merchantKey: string
  readonly currency: string
  readonly orderId: string
  readonly amount: number
  readonly returnUrl: string
  readonly cancelUrl: string
  readonly notifUrl: string
  readonly lang: string | undefined
  readonly reference: string | undefined
}

/** One web payment session, as the WebPay backend holds it. */
export interface WebPayment {
  readonly country: string
  readonly request: WebPaymentRequest
  readonly payToken: string
  readonly notifToken: string
  readonly createdAtMs: number
  status: WebPaymentStatus
  /** The customer's number, once they confirmed on the page (or a control path paid as them). */
  msisdn: string | undefined
  outcome: SimulatorOutcome | undefined
  /** Orange's transaction id, given when the customer confirms. */
  txnid: string | undefined
  confirmedAtMs: number | undefined
  settledAtMs: number | undefined
  cancelledAtMs: number | undefined
  notificationSent: boolean
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0')

/**
 * Shaped as Orange's examples: "MP150709.1341.A00073", that is MP, the date (yyMMdd), the time
 * (HHmm) and a sequence letter and number.
 */
export function newTxnid(now = new Date()): string {
  const date = `${pad(now.getUTCFullYear() % 100)}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}`
  const time = `${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}`
  const letter = String.fromCharCode(65 + randomInt(26))
  return `MP${date}.${time}.${letter}${pad(randomInt(100_000), 5)}`
}

/** pay_token is 64 hexadecimal characters and notif_token 32, as in Orange's example answer. */
export function newPayment(country: string, request: WebPaymentRequest): WebPayment {
  return {
    country,
    request,
    payToken: randomBytes(32).toString('hex'),
    notifToken: randomBytes(16).toString('hex'),
    createdAtMs: Date.now(),
    status: 'INITIATED',
    msisdn: undefined,
    outcome: undefined,
    txnid: undefined,
    confirmedAtMs: undefined,
    settledAtMs: undefined,
    cancelledAtMs: undefined,
    notificationSent: false,
  }
}

/** Every payment, by pay_token and by order_id ("the field order_id must be unique for the system"). */
export class PaymentBook {
  private readonly byPayToken = new Map<string, WebPayment>()
  private readonly byOrderId = new Map<string, WebPayment>()
  private readonly inOrder: WebPayment[] = []

  add(payment: WebPayment): void {
    this.byPayToken.set(payment.payToken, payment)
    this.byOrderId.set(payment.request.orderId, payment)
    this.inOrder.push(payment)
  }

  hasOrder(orderId: string): boolean {
    return this.byOrderId.has(orderId)
  }

  byToken(payToken: string): WebPayment | undefined {
    return this.byPayToken.get(payToken)
  }

  /** A payment by its pay_token or its order_id, for the control paths. */
  find(id: string): WebPayment | undefined {
    return this.byPayToken.get(id) ?? this.byOrderId.get(id)
  }

  all(): readonly WebPayment[] {
    return this.inOrder
  }
}

/**
 * The transaction status answer: `{status, order_id, txnid}` as in Orange's example; txnid is
 * left out until the customer has confirmed, as there is no transaction before that.
 */
export function statusView(payment: WebPayment): Record<string, unknown> {
  const view: Record<string, unknown> = { status: payment.status, order_id: payment.request.orderId }
  if (payment.txnid !== undefined) view.txnid = payment.txnid
  return view
}
