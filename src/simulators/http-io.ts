import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { RecordedRequest } from './simulator.ts'

/**
 * The plain node:http plumbing every simulator shares. What differs per operator (the exact
 * content type of its JSON, its redirect status) stays in each simulator's own http-io.ts.
 */

/** Reads the whole request body as text, so it can be recorded byte for byte before it is parsed. */
export function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    request.on('error', reject)
  })
}

/** A connection the client dropped, or an exchange already answered, takes no second answer. */
function answered(response: ServerResponse): boolean {
  return response.writableEnded || response.destroyed
}

/** A complete answer with its content-length; `text` is undefined for a bodiless one (`content-length: 0`). */
export function sendText(
  response: ServerResponse,
  status: number,
  headers: Record<string, string>,
  text?: string,
): void {
  if (answered(response)) return
  response.writeHead(status, {
    ...headers,
    'content-length': text === undefined ? 0 : Buffer.byteLength(text),
  })
  response.end(text)
}

export function sendEmpty(response: ServerResponse, status: number): void {
  sendText(response, status, {})
}

/** One header's value, whatever its case or repetition; undefined when absent. */
export function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()]
  return Array.isArray(value) ? value[0] : value
}

/** The path without its query: `GET /x?` and `GET /x?a=1` reach the same operation as `GET /x`. */
export function pathOf(url: string | undefined): string {
  const raw = url ?? '/'
  const query = raw.indexOf('?')
  return query === -1 ? raw : raw.slice(0, query)
}

export function queryOf(url: string | undefined): URLSearchParams {
  return new URL(url ?? '/', 'http://127.0.0.1').searchParams
}

/** One request, once its body has been read. */
export interface Exchange {
  readonly request: IncomingMessage
  readonly response: ServerResponse
  readonly path: string
  readonly body: string
}

/** Reads the request, records it as it arrived (for tests and /_simulator/requests), and gives it to a route. */
export async function receive(
  requests: RecordedRequest[],
  request: IncomingMessage,
  response: ServerResponse,
): Promise<Exchange> {
  const body = await readBody(request)
  requests.push({
    method: request.method ?? 'GET',
    url: request.url ?? '/',
    headers: { ...request.headers },
    body,
    receivedAtMs: Date.now(),
  })
  return { request, response, path: pathOf(request.url), body }
}

export function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve(server.address() as AddressInfo)
    })
  })
}
