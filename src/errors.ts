/**
 * The error registry: every code the API can answer with, its HTTP status and its meaning.
 * docs/guide/errors.md lists them for merchants; a test checks that it, this registry and the
 * OpenAPI document agree.
 */
export const errorRegistry = {
  invalid_json: { status: 400, message: 'The request body is not valid JSON.' },
  bad_request: { status: 400, message: 'The request is not valid HTTP/1.1.' },
  missing_credentials: { status: 401, message: 'The api-key and secret-key headers are both required.' },
  invalid_credentials: {
    status: 401,
    message: 'The api-key and secret-key do not match an active key pair.',
  },
  merchant_suspended: { status: 403, message: 'This merchant account is suspended.' },
  payouts_paused: {
    status: 403,
    message: "The platform has paused this merchant's payouts; collects go on.",
  },
  not_found: { status: 404, message: 'Not found.' },
  method_not_allowed: { status: 405, message: 'This method is not allowed on this path.' },
  request_timeout: {
    status: 408,
    message: 'The request was not received in time; send it whole, at once.',
  },
  duplicate_merchant_reference: {
    status: 409,
    message: 'This merchantReference was already used with a different request.',
  },
  refund_exceeds_collected: {
    status: 409,
    message: 'The refunds of this collect would add up to more than was collected.',
  },
  not_cancelable: {
    status: 409,
    message: 'This payout has reached its operator and can no longer be canceled.',
  },
  payload_too_large: {
    status: 413,
    message: 'The request body is larger than 64 KiB (2 MiB for a payout batch).',
  },
  unsupported_media_type: {
    status: 415,
    message: 'Request bodies must be JSON (content-type: application/json).',
  },
  validation_failed: { status: 422, message: 'The request is not valid.' },
  insufficient_balance: { status: 422, message: 'The available balance does not cover this operation.' },
  channel_unavailable: { status: 422, message: 'This channel does not serve this country and operation.' },
  amount_out_of_range: { status: 422, message: 'The amount is outside the limits of this channel.' },
  not_refundable: { status: 422, message: 'Only a succeeded collect can be refunded.' },
  link_unavailable: {
    status: 422,
    message: 'This payment link takes no more payments: it is expired, closed or completed.',
  },
  limit_exceeded: {
    status: 422,
    message: "The operation is past one of this merchant's limits (maxAmount or dailyPayoutLimit).",
  },
  rate_limited: { status: 429, message: 'Too many requests; retry after the delay in Retry-After.' },
  headers_too_large: { status: 431, message: 'The request headers are too large (16 KiB at most).' },
  internal_error: { status: 500, message: 'An internal error occurred.' },
  unavailable: { status: 503, message: 'The service is temporarily unavailable; retry shortly.' },
} as const satisfies Record<string, { status: number; message: string }>

export type ErrorCode = keyof typeof errorRegistry

/** One field at fault in a request: `customer.phoneNumber`, `amount`, `page`... */
export interface FieldError {
  field: string
  code: string
  message: string
}

/** An expected failure, carried as a value up to the one place that renders it. */
export class ApiError extends Error {
  readonly status: number
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
    /** Fields the envelope carries beside the standard ones (the 409's `token`). */
    readonly details?: Record<string, string | number>,
  ) {
    const status = errorRegistry[code].status
    const stackTraceLimit = Error.stackTraceLimit
    // A refusal (4xx) is expected and its stack says nothing, yet capturing it costs more than the
    // rest of the answer, and a flood of 429s repeats it. A 5xx keeps it, for the log.
    if (status < 500) Error.stackTraceLimit = 0
    super(message ?? errorRegistry[code].message)
    Error.stackTraceLimit = stackTraceLimit
    this.status = status
  }
}

/** At most this many field errors are listed (and named in the message); the message says how many more there were. */
export const listedErrorsLimit = 20

export function validationFailed(errors: FieldError[], code: ErrorCode = 'validation_failed'): ApiError {
  const message =
    code === 'validation_failed'
      ? `The request is not valid: ${errors
          .slice(0, listedErrorsLimit)
          .map((error) => error.field || 'body')
          .join(', ')}.`
      : undefined
  return new ApiError(code, message, errors)
}
