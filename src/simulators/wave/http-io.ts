import type { IncomingMessage, ServerResponse } from 'node:http'

/** Reads the whole request body as text, so it can be recorded byte for byte before it is parsed. */
export function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    request.on('error', reject)
  })
}

function writeText(response: ServerResponse, status: number, contentType: string, text: string): void {
  if (response.writableEnded || response.destroyed) return
  response.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) })
  response.end(text)
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  writeText(response, status, 'application/json', JSON.stringify(body))
}

/** Wave answers a refund, an expiry and a reversal with "200 OK" and no body. */
export function sendEmpty(response: ServerResponse, status: number): void {
  if (response.writableEnded || response.destroyed) return
  response.writeHead(status, { 'content-length': 0 })
  response.end()
}

export function sendHtml(response: ServerResponse, status: number, html: string): void {
  writeText(response, status, 'text/html; charset=utf-8', html)
}

/** 303 makes the browser follow with a GET, whatever the form's method was. */
export function redirect(response: ServerResponse, location: string): void {
  if (response.writableEnded || response.destroyed) return
  response.writeHead(303, { location, 'content-length': 0 })
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
