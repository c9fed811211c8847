/**
 * The answers MTN's gateway gives when it refuses a request, each shaped as MoMo answers it (see
 * SOURCES.md). Three shapes exist: the wallet platform's `{code, message}` (its ErrorReason), the
 * token endpoint's `{error}`, and Azure API Management's `{statusCode, message}` for what the
 * gateway in front refuses before the wallet platform sees it.
 */
export interface Refusal {
  readonly status: number
  /** Undefined for the answers MoMo sends without a body. */
  readonly body: Record<string, unknown> | undefined
}

function walletError(status: number, code: string, message: string): Refusal {
  return { status, body: { code, message } }
}

export const refusals = {
  missingSubscriptionKey: (): Refusal => ({
    status: 401,
    body: {
      statusCode: 401,
      message:
        'Access denied due to missing subscription key. Make sure to include subscription key when making requests to an API.',
    },
  }),
  invalidSubscriptionKey: (): Refusal => ({
    status: 401,
    body: {
      statusCode: 401,
      message:
        'Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.',
    },
  }),
  /** An operation the gateway does not publish (a wrong path, a missing trailing slash, a wrong method). */
  unknownOperation: (): Refusal => ({
    status: 404,
    body: { statusCode: 404, message: 'Resource not found' },
  }),
  /** POST /{product}/token/ with credentials the wallet platform does not know. */
  loginFailed: (): Refusal => ({ status: 401, body: { error: 'login_failed' } }),
  /** A bearer token that is missing, unknown, expired or issued for the other product. */
  invalidAccessToken: (): Refusal => ({ status: 401, body: undefined }),
  badRequest: (message: string): Refusal => walletError(400, 'BAD_REQUEST', message),
  alreadyExists: (): Refusal =>
    walletError(409, 'RESOURCE_ALREADY_EXIST', 'Duplicated reference id. Creation of resource failed.'),
  notFound: (): Refusal => walletError(404, 'RESOURCE_NOT_FOUND', 'Requested resource was not found.'),
  internalError: (): Refusal =>
    walletError(500, 'INTERNAL_PROCESSING_ERROR', 'An internal error occurred while processing.'),
  targetEnvironmentNotAllowed: (): Refusal =>
    walletError(500, 'NOT_ALLOWED_TARGET_ENVIRONMENT', 'Access to target environment is forbidden.'),
  invalidCallbackUrlHost: (): Refusal =>
    walletError(
      500,
      'INVALID_CALLBACK_URL_HOST',
      'Callback URL with different host name than configured for API user.',
    ),
  invalidCurrency: (): Refusal => walletError(500, 'INVALID_CURRENCY', 'Currency not supported.'),
} as const

/**
 * The messages of MTN's "Common Error Responses" table, used when a status's `reason` is given as
 * the documented ErrorReason object rather than the bare code the live API sends.
 */
const reasonMessages: Record<string, string> = {
  PAYEE_NOT_FOUND: 'Payee does not exist',
  PAYER_NOT_FOUND: 'Payer does not exist',
  NOT_ALLOWED: 'Authorization failed. Insufficient permissions',
  NOT_ENOUGH_FUNDS: 'The payer does not have enough funds',
  PAYER_LIMIT_REACHED: 'The payer limit has been reached',
  APPROVAL_REJECTED: 'The payer rejected the approval',
  EXPIRED: 'The request expired before the payer approved it',
  TRANSACTION_CANCELED: 'The transaction was canceled',
  INTERNAL_PROCESSING_ERROR: 'An internal error occurred while processing',
  COULD_NOT_PERFORM_TRANSACTION: 'The transaction could not be performed',
}

export function reasonObject(code: string): { code: string; message: string } {
  return { code, message: reasonMessages[code] ?? code }
}
