/**
 * The answers Orange gives when it refuses a request (see SOURCES.md). Two shapes exist: the
 * OAuth token endpoint's RFC 6749 `{error, error_description}`, and the `{code, message,
 * description}` every other Orange API answers with, codes from Orange's common error table.
 */
export interface Refusal {
  readonly status: number
  readonly body: Record<string, unknown>
}

function orangeError(status: number, code: number, message: string, description: string): Refusal {
  return { status, body: { code, message, description } }
}

function oauthError(status: number, error: string, description: string): Refusal {
  return { status, body: { error, error_description: description } }
}

/**
 * The text Go's validator writes for a failed field rule, which Orange's WebPay backend puts in
 * `description` (a published example: "Key: 'GetTransactionStatusInfo.OrderId' Error:Field
 * validation for 'OrderId' failed on the 'required' tag").
 */
export function fieldRuleText(struct: string, field: string, tag: string): string {
  return `Key: '${struct}.${field}' Error:Field validation for '${field}' failed on the '${tag}' tag`
}

export const refusals = {
  // The token endpoint (POST /oauth/v3/token).
  noClientCredentials: (): Refusal =>
    oauthError(401, 'invalid_client', 'The requested service needs credentials, but none were provided.'),
  undecodableBasic: (): Refusal => oauthError(401, 'invalid_client', 'Unable to decode Basic authorization.'),
  invalidClient: (): Refusal =>
    oauthError(
      401,
      'invalid_client',
      'The requested service needs credentials, but the ones provided were invalid.',
    ),
  missingGrantType: (): Refusal =>
    oauthError(400, 'invalid_request', 'The request is missing a required parameter: grant_type.'),
  unsupportedGrantType: (): Refusal =>
    oauthError(400, 'unsupported_grant_type', 'The authorization grant type is not supported.'),

  // Every API call's bearer token.
  missingCredentials: (): Refusal =>
    orangeError(
      401,
      40,
      'Missing credentials',
      'The requested service needs credentials, but none were provided.',
    ),
  invalidCredentials: (): Refusal =>
    orangeError(
      401,
      41,
      'Invalid credentials',
      'The requested service needs credentials, but the ones provided were invalid.',
    ),
  expiredCredentials: (): Refusal =>
    orangeError(
      401,
      42,
      'Expired credentials',
      'The requested service needs credentials, and the ones provided were out-of-date.',
    ),

  // The gateway's own answers.
  resourceNotFound: (): Refusal =>
    orangeError(404, 60, 'Resource not found', 'The requested URI or the requested resource does not exist.'),
  methodNotAllowed: (): Refusal =>
    orangeError(405, 61, 'Method not allowed', 'The URI does not support the requested method.'),

  // The WebPay backend's answers.
  invalidBody: (): Refusal =>
    orangeError(400, 22, 'Invalid body', 'The posted body is not well-formed and thus can not be parsed.'),
  missingBodyField: (description: string): Refusal => orangeError(400, 23, 'Missing body field', description),
  invalidBodyField: (description: string): Refusal => orangeError(400, 24, 'Invalid body field', description),
  accessDenied: (description: string): Refusal => orangeError(403, 50, 'Access denied', description),
  transactionNotFound: (): Refusal =>
    orangeError(404, 60, 'Resource not found', 'No transaction matches this order_id, amount and pay_token.'),
  internalError: (): Refusal =>
    orangeError(
      500,
      1,
      'Internal error',
      'Returned when an internal error occurred. Try your request later.',
    ),
} as const
