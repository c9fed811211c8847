import { createHmac, timingSafeEqual } from 'node:crypto'

/** Older signatures are refused, so a captured webhook cannot be replayed later. */
const toleranceSeconds = 5 * 60

/**
 * Wave-Signature: `t=<unix seconds>,v1=<hex>[,v1=<hex>...]`, each v1 an HMAC-SHA256 under the
 * webhook secret of the timestamp followed directly by the raw body. One matching v1 suffices.
 */
export function verifyWaveSignature(
  header: string | undefined,
  rawBody: string,
  secret: string,
  nowSeconds: number,
): boolean {
  if (!header) return false
  const parts = header.split(',').map((part) => part.trim().split('='))
  const timestamp = Number(parts.find(([key]) => key === 't')?.[1])
  if (!Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false
  const expected = createHmac('sha256', secret).update(`${timestamp}${rawBody}`).digest()
  return parts
    .filter(([key, value]) => key === 'v1' && value)
    .some(([, value]) => {
      const given = Buffer.from(value!, 'hex')
      return given.length === expected.length && timingSafeEqual(given, expected)
    })
}
