/**
 * The answers Wave gives when it refuses a request: always a JSON `{code, message}` with a
 * kebab-case code, plus `details` for a validation error (docs.wave.com/business "Errors",
 * docs.wave.com/payout "Errors"). Codes and messages follow the docs' tables; see SOURCES.md.
 */
export interface Refusal {
  readonly status: number
  readonly body: ErrorBody
}

/** One failed field of a validation error, shaped as the docs' example (`loc`, `msg`, `type`). */
export interface ErrorDetail {
  readonly loc: readonly (string | number)[]
  readonly msg: string
  readonly type: string
}

export interface ErrorBody {
  readonly code: string
  readonly message: string
  readonly details?: readonly ErrorDetail[]
}

function refusal(status: number, code: string, message: string): Refusal {
  return { status, body: { code, message } }
}

export const authRefusals = {
  missingAuthHeader: () =>
    refusal(401, 'missing-auth-header', 'Your request should include an HTTP auth header.'),
  invalidAuth: () => refusal(401, 'invalid-auth', "Your HTTP auth header can't be processed."),
  apiKeyNotProvided: () => refusal(401, 'api-key-not-provided', 'Your request should include an API key.'),
  noMatchingApiKey: () =>
    refusal(401, 'no-matching-api-key', "The key you provided doesn't exist in our system."),
  apiKeyRevoked: () => refusal(401, 'api-key-revoked', 'Your API key has been revoked.'),
} as const

export const refusals = {
  /** A validation error: `message` "Request invalid" and the failed fields in `details`. */
  validation: (status: number, details: readonly ErrorDetail[]): Refusal => ({
    status,
    body: { code: 'request-validation-error', message: 'Request invalid', details },
  }),
  /** A validation error the docs show without details (a missing Idempotency-Key). */
  validationMessage: (status: number, message: string) =>
    refusal(status, 'request-validation-error', message),
  requestNotJson: () =>
    refusal(
      400,
      'request-not-json',
      'Your request does not have a JSON body or is missing the Content-Type header "application/json".',
    ),
  requestParsingError: (detail: string) =>
    refusal(400, 'request-parsing-error', `The JSON body of this request is invalid: ${detail}`),
  checkoutSessionNotFound: () =>
    refusal(404, 'checkout-session-not-found', 'The checkout session was not found.'),
  notFound: () => refusal(404, 'not-found', 'The requested payout was not found.'),
  unknownPath: () => refusal(404, 'not-found', 'The requested URL was not found on this server.'),
  methodNotAllowed: () =>
    refusal(405, 'method-not-allowed', 'The URL path and method combination does not exist on this API.'),
  idempotencyMismatch: () =>
    refusal(
      409,
      'idempotency-mismatch',
      'You submitted a request with an idempotency key that you already used in a previous request, but the request content does not match.',
    ),
  checkoutRefundFailed: () =>
    refusal(
      409,
      'checkout-refund-failed',
      'Only a checkout session whose payment succeeded can be refunded.',
    ),
  checkoutSessionNotOpen: () =>
    refusal(409, 'checkout-session-not-open', 'Only an open checkout session can be expired.'),
  payoutNotReversible: () =>
    refusal(409, 'payout-not-reversible', 'Only a payout that succeeded can be reversed.'),
  payoutReversalTimeLimitExceeded: () =>
    refusal(
      400,
      'payout-reversal-time-limit-exceeded',
      'The time limit for reversing this payout has passed.',
    ),
  currencyMismatch: () =>
    refusal(
      400,
      'currency-mismatch',
      "The currency you specified does not match the currency of your wallet or the recipient's wallet.",
    ),
  internalServerError: () =>
    refusal(
      500,
      'internal-server-error',
      'A technical error has occurred in the Wave system. You can retry the request with the same idempotency key.',
    ),
} as const
