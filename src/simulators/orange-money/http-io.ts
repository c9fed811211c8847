import type { IncomingMessage, ServerResponse } from 'node:http'

/** Orange's transaction status example answers `application/json; charset=utf-8`. */
const jsonContentType = 'application/json; charset=utf-8'

/** Reads the whole request body as text, so it can be recorded byte for byte before it is parsed. */
export function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    request.on('error', reject)
  })
}

function answered(response: ServerResponse): boolean {
  return response.writableEnded || response.destroyed
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  if (answered(response)) return
  const text = JSON.stringify(body)
  response.writeHead(status, { 'content-type': jsonContentType, 'content-length': Buffer.byteLength(text) })
  response.end(text)
}

export function sendHtml(response: ServerResponse, status: number, html: string): void {
  if (answered(response)) return
  response.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
    'cache-control': 'no-store',
  })
  response.end(html)
}

/** A 302 after a form POST: browsers follow it with a GET, as the merchant's return and cancel pages expect. */
export function redirect(response: ServerResponse, location: string): void {
  if (answered(response)) return
  response.writeHead(302, { location, 'content-length': 0, 'cache-control': 'no-store' })
  response.end()
}

export function sendEmpty(response: ServerResponse, status: number): void {
  if (answered(response)) return
  response.writeHead(status, { 'content-length': 0 })
  response.end()
}

/** One header's value, whatever its case or repetition; undefined when absent. */
export function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()]
  return Array.isArray(value) ? value[0] : value
}

/** The path without its query. */
export function pathOf(url: string | undefined): string {
  const raw = url ?? '/'
  const query = raw.indexOf('?')
  return query === -1 ? raw : raw.slice(0, query)
}

export function queryOf(url: string | undefined): URLSearchParams {
  return new URL(url ?? '/', 'http://127.0.0.1').searchParams
}
