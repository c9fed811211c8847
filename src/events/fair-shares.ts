import type { MerchantQuota, PendingMerchant } from '../store/repositories/outbox.ts'

/**
 * Fair shares of one delivery pool's slots: between merchants first, then between one merchant's
 * endpoints. A slot is a request in flight or a claimed event waiting for its endpoint.
 *
 * The same rule at both levels: a member (a merchant of the pool, an endpoint of a merchant) may
 * hold at most its parent's slots split between the members holding any, itself counted, and one
 * more. Whatever one merchant's endpoints do (slow, hanging, dead), it holds at most half the
 * pool, and a merchant that comes along always finds room; within a merchant, one endpoint holds
 * at most half of its merchant's share, and another of its endpoints always finds room too. A
 * member over its share (others came along) takes no slot until it is back under it: its requests
 * end, nobody's are cut short.
 *
 * A request to an endpoint that has gone silent is set aside: it stays in its merchant's share
 * (a merchant's silent endpoints hold its share, never more), but its endpoint no longer counts
 * among those the merchant's share is split between, so the merchant's endpoints that answer have
 * it to themselves.
 */
export class FairShares {
  /** What each merchant holds; only merchants holding any are kept. */
  private readonly merchants = new Map<string, MerchantHolding>()

  constructor(private readonly capacity: number) {}

  /** How many slots the merchant may hold now, at least one. */
  shareOf(merchantId: string): number {
    return splitOf(this.capacity, this.merchants.size, this.merchants.has(merchantId))
  }

  /** How many slots one endpoint of the merchant may hold now, at least one. */
  endpointShareOf(merchantId: string, endpoint: string): number {
    const endpoints = this.merchants.get(merchantId)?.endpoints
    return splitOf(this.shareOf(merchantId), endpoints?.size ?? 0, endpoints?.has(endpoint) ?? false)
  }

  /** How many more slots the merchant may take now. */
  roomOf(merchantId: string): number {
    return Math.max(0, this.shareOf(merchantId) - (this.merchants.get(merchantId)?.total ?? 0))
  }

  take(merchantId: string, endpoint: string): void {
    let merchant = this.merchants.get(merchantId)
    if (!merchant) {
      merchant = { total: 0, endpoints: new Map() }
      this.merchants.set(merchantId, merchant)
    }
    merchant.total++
    merchant.endpoints.set(endpoint, (merchant.endpoints.get(endpoint) ?? 0) + 1)
  }

  release(merchantId: string, endpoint: string): void {
    const merchant = this.merchants.get(merchantId)
    if (!merchant || !this.leaveEndpoint(merchant, endpoint)) return
    this.leaveMerchant(merchantId, merchant)
  }

  /** One request of the endpoint, now silent, stays its merchant's but no longer its endpoint's. */
  setAside(merchantId: string, endpoint: string): void {
    const merchant = this.merchants.get(merchantId)
    if (merchant) this.leaveEndpoint(merchant, endpoint)
  }

  /** A request set aside has ended. */
  releaseSetAside(merchantId: string): void {
    const merchant = this.merchants.get(merchantId)
    if (merchant) this.leaveMerchant(merchantId, merchant)
  }

  /**
   * How many due events to claim for each of `merchantIds` (in the order given: the claims'
   * turn) out of `free` slots: each at most its room, and the slots split evenly between those
   * with room, so that one merchant's backlog does not fill the claim; `cap` lowers a merchant's
   * room further (`MerchantCap`). Those left without any
   * this time come first next time (the caller starts its next turn after the last merchant given some).
   */
  quotas(merchantIds: readonly string[], free: number, cap: MerchantCap = noCap): MerchantQuota[] {
    const withRoom = merchantIds
      .map((merchantId) => ({ merchantId, room: this.cappedRoomOf(merchantId, cap) }))
      .filter(({ room }) => room > 0)
    const quotas: MerchantQuota[] = []
    let left = free
    withRoom.forEach(({ merchantId, room }, index) => {
      const count = Math.min(room, Math.ceil(left / (withRoom.length - index)))
      if (count <= 0) return
      quotas.push({ merchantId, count })
      left -= count
    })
    return quotas
  }

  /**
   * A claim's turn, from a look at the merchants with events pending (`looked`, in the claims'
   * turn): the due ones with room, `perClaim` at most, each given its part of the `free` slots
   * (`quotas`); and the merchant the next look starts after. That is the last merchant given some
   * when the free slots ran out first (the others come first next time), the last due one taken
   * when there were more, and otherwise the last merchant looked at (the look's merchants are all
   * served, at their share or not due).
   */
  turn(
    looked: readonly PendingMerchant[],
    free: number,
    perClaim: number,
    cap: MerchantCap = noCap,
  ): ClaimTurn {
    const due = looked
      .filter((merchant) => merchant.due && this.cappedRoomOf(merchant.merchantId, cap) > 0)
      .map((merchant) => merchant.merchantId)
    const taken = due.slice(0, perClaim)
    const quotas = this.quotas(taken, free, cap)
    const nextAfter =
      quotas.length < taken.length
        ? quotas.at(-1)?.merchantId
        : due.length > taken.length
          ? taken.at(-1)
          : looked.at(-1)?.merchantId
    return { quotas, nextAfter }
  }

  private cappedRoomOf(merchantId: string, cap: MerchantCap): number {
    return Math.min(this.roomOf(merchantId), cap(merchantId))
  }

  private leaveEndpoint(merchant: MerchantHolding, endpoint: string): boolean {
    const held = merchant.endpoints.get(endpoint)
    if (held === undefined) return false
    if (held > 1) merchant.endpoints.set(endpoint, held - 1)
    else merchant.endpoints.delete(endpoint)
    return true
  }

  private leaveMerchant(merchantId: string, merchant: MerchantHolding): void {
    merchant.total--
    if (merchant.total <= 0) this.merchants.delete(merchantId)
  }
}

/**
 * How many of a merchant's due events its claim may take at most besides its room (the events its
 * endpoints can start or hold now): claimed beyond it, they would only be given back.
 */
export type MerchantCap = (merchantId: string) => number

const noCap: MerchantCap = () => Number.POSITIVE_INFINITY

/** What a claim takes of each merchant, and where the next claim's look at the merchants starts. */
export interface ClaimTurn {
  readonly quotas: MerchantQuota[]
  /** Undefined when nobody was looked at: the next look starts where this one did. */
  readonly nextAfter: string | undefined
}

/** `slots` split between `holding` members and one more, the member counted in if it holds none; at least one. */
function splitOf(slots: number, holding: number, holds: boolean): number {
  const members = holds ? holding : holding + 1
  return Math.max(1, Math.floor(slots / (members + 1)))
}

interface MerchantHolding {
  /** Its slots: requests in flight (set aside or not) and events waiting. */
  total: number
  /** Its endpoints holding any, and how many each holds (requests set aside not counted). */
  endpoints: Map<string, number>
}
