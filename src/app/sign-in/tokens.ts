import { createHash, randomBytes } from 'node:crypto'

/** A secret handed to a browser (a session, an invitation): the store keeps only its hash. */
export function newBearerToken(): { token: string; tokenHash: string } {
  const token = randomBytes(32).toString('base64url')
  return { token, tokenHash: tokenHashOf(token) }
}

export function tokenHashOf(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`
}

export const minuteUs = 60_000_000
export const hourUs = 60 * minuteUs
