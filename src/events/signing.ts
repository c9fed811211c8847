import { createHmac, createSecretKey, type KeyObject } from 'node:crypto'
import { remembered } from './remembered.ts'

/**
 * Standard Webhooks (standardwebhooks.com): HMAC-SHA256 over "<id>.<timestamp>.<body>" with the
 * base64 key that follows `whsec_`, sent as `v1,<base64>`. During a rotation every live secret
 * signs, space-separated, so receivers holding either secret verify.
 */
export function signatureHeaders(
  eventId: string,
  timestampSeconds: number,
  body: string,
  secrets: readonly string[],
): Record<string, string> {
  const signed = `${eventId}.${timestampSeconds}.${body}`
  const signatures = secrets.map(
    (secret) => `v1,${createHmac('sha256', keyOf(secret)).update(signed).digest('base64')}`,
  )
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatures.join(' '),
  }
}

/** A secret decoded into its key once, not at every delivery it signs. */
const keyOf = remembered(
  (secret: string): KeyObject => createSecretKey(Buffer.from(secret.replace(/^whsec_/, ''), 'base64')),
  1024,
)
