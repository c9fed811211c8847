import type { MerchantControls } from '../../domain/merchant-controls.ts'
import type { Credential } from '../../store/repositories/api-keys.ts'
import { createTtlCache, type TtlCache } from './ttl-cache.ts'

/**
 * What authentication read of each api-key, kept for at most `freshForMs` of real time, so that a
 * request does not read the store for its key every time. The bound is the promise made to
 * operators: a key revoked, a pair rotated or a merchant suspended on any instance stops working
 * on every instance within `freshForMs` (CONTRACT.md; 500 ms here, under the 1 s promised). An
 * instance that changes keys or a merchant's status forgets everything at once. Unknown keys are
 * not kept: a pair issued on another instance works at once.
 */
export type CredentialCache = TtlCache<Credential | undefined>

export const credentialsFreshForMs = 500

export function createCredentialCache(freshForMs = credentialsFreshForMs): CredentialCache {
  return createTtlCache(freshForMs, (found) => found !== undefined)
}

/**
 * The platform's controls of a merchant in a mode (key `merchantId/mode`), for the principals no
 * api-key proved (the dashboard's, a payment link's page's): an API request has them from its
 * credential. Fresh for as long as a credential, and forgotten with the credentials when they change.
 */
export type MerchantControlsCache = TtlCache<MerchantControls | undefined>

export function createMerchantControlsCache(freshForMs = credentialsFreshForMs): MerchantControlsCache {
  return createTtlCache(freshForMs, (found) => found !== undefined)
}
