import { createHmac } from 'node:crypto'
import type { TestApp } from './app.ts'

/**
 * The sandbox operator's side of POST /providers/sandbox/notifications: a JSON body naming one
 * side of an operation and its operator status, signed with `sandbox-signature` (hex
 * HMAC-SHA256 of the raw body). Written here from the contract, not imported from the adapter,
 * so a test notices when the adapter drifts from it.
 */

export interface NotificationResponse {
  status: number
  body: any
  text: string
}

/** The key the sandbox operator shares with this instance. */
export function sandboxNotificationKey(app: TestApp): Buffer {
  return app.context.secrets.derive('sandbox-notifications')
}

/** The hex HMAC-SHA256 of the raw body: the `sandbox-signature` header. */
export function sandboxSignature(rawBody: string, key: Buffer): string {
  return createHmac('sha256', key).update(rawBody).digest('hex')
}

/** The raw body of a notification about one side (main, from or to) of the operation. */
export function sandboxNotification(token: string, status: string, side = 'main'): string {
  return JSON.stringify({ reference: `sbx_${token}_${side}`, status })
}

/** POSTs a raw notification, with whatever headers the test chooses, to a provider's endpoint. */
export async function postNotification(
  app: TestApp,
  rawBody: string,
  headers: Record<string, string>,
  provider = 'sandbox',
): Promise<NotificationResponse> {
  const response = await fetch(`${app.url}/providers/${provider}/notifications`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: rawBody,
  })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : undefined, text }
}

/** POSTs a notification signed as the sandbox operator signs it. */
export function postSignedNotification(
  app: TestApp,
  rawBody: string,
  provider = 'sandbox',
): Promise<NotificationResponse> {
  const signature = sandboxSignature(rawBody, sandboxNotificationKey(app))
  return postNotification(app, rawBody, { 'sandbox-signature': signature }, provider)
}
