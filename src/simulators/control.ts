import type { ServerResponse } from 'node:http'
import { type Exchange, queryOf, sendEmpty } from './http-io.ts'
import type { RecordedRequest, SentCallback } from './simulator.ts'

/** What every simulator shows and offers under /_simulator/, whatever its operator. */
export interface SharedControl {
  /** The callbacks sent, listed at /_simulator/<sentPath> (Orange calls them notifications). */
  readonly sent: readonly SentCallback[]
  readonly sentPath: 'callbacks' | 'notifications'
  readonly requests: readonly RecordedRequest[]
  readonly defaultChannel: string
  connection(channel: string, countries: readonly string[]): Record<string, unknown>
  expireTokens(): void
  /** The operator's own JSON answer (its content type). */
  sendJson(response: ServerResponse, status: number, body: unknown): void
}

/**
 * Answers the control paths every simulator has (requests, callbacks, connection,
 * expire-tokens); false when `name` is none of them, for the simulator's own routes to try.
 */
export function answerSharedControl(exchange: Exchange, name: string, control: SharedControl): boolean {
  const { request, response } = exchange
  const method = request.method ?? 'GET'
  if (name === 'expire-tokens' && method === 'POST') {
    control.expireTokens()
    sendEmpty(response, 204)
  } else if (name === control.sentPath && method === 'GET') control.sendJson(response, 200, control.sent)
  else if (name === 'requests' && method === 'GET') control.sendJson(response, 200, control.requests)
  else if (name === 'connection' && method === 'GET') {
    const query = queryOf(request.url)
    const countries = (query.get('countries') ?? '').split(',').filter(Boolean)
    control.sendJson(
      response,
      200,
      control.connection(query.get('channel') ?? control.defaultChannel, countries),
    )
  } else return false
  return true
}
