import { randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import FindMyWay, { type HTTPMethod } from 'find-my-way'
import type { AppContext } from '../app/context.ts'
import { isStoreUnavailable } from '../app/store-status.ts'
import { ApiError, type ErrorCode, errorRegistry, listedErrorsLimit, validationFailed } from '../errors.ts'
import { toFieldErrors } from './validation.ts'

/**
 * The one place where failures become HTTP answers: every error, expected or not, leaves in
 * the contract's envelope with the request's id, and nothing internal (stack, SQL) leaks.
 */
export function installErrorHandling(app: FastifyInstance, context: AppContext): void {
  // A second router holding every route, so an unmatched request can be told apart:
  // a known path with another method is a 405 with Allow, anything else a 404.
  const knownRoutes = FindMyWay({ ignoreTrailingSlash: true })
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    for (const method of methods) {
      if (method === 'HEAD' || knownRoutes.hasRoute(method as HTTPMethod, route.url)) continue
      knownRoutes.on(method as HTTPMethod, route.url, () => {})
    }
  })

  /** A known path with another method is a 405 naming the methods it takes (HEAD beside GET); anything else a 404. */
  const answerUnmatched = (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '/'
    const allowed = (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).filter(
      (method) => knownRoutes.find(method, path) !== null,
    )
    if (allowed.length > 0) {
      const allow = allowed.includes('GET') ? [...allowed, 'HEAD'] : allowed
      return sendError(
        reply,
        request,
        new ApiError(
          'method_not_allowed',
          `${request.method} is not allowed on ${path}; it takes ${allow.join(', ')}.`,
          undefined,
          { allow: allow.join(', ') },
        ),
      )
    }
    return sendError(reply, request, new ApiError('not_found', `No route for ${request.method} ${path}.`))
  }

  // Decided before the body is read: a DELETE with a JSON body that does not parse is a 405, and
  // a POST of one to an unknown path a 404, never a 400 (no route, so no body to read).
  // Callback-style hooks here and on every request's path: an async hook costs a promise and a
  // turn of the microtask queue per request even when it does nothing.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.is404) answerUnmatched(request, reply)
    else done()
  })
  app.setNotFoundHandler(answerUnmatched)

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error, context)
    if (apiError.status >= 500) {
      request.log.error(
        { err: error },
        apiError.code === 'unavailable' ? 'database unavailable' : 'unhandled error',
      )
    }
    return sendError(reply, request, apiError)
  })
}

/** A 503 is a "not now": the client is told when to try again, as for a 429. */
const unavailableRetryAfterSeconds = '1'

/**
 * The envelope is written as it is, not through the route's response schema: a code the schema
 * does not list would otherwise fail serialisation and leave as a 500 outside the envelope. The
 * OpenAPI document lists every code each route answers (openapi.ts; test/route-errors.test.ts).
 */
export function sendError(reply: FastifyReply, request: FastifyRequest, error: ApiError): FastifyReply {
  if (error.headers) reply.headers(error.headers)
  if (error.status === 503 && !reply.hasHeader('retry-after'))
    reply.header('retry-after', unavailableRetryAfterSeconds)
  return reply
    .code(error.status)
    .type('application/json; charset=utf-8')
    .serializer(JSON.stringify)
    .send(errorEnvelope(error, request.id))
}

/** The contract's error envelope: every refusal, whichever layer answers it, has this shape. */
export function errorEnvelope(error: ApiError, requestId: string): Record<string, unknown> {
  const listed = error.errors?.slice(0, listedErrorsLimit)
  const unlisted = (error.errors?.length ?? 0) - (listed?.length ?? 0)
  return {
    success: false,
    statusCode: error.status,
    code: error.code,
    message: unlisted > 0 ? `${error.message} ${unlisted} more problems are not listed.` : error.message,
    ...error.details,
    ...(listed ? { errors: listed } : {}),
    requestId,
  }
}

/** Node's parser's refusals, by its error code; anything else it refuses is a 400 bad_request. */
const clientErrors: Record<string, ErrorCode> = {
  ERR_HTTP_REQUEST_TIMEOUT: 'request_timeout',
  HPE_HEADER_OVERFLOW: 'headers_too_large',
}

/**
 * What Node's HTTP parser refuses before Fastify sees a request (a malformed request, headers
 * too large, a request too slow to arrive) still answers in the envelope, with a requestId for
 * the log line, then closes the connection.
 */
export function answerClientError(log: {
  warn(object: object, message: string): void
}): (error: NodeJS.ErrnoException, socket: Duplex) => void {
  return (error, socket) => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return
    const code = clientErrors[error.code ?? ''] ?? 'bad_request'
    const answer = { code, ...errorRegistry[code] }
    const requestId = randomUUID()
    log.warn({ requestId, err: { code: error.code, message: error.message } }, 'client error')
    const body = JSON.stringify({
      success: false,
      statusCode: answer.status,
      code: answer.code,
      message: answer.message,
      requestId,
    })
    if (socket.writable)
      socket.write(
        `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
      )
    socket.destroy()
  }
}

/** Fastify's refusals, as our codes; a message where the code's own would not say what to fix. */
const fastifyCodes: Record<string, ErrorCode | [ErrorCode, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_EMPTY_JSON_BODY: [
    'invalid_json',
    'The request body is empty; send a JSON object, or no Content-Type: application/json header.',
  ],
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_json',
  FST_ERR_BAD_URL: 'not_found',
}

function toApiError(error: FastifyError, context: AppContext): ApiError {
  if (error instanceof ApiError) return error
  if (error.validation) {
    // A token that cannot exist is as unknown as one that does not.
    if (error.validationContext === 'params') return new ApiError('not_found')
    const errors = toFieldErrors(error.validation as never)
    const fields = errors.slice(0, listedErrorsLimit).map((entry) => entry.field || 'body')
    return new ApiError('validation_failed', `The request is not valid: ${fields.join(', ')}.`, errors)
  }
  // Valid JSON, but a key that could poison prototypes: refused as the unknown field it is.
  const poisoned = /forbidden (prototype|constructor) property/i.exec(error.message)
  if (poisoned) {
    const field = poisoned[1] === 'prototype' ? '__proto__' : 'constructor'
    return validationFailed([
      { field, code: 'unknown_field', message: `${field} is not a field of this request.` },
    ])
  }
  const mapped = error.code ? fastifyCodes[error.code] : undefined
  if (mapped) return typeof mapped === 'string' ? new ApiError(mapped) : new ApiError(...mapped)
  if (error instanceof SyntaxError && error.statusCode === 400) return new ApiError('invalid_json')
  if (isStoreUnavailable(context, error)) return new ApiError('unavailable')
  // A plugin's own refusal of a path (the docs' static files: 403 outside their folder, 400 for a
  // NUL in it): nothing is there for the caller, so it is an unknown route, never a 500.
  const status = error.statusCode ?? 0
  if (status === 403 || status === 404 || (status === 400 && isHttpError(error)))
    return new ApiError('not_found')
  return new ApiError('internal_error', errorRegistry.internal_error.message)
}

/** An error made by the http-errors family (@fastify/send's), which marks what it may expose. */
function isHttpError(error: FastifyError): boolean {
  return typeof (error as { expose?: unknown }).expose === 'boolean'
}
