import { randomBytes, randomFillSync } from 'node:crypto'

const lowerAlphanumeric = 'abcdefghijklmnopqrstuvwxyz0123456789'
const base62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/**
 * Cryptographic random bytes, drawn 4 KiB at a time (as nanoid does): each call to the generator
 * has a fixed cost, and an initiation needs several identifiers.
 */
const pool = Buffer.alloc(4096)
let poolOffset = pool.length

function randomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool)
    poolOffset = 0
  }
  return pool[poolOffset++]!
}

/**
 * Uniform random characters from a cryptographic source. Bytes past the largest multiple of
 * the alphabet's size are dropped, so no character is more likely than another.
 */
export function randomString(length: number, alphabet: string = lowerAlphanumeric): string {
  const limit = 256 - (256 % alphabet.length)
  let out = ''
  while (out.length < length) {
    const byte = randomByte()
    if (byte < limit) out += alphabet[byte % alphabet.length]
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
