import type { Mode } from '../domain/kinds.ts'

/** A webhook secret, opened, and when it stops signing (null while it is the mode's current one). */
export interface SigningSecret {
  secret: string
  expiresAtUs: number | null
}

/**
 * The signing secrets of each merchant's mode as the last delivery read them, kept for at most
 * `freshForMs` of real time: a callback's delivery does not read and decrypt them every time (on
 * PostgreSQL that read was one of a delivery's three round trips). Each keeps when it stops
 * signing, so the caller drops those past it by its own clock. A rotation on this instance
 * forgets the mode's at once; one on another instance is seen within `freshForMs`, and until
 * then the secret it replaced, which keeps signing for 24 hours, still signs alone. Concurrent
 * misses of one mode share one read.
 */
export interface SigningSecretCache {
  read(merchantId: string, mode: Mode, load: () => Promise<SigningSecret[]>): Promise<SigningSecret[]>
  forget(merchantId: string, mode: Mode): void
}

export const signingSecretsFreshForMs = 500
const maximumModes = 10_000

export function createSigningSecretCache(freshForMs = signingSecretsFreshForMs): SigningSecretCache {
  const kept = new Map<string, { readAtMs: number; secrets: Promise<SigningSecret[]> }>()
  const keyOf = (merchantId: string, mode: Mode) => `${mode}:${merchantId}`
  return {
    read(merchantId, mode, load) {
      const key = keyOf(merchantId, mode)
      const now = performance.now()
      const entry = kept.get(key)
      if (entry && now - entry.readAtMs < freshForMs) return entry.secrets
      kept.delete(key)
      const secrets = load()
      if (kept.size >= maximumModes) kept.delete(kept.keys().next().value as string)
      kept.set(key, { readAtMs: now, secrets })
      // Neither a mode without secrets (one may be issued at any moment) nor a failed read is kept.
      const drop = () => {
        if (kept.get(key)?.secrets === secrets) kept.delete(key)
      }
      secrets.then((found) => found.length === 0 && drop(), drop)
      return secrets
    },
    forget: (merchantId, mode) => {
      kept.delete(keyOf(merchantId, mode))
    },
  }
}
