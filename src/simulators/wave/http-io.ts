import type { ServerResponse } from 'node:http'
import { sendText } from '../http-io.ts'

/** Wave answers a refund, an expiry and a reversal with "200 OK" and no body: sendEmpty. */
export { header, pathOf, queryOf, readBody, sendEmpty } from '../http-io.ts'

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  sendText(response, status, { 'content-type': 'application/json' }, JSON.stringify(body))
}

export function sendHtml(response: ServerResponse, status: number, html: string): void {
  sendText(response, status, { 'content-type': 'text/html; charset=utf-8' }, html)
}

/** 303 makes the browser follow with a GET, whatever the form's method was. */
export function redirect(response: ServerResponse, location: string): void {
  sendText(response, 303, { location })
}
