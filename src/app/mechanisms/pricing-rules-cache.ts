import type { FeeRule } from '../../domain/pricing.ts'
import type { ChannelRoute } from '../../store/repositories/catalogue.ts'
import { createTtlCache, type TtlCache } from './ttl-cache.ts'

/** What pricing one side reads: its channel's route in its country, and the merchant's fee rule there. */
export interface PricingRules {
  route: ChannelRoute
  rule: FeeRule
}

/**
 * The route and fee rule each side was priced with (keyed by merchant, side kind, channel and
 * country), kept for at most `freshForMs` of real time: an initiation does not read the catalogue
 * every time (two of its statements; on PostgreSQL two round trips). A fee row set on this
 * instance (`sika fees set` runs its own) is used at once; one set on another instance within
 * `freshForMs`, as a revoked key stops working. A side with no route or rule is not kept.
 */
export type PricingRulesCache = TtlCache<PricingRules | undefined>

export const pricingRulesFreshForMs = 500

export function createPricingRulesCache(freshForMs = pricingRulesFreshForMs): PricingRulesCache {
  return createTtlCache(freshForMs, (found) => found !== undefined)
}
