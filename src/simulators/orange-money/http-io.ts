import type { ServerResponse } from 'node:http'
import { sendText } from '../http-io.ts'

export { header, pathOf, queryOf, readBody, sendEmpty } from '../http-io.ts'

/** Orange's transaction status example answers `application/json; charset=utf-8`. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  sendText(response, status, { 'content-type': 'application/json; charset=utf-8' }, JSON.stringify(body))
}

export function sendHtml(response: ServerResponse, status: number, html: string): void {
  sendText(
    response,
    status,
    { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
    html,
  )
}

/** A 302 after a form POST: browsers follow it with a GET, as the merchant's return and cancel pages expect. */
export function redirect(response: ServerResponse, location: string): void {
  sendText(response, 302, { location, 'cache-control': 'no-store' })
}
