import type { IncomingMessage } from 'node:http'
import { amountProblem, currencyMessage, isKnownCurrency } from './amounts.ts'
import type { SimulatorConfig } from './config.ts'
import { type ErrorDetail, type Refusal, refusals } from './errors.ts'
import { header } from './http-io.ts'

export type Checked<T> = { readonly value: T; readonly refusal?: undefined } | { readonly refusal: Refusal }

/** The fields a create body carries, checked, and the validation errors found so far. */
class FieldReader {
  readonly details: ErrorDetail[] = []

  constructor(private readonly body: Record<string, unknown>) {}

  fail(name: string, msg: string, type = 'value_error'): undefined {
    this.details.push({ loc: [name], msg, type })
    return undefined
  }

  /** A required string; a missing one fails as pydantic says it ("field required"). */
  required(name: string, maxLength = 255): string | undefined {
    const value = this.body[name]
    if (value === undefined || value === null) return this.fail(name, 'field required', 'value_error.missing')
    return this.text(name, value, maxLength)
  }

  /** An optional string: absent and null are the same. */
  optional(name: string, maxLength = 255): string | undefined {
    const value = this.body[name]
    if (value === undefined || value === null) return undefined
    return this.text(name, value, maxLength)
  }

  raw(name: string): unknown {
    return this.body[name]
  }

  private text(name: string, value: unknown, maxLength: number): string | undefined {
    if (typeof value !== 'string') return this.fail(name, 'str type expected', 'type_error.str')
    if (value.length > maxLength) {
      return this.fail(
        name,
        `ensure this value has at most ${maxLength} characters`,
        'value_error.any_str.max_length',
      )
    }
    return value
  }
}

/**
 * The body of a POST that creates something: JSON with `Content-Type: application/json`
 * (`request-not-json` otherwise), well formed (`request-parsing-error`), an object.
 */
export function parseJsonObject(request: IncomingMessage, raw: string): Checked<Record<string, unknown>> {
  const contentType = header(request, 'content-type') ?? ''
  if (!/^application\/json\b/i.test(contentType) || raw.trim() === '')
    return { refusal: refusals.requestNotJson() }
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch (error) {
    return { refusal: refusals.requestParsingError((error as Error).message) }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { refusal: refusals.requestParsingError('the body must be a JSON object') }
  }
  return { value: parsed as Record<string, unknown> }
}

/** E.164 with its `+` and country code, as the docs' Phone number type requires. */
export function isE164(value: string): boolean {
  return /^\+[1-9]\d{7,14}$/.test(value)
}

function checkMobile(reader: FieldReader, name: string, required: boolean): string | undefined {
  const value = required ? reader.required(name) : reader.optional(name)
  if (value === undefined || isE164(value)) return value
  return reader.fail(name, 'Invalid phone number. Phone numbers must be in E.164 format, e.g. +221555110219.')
}

function checkCurrency(reader: FieldReader): string | undefined {
  const value = reader.required('currency')
  if (value === undefined || isKnownCurrency(value)) return value
  return reader.fail('currency', currencyMessage(value))
}

function checkAmount(reader: FieldReader, name: string, currency: string | undefined): string | undefined {
  const value = reader.raw(name)
  if (value === undefined || value === null) return reader.fail(name, 'field required', 'value_error.missing')
  const problem = amountProblem(value, currency)
  return problem === undefined ? (value as string) : reader.fail(name, problem)
}

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '[::1]'])

/**
 * success_url and error_url are absolute https URLs. Plain http is accepted only on a loopback
 * host, so that a test can receive the customer's browser without TLS (see SOURCES.md).
 */
function checkRedirectUrl(reader: FieldReader, name: string): string | undefined {
  const value = reader.required(name, 2048)
  if (value === undefined) return undefined
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return reader.fail(name, 'invalid or missing URL scheme', 'value_error.url.scheme')
  }
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && loopbackHosts.has(url.hostname))
  return secure ? value : reader.fail(name, 'URL scheme not permitted: use https', 'value_error.url.scheme')
}

export interface CheckoutRequest {
  readonly amount: string
  readonly currency: string
  readonly successUrl: string
  readonly errorUrl: string
  readonly clientReference: string | undefined
  readonly restrictPayerMobile: string | undefined
  readonly aggregatedMerchantId: string | undefined
}

/** POST /v1/checkout/sessions: every field checked, every failure reported together. */
export function checkCheckoutBody(
  body: Record<string, unknown>,
  config: SimulatorConfig,
): Checked<CheckoutRequest> {
  const reader = new FieldReader(body)
  const currency = checkCurrency(reader)
  const amount = checkAmount(reader, 'amount', currency)
  const successUrl = checkRedirectUrl(reader, 'success_url')
  const errorUrl = checkRedirectUrl(reader, 'error_url')
  const clientReference = reader.optional('client_reference')
  const restrictPayerMobile = checkMobile(reader, 'restrict_payer_mobile', false)
  const aggregatedMerchantId = reader.optional('aggregated_merchant_id')
  if (currency !== undefined && isKnownCurrency(currency) && !config.currencies.includes(currency)) {
    reader.fail('currency', `The currency ${currency} is not supported by this wallet.`)
  }
  if (reader.details.length > 0 || amount === undefined || currency === undefined) {
    return { refusal: refusals.validation(config.validationErrorStatus, reader.details) }
  }
  return {
    value: {
      amount,
      currency,
      successUrl: successUrl as string,
      errorUrl: errorUrl as string,
      clientReference,
      restrictPayerMobile,
      aggregatedMerchantId,
    },
  }
}

export interface PayoutRequest {
  readonly currency: string
  readonly receiveAmount: string
  readonly mobile: string
  readonly name: string | undefined
  readonly nationalId: string | undefined
  readonly paymentReason: string | undefined
  readonly clientReference: string | undefined
  readonly aggregatedMerchantId: string | undefined
}

/** POST /v1/payout: the docs' Parameters table (payment_reason up to 40 characters, others 255). */
export function checkPayoutBody(
  body: Record<string, unknown>,
  config: SimulatorConfig,
): Checked<PayoutRequest> {
  const reader = new FieldReader(body)
  const currency = checkCurrency(reader)
  const receiveAmount = checkAmount(reader, 'receive_amount', currency)
  const mobile = checkMobile(reader, 'mobile', true)
  const name = reader.optional('name')
  const nationalId = reader.optional('national_id')
  const paymentReason = reader.optional('payment_reason', 40)
  const clientReference = reader.optional('client_reference')
  const aggregatedMerchantId = reader.optional('aggregated_merchant_id')
  if (
    reader.details.length > 0 ||
    currency === undefined ||
    receiveAmount === undefined ||
    mobile === undefined
  ) {
    return { refusal: refusals.validation(config.validationErrorStatus, reader.details) }
  }
  if (!config.currencies.includes(currency)) return { refusal: refusals.currencyMismatch() }
  return {
    value: {
      currency,
      receiveAmount,
      mobile,
      name,
      nationalId,
      paymentReason,
      clientReference,
      aggregatedMerchantId,
    },
  }
}
