import { createTtlCache, type TtlCache } from './ttl-cache.ts'

/** A webhook secret, opened, and when it stops signing (null while it is the mode's current one). */
export interface SigningSecret {
  secret: string
  expiresAtUs: number | null
}

/**
 * The signing secrets of each merchant's mode (keyed `mode:merchantId`) as the last delivery read
 * them, kept for at most `freshForMs` of real time: a callback's delivery does not read and
 * decrypt them every time (on PostgreSQL that read was one of a delivery's three round trips).
 * Each keeps when it stops signing, so the caller drops those past it by its own clock. A
 * rotation on this instance forgets the mode's at once; one on another instance is seen within
 * `freshForMs`, and until then the secret it replaced, which keeps signing for 24 hours, still
 * signs alone. A mode without secrets is not kept: one may be issued at any moment.
 */
export type SigningSecretCache = TtlCache<SigningSecret[]>

export const signingSecretsFreshForMs = 500

export function createSigningSecretCache(freshForMs = signingSecretsFreshForMs): SigningSecretCache {
  return createTtlCache(freshForMs, (secrets) => secrets.length > 0)
}
