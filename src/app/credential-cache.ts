import type { Credential } from '../store/repositories/api-keys.ts'

/**
 * What authentication read of each api-key, kept for at most `freshForMs` of real time, so that a
 * request does not read the store for its key every time. The bound is the promise made to
 * operators: a key revoked, a pair rotated or a merchant suspended on any instance stops working
 * on every instance within `freshForMs` (CONTRACT.md; 500 ms here, under the 1 s promised).
 * Unknown keys are not kept: a pair issued on another instance works at once. Concurrent misses
 * of one key share one read. Real monotonic time, not the context's clock, which tests may stop.
 */
export interface CredentialCache {
  find(
    apiKey: string,
    read: (apiKey: string) => Promise<Credential | undefined>,
  ): Promise<Credential | undefined>
  /** This instance changed keys or a merchant's status: nothing it kept may be used again. */
  forgetAll(): void
}

export const credentialsFreshForMs = 500
const maximumKeys = 10_000

export function createCredentialCache(freshForMs = credentialsFreshForMs): CredentialCache {
  const kept = new Map<string, { readAtMs: number; credential: Promise<Credential | undefined> }>()
  return {
    find(apiKey, read) {
      const now = performance.now()
      const entry = kept.get(apiKey)
      if (entry && now - entry.readAtMs < freshForMs) return entry.credential
      if (entry) kept.delete(apiKey)
      const credential = read(apiKey)
      if (kept.size >= maximumKeys) kept.delete(kept.keys().next().value as string)
      kept.set(apiKey, { readAtMs: now, credential })
      // Neither an unknown key nor a failed read is kept.
      credential.then(
        (found) => {
          if (!found && kept.get(apiKey)?.credential === credential) kept.delete(apiKey)
        },
        () => {
          if (kept.get(apiKey)?.credential === credential) kept.delete(apiKey)
        },
      )
      return credential
    },
    forgetAll: () => kept.clear(),
  }
}
