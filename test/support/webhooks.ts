import type { IncomingHttpHeaders } from 'node:http'
import { Webhook } from 'standardwebhooks'
import type { ReceivedRequest } from './receiver.ts'

/** Checking a received callback with the npm `standardwebhooks` package, as a merchant would. */

function headerRecord(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]): [string, string] => [
      name,
      Array.isArray(value) ? value.join(', ') : String(value),
    ]),
  )
}

/** The verified payload; throws when the request does not verify under `secret`. */
export function verifyWebhook(secret: string, request: ReceivedRequest): unknown {
  return new Webhook(secret).verify(request.body, headerRecord(request.headers))
}

/** Whether `secret` signed the request. */
export function isSignedBy(secret: string, request: ReceivedRequest): boolean {
  try {
    verifyWebhook(secret, request)
    return true
  } catch {
    return false
  }
}
