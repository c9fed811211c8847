import type { IncomingMessage, ServerResponse } from 'node:http'

/** The MoMo gateway answers JSON as `application/json;charset=utf-8` (momoapi SDK docs' headers). */
const jsonContentType = 'application/json;charset=utf-8'

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

/** 202 Accepted and the other bodiless answers of the API carry `content-length: 0`. */
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

/** The path without its query: clients that send `?` with no parameters reach the same operation. */
export function pathOf(url: string | undefined): string {
  const raw = url ?? '/'
  const query = raw.indexOf('?')
  return query === -1 ? raw : raw.slice(0, query)
}

export function queryOf(url: string | undefined): URLSearchParams {
  return new URL(url ?? '/', 'http://127.0.0.1').searchParams
}
