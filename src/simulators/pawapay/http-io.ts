import type { IncomingMessage, ServerResponse } from 'node:http'

/** One request, once its body has been read. */
export interface Exchange {
  readonly request: IncomingMessage
  readonly response: ServerResponse
  readonly path: string
  readonly body: string
}

/** pawaPay answers JSON; its documented examples carry no charset, so none is added. */
const jsonContentType = 'application/json'

/** Reads the whole request body as text, so it can be recorded byte for byte before it is parsed. */
export function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    request.on('error', reject)
  })
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  if (response.writableEnded || response.destroyed) return
  const text = JSON.stringify(body)
  response.writeHead(status, {
    'content-type': jsonContentType,
    'content-length': Buffer.byteLength(text),
  })
  response.end(text)
}

export function sendEmpty(response: ServerResponse, status: number): void {
  if (response.writableEnded || response.destroyed) return
  response.writeHead(status, { 'content-length': 0 })
  response.end()
}

/** One header's value, whatever its case or repetition; undefined when absent. */
export function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()]
  return Array.isArray(value) ? value[0] : value
}

/** The path without its query, so `GET /v2/active-conf?country=BEN` reaches the same operation. */
export function pathOf(url: string | undefined): string {
  const raw = url ?? '/'
  const query = raw.indexOf('?')
  return query === -1 ? raw : raw.slice(0, query)
}

export function queryOf(url: string | undefined): URLSearchParams {
  return new URL(url ?? '/', 'http://127.0.0.1').searchParams
}
