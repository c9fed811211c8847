import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ApiError } from '../errors.ts'
import { errorEnvelope } from './error-handler.ts'

/**
 * A refusal answered in front of Fastify (front-door.ts, admission.ts): the contract's envelope
 * and the error's headers, with the request id the request gave or a new one, written at once.
 * The body, if any, is not read: it is drained so that the connection can carry the next request.
 */
export function answerAtEdge(request: IncomingMessage, response: ServerResponse, error: ApiError): void {
  const requestId = acceptedRequestId(request.headers['x-request-id']) ?? randomUUID()
  const body = JSON.stringify(errorEnvelope(error, requestId))
  response.writeHead(error.status, {
    ...error.headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
  })
  response.end(body)
  request.resume()
}

/** A caller's id is kept when it is short and printable, so it can be logged safely. */
export function acceptedRequestId(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' && /^[\x21-\x7e]{1,128}$/.test(value) ? value : undefined
}

/** The API's requests: the only ones the front door and admission look at. */
export function isApiRequest(url: string | undefined): boolean {
  return url !== undefined && (url.startsWith('/api/v1/') || url === '/api/v1' || url.startsWith('/api/v1?'))
}

/** The request's client went away: nobody would hear its answer, and its response will not close again. */
export function clientGone(request: IncomingMessage, response: ServerResponse): boolean {
  return response.destroyed || request.socket.destroyed
}
