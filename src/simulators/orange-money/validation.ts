import { fieldRuleText, type Refusal, refusals } from './errors.ts'
import type { WebPaymentRequest } from './payments.ts'

export type Checked<T> = { readonly value: T; readonly refusal?: undefined } | { readonly refusal: Refusal }

/** A body field: its JSON name, the Go field name Orange's validator reports, and its rules. */
interface FieldRule {
  readonly name: string
  readonly goName: string
  readonly required: boolean
  readonly maxLength?: number
  readonly url?: boolean
}

/**
 * The webpayment body, in the order of Orange's example. "The fields order_id and reference are
 * limited to 30 chars and return_url, cancel_url and notify_url to 120 chars" (WebPay Dev guide).
 */
const webPaymentFields: readonly FieldRule[] = [
  { name: 'merchant_key', goName: 'MerchantKey', required: true },
  { name: 'currency', goName: 'Currency', required: true },
  { name: 'order_id', goName: 'OrderId', required: true, maxLength: 30 },
  { name: 'return_url', goName: 'ReturnUrl', required: true, maxLength: 120, url: true },
  { name: 'cancel_url', goName: 'CancelUrl', required: true, maxLength: 120, url: true },
  { name: 'notif_url', goName: 'NotifUrl', required: true, maxLength: 120, url: true },
  { name: 'lang', goName: 'Lang', required: false },
  { name: 'reference', goName: 'Reference', required: false, maxLength: 30 },
]

const statusOrderId: FieldRule = { name: 'order_id', goName: 'OrderId', required: true }
const statusPayToken: FieldRule = { name: 'pay_token', goName: 'PayToken', required: true }

function parseObject(body: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(body)
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || value === ''
}

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value)
    return protocol === 'http:' || protocol === 'https:'
  } catch {
    return false
  }
}

/** The first broken rule of one string field, as Orange's backend would word it. */
function checkStringField(struct: string, rule: FieldRule, value: unknown): Refusal | undefined {
  if (isAbsent(value)) {
    return rule.required
      ? refusals.missingBodyField(fieldRuleText(struct, rule.goName, 'required'))
      : undefined
  }
  if (typeof value !== 'string') {
    return refusals.invalidBodyField(
      `json: cannot unmarshal ${typeof value} into Go struct field ${struct}.${rule.name} of type string`,
    )
  }
  if (rule.maxLength !== undefined && value.length > rule.maxLength) {
    return refusals.invalidBodyField(fieldRuleText(struct, rule.goName, 'max'))
  }
  if (rule.url === true && !isHttpUrl(value)) {
    return refusals.invalidBodyField(fieldRuleText(struct, rule.goName, 'url'))
  }
  return undefined
}

/**
 * The amount is an integer of the currency's unit (the guide sends `"amount": 1200`). A string of
 * digits is taken too, as several public SDKs send one; a decimal, zero or a negative is refused.
 */
function checkAmount(struct: string, value: unknown): Checked<number> {
  if (isAbsent(value))
    return { refusal: refusals.missingBodyField(fieldRuleText(struct, 'Amount', 'required')) }
  const amount = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount)) {
    const shown = typeof value === 'number' ? `number ${value}` : typeof value
    return {
      refusal: refusals.invalidBodyField(
        `json: cannot unmarshal ${shown} into Go struct field ${struct}.amount of type int`,
      ),
    }
  }
  if (amount <= 0) return { refusal: refusals.invalidBodyField(fieldRuleText(struct, 'Amount', 'gt')) }
  return { value: amount }
}

function checkFields(
  struct: string,
  rules: readonly FieldRule[],
  body: Record<string, unknown>,
): Refusal | undefined {
  for (const rule of rules) {
    const refusal = checkStringField(struct, rule, body[rule.name])
    if (refusal) return refusal
  }
  return undefined
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined

/** The body of POST /orange-money-webpay/{country}/v1/webpayment, checked field by field. */
export function checkWebPaymentBody(raw: string): Checked<WebPaymentRequest> {
  const body = parseObject(raw)
  if (body === undefined) return { refusal: refusals.invalidBody() }
  const [before, after] = [webPaymentFields.slice(0, 3), webPaymentFields.slice(3)]
  const early = checkFields('WebPaymentInfo', before, body)
  if (early) return { refusal: early }
  const amount = checkAmount('WebPaymentInfo', body.amount)
  if (amount.refusal) return amount
  const late = checkFields('WebPaymentInfo', after, body)
  if (late) return { refusal: late }
  return {
    value: {
      merchantKey: body.merchant_key as string,
      currency: body.currency as string,
      orderId: body.order_id as string,
      amount: amount.value,
      returnUrl: body.return_url as string,
      cancelUrl: body.cancel_url as string,
      notifUrl: body.notif_url as string,
      lang: text(body.lang),
      reference: text(body.reference),
    },
  }
}

export interface StatusQuery {
  readonly orderId: string
  readonly amount: number
  readonly payToken: string
}

/** The body of POST /orange-money-webpay/{country}/v1/transactionstatus. */
export function checkStatusBody(raw: string): Checked<StatusQuery> {
  const body = parseObject(raw)
  if (body === undefined) return { refusal: refusals.invalidBody() }
  const orderRefusal = checkStringField('GetTransactionStatusInfo', statusOrderId, body.order_id)
  if (orderRefusal) return { refusal: orderRefusal }
  const amount = checkAmount('GetTransactionStatusInfo', body.amount)
  if (amount.refusal) return amount
  const tokenRefusal = checkStringField('GetTransactionStatusInfo', statusPayToken, body.pay_token)
  if (tokenRefusal) return { refusal: tokenRefusal }
  return {
    value: { orderId: body.order_id as string, amount: amount.value, payToken: body.pay_token as string },
  }
}
