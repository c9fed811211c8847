import { randomBytes } from 'node:crypto'

const lowerAlphanumeric = 'abcdefghijklmnopqrstuvwxyz0123456789'
const base62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/**
 * Uniform random characters from a cryptographic source. Bytes past the largest multiple of
 * the alphabet's size are dropped, so no character is more likely than another.
 */
export function randomString(length: number, alphabet: string = lowerAlphanumeric): string {
  const limit = 256 - (256 % alphabet.length)
  let out = ''
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit) out += alphabet[byte % alphabet.length]
      if (out.length === length) break
    }
  }
  return out
}

/** Five groups of five lowercase alphanumerics joined by hyphens, as the spec shapes it. */
export function newOperationToken(): string {
  return Array.from({ length: 5 }, () => randomString(5)).join('-')
}

export const tokenPattern = '^[a-z0-9]{5}(-[a-z0-9]{5}){4}$'

export function newMerchantId(): string {
  return `mer_${randomString(20)}`
}

export function newEventId(): string {
  return `evt_${randomString(24, base62)}`
}

export function newKeyPair(mode: 'sandbox' | 'live'): { apiKey: string; secretKey: string } {
  const tag = mode === 'sandbox' ? 'test' : 'live'
  return {
    apiKey: `pk_${tag}_${randomString(24, base62)}`,
    secretKey: `sk_${tag}_${randomString(40, base62)}`,
  }
}

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`
}
