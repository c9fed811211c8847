/**
 * pawaPay's failure codes (docs.pawapay.io/v2/docs/failure_codes) and the answers that carry them.
 * Every failure is a `failureReason: {failureCode, failureMessage}`; the HTTP status is the one the
 * failure-codes table gives (200 for rejections of a well-formed request). Messages quote pawaPay's
 * published examples where there is one (SOURCES.md lists which).
 */
export interface FailureReason {
  readonly failureCode: string
  readonly failureMessage: string
}

export interface Refusal {
  readonly status: number
  readonly reason: FailureReason
}

const refusal = (status: number, failureCode: string, failureMessage: string): Refusal => ({
  status,
  reason: { failureCode, failureMessage },
})

/** Technical failures: the request itself is wrong (400, 401, 403, 500). */
export const technical = {
  noAuthentication: () =>
    refusal(401, 'NO_AUTHENTICATION', 'We did not find the API token in the request headers.'),
  authenticationError: (status: number) =>
    refusal(status, 'AUTHENTICATION_ERROR', 'The API token in the request is invalid.'),
  invalidInput: () =>
    refusal(
      400,
      'INVALID_INPUT',
      'We are unable to parse the body of the request. Please consult API documentation for valid request payload.',
    ),
  missingParameter: (name: string) =>
    refusal(400, 'MISSING_PARAMETER', `The request is missing the mandatory parameter '${name}'.`),
  unsupportedParameter: (name: string) =>
    refusal(400, 'UNSUPPORTED_PARAMETER', `The parameter '${name}' is not supported by this endpoint.`),
  invalidParameter: (name: string, why: string) =>
    refusal(400, 'INVALID_PARAMETER', `The value of the parameter '${name}' is invalid: ${why}`),
  duplicateMetadataField: (name: string) =>
    refusal(400, 'DUPLICATE_METADATA_FIELD', `The metadata field '${name}' is included more than once.`),
  unknownError: () => refusal(500, 'UNKNOWN_ERROR', 'Unable to process request due to an unknown problem.'),
  /** pawaPay says bulks over its limit "may be rejected"; how is not published (SOURCES.md). */
  bulkTooLarge: (size: number, largest: number) =>
    refusal(
      400,
      'INVALID_INPUT',
      `The bulk request carries ${size} payouts; send at most ${largest} in one request.`,
    ),
  /** A bulk item's shape failure, named by its place in the array (how pawaPay names it is not published). */
  inBulkItem: (index: number, refused: Refusal) =>
    refusal(
      refused.status,
      refused.reason.failureCode,
      `Payout [${index}]: ${refused.reason.failureMessage}`,
    ),
  /** Not a documented code: what the simulator answers for a path pawaPay does not publish. */
  unknownPath: () => refusal(404, 'NOT_FOUND', 'The requested endpoint does not exist.'),
} as const

/** Rejections of a well-formed initiation: answered 200 with status REJECTED. */
export const rejections = {
  invalidProvider: (provider: string) =>
    refusal(200, 'INVALID_PROVIDER', `The provider '${provider}' is not valid for the request.`),
  providerUnavailable: (provider: string) =>
    refusal(
      200,
      'PROVIDER_TEMPORARILY_UNAVAILABLE',
      `The provider '${provider}' is currently not able to process payments. Please consult our status page for downtime information on all providers. Programmatic access is also available, please consult our API docs.`,
    ),
  invalidCurrency: (currency: string, provider: string) =>
    refusal(
      200,
      'INVALID_CURRENCY',
      `The currency '${currency}' is not supported by the provider '${provider}'.`,
    ),
  invalidPhoneNumber: (phoneNumber: string, provider: string) =>
    refusal(
      200,
      'INVALID_PHONE_NUMBER',
      `The phone number '${phoneNumber}' seems to be invalid for the provider '${provider}'.`,
    ),
  invalidAmount: (provider: string) =>
    refusal(
      200,
      'INVALID_AMOUNT',
      `The number of decimal places in the amount is not supported by the provider '${provider}'.`,
    ),
  amountOutOfBounds: (min: string, max: string) =>
    refusal(200, 'AMOUNT_OUT_OF_BOUNDS', `The amount must be between ${min} and ${max}.`),
  notFound: (label: string, id: string) => refusal(200, 'NOT_FOUND', `${label} with ID #${id} not found`),
  invalidState: (label: string, id: string, why: string) =>
    refusal(200, 'INVALID_STATE', `${label} with ID #${id} ${why}`),
  amountTooLarge: () =>
    refusal(200, 'AMOUNT_TOO_LARGE', 'The amount is larger than what remains to be refunded on the deposit.'),
  depositAlreadyRefunded: (id: string) =>
    refusal(200, 'DEPOSIT_ALREADY_REFUNDED', `Deposit with ID #${id} has already been fully refunded.`),
  notEnqueued: (label: string, id: string, status: string) =>
    refusal(200, 'INVALID_STATE', `${label} with ID #${id} is in ${status} status, not ENQUEUED.`),
  refundInProgress: (id: string) =>
    refusal(200, 'REFUND_IN_PROGRESS', `Another refund of the deposit with ID #${id} is being processed.`),
} as const

/** Messages of the failures a payment ends with (a FAILED status's failureReason). */
const transactionMessages: Record<string, string> = {
  PAYMENT_NOT_APPROVED: 'The customer did not approve the authorisation for this payment',
  INSUFFICIENT_BALANCE: 'The customer does not have enough funds to complete this payment.',
  PAYER_NOT_FOUND: 'The phone number does not belong to a customer of the provider.',
  RECIPIENT_NOT_FOUND: 'The phone number does not belong to a customer of the provider.',
  WALLET_LIMIT_REACHED: 'The customer has reached a limit of their mobile money wallet.',
  PAYER_LIMIT_REACHED: 'The customer has reached a limit of their mobile money wallet.',
  MANUALLY_CANCELLED: 'The payment was cancelled manually.',
  UNSPECIFIED_FAILURE: 'The provider failed the payment without giving a reason.',
  UNKNOWN_ERROR: 'Unable to process request due to an unknown problem.',
}

export function transactionFailure(failureCode: string, failureMessage?: string): FailureReason {
  return { failureCode, failureMessage: failureMessage ?? transactionMessages[failureCode] ?? failureCode }
}
