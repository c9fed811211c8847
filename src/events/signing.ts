import { createHmac } from 'node:crypto'

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
  const signatures = secrets.map((secret) => {
    const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64')
    return `v1,${createHmac('sha256', key).update(signed).digest('base64')}`
  })
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatures.join(' '),
  }
}
