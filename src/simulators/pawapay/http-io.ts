import type { ServerResponse } from 'node:http'
import { sendText } from '../http-io.ts'

export type { Exchange } from '../http-io.ts'
export { header, pathOf, queryOf, readBody, sendEmpty } from '../http-io.ts'

/** pawaPay answers JSON; its documented examples carry no charset, so none is added. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  sendText(response, status, { 'content-type': 'application/json' }, JSON.stringify(body))
}
