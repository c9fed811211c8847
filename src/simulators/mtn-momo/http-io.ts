import type { ServerResponse } from 'node:http'
import { sendText } from '../http-io.ts'

export { header, pathOf, queryOf, readBody, sendEmpty } from '../http-io.ts'

/** The MoMo gateway answers JSON as `application/json;charset=utf-8` (momoapi SDK docs' headers). */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  sendText(response, status, { 'content-type': 'application/json;charset=utf-8' }, JSON.stringify(body))
}
