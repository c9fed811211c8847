import { type SideRole, sideKinds } from './kinds.ts'
import type { Side } from './operation.ts'
import type { Status } from './status.ts'

/**
 * The ledger rules of CONTRACT.md (Balances and the ledger), as pure functions: what entries an
 * operation's sides call for, what it takes to go from one set to the next, and what a set of
 * entries says the balance is.
 *
 *   cash-in   credited (succeeded) when its side succeeds; nothing otherwise
 *   cash-out  held (pending) at initiation; posted (succeeded) on success, released (canceled) otherwise
 *   reversal  the refund reserve of a cash-in side that succeeded before later sides: held while
 *             they run, released when all succeed, posted (the refund) when one stops in the
 *             sandbox; in live mode released when one stops, as the refund operation opened in
 *             the same write holds it instead, and posts it only when the operator has paid
 */
export type EntryType = 'cash-in' | 'cash-out' | 'reversal'
export type EntryStatus = 'pending' | 'succeeded' | 'canceled'

export interface LedgerEntryShape {
  type: EntryType
  status: EntryStatus
  amountMinor: number
}

/** An entry the sides call for, with the side it belongs to. */
export interface ExpectedEntry extends LedgerEntryShape {
  role: SideRole
}

/** What moves on the merchant's balance (TigerBeetle's two phases). */
export type LedgerEffect =
  /** Reserve funds; the write fails with insufficient_balance when they are not available. */
  | { action: 'hold'; entryType: 'cash-out' | 'reversal'; amountMinor: number; role: SideRole }
  /** Post money received. */
  | { action: 'credit'; amountMinor: number }
  /** Post (succeeded) or release (canceled) the operation's pending hold of this type, at most once. */
  | { action: 'resolve'; entryType: 'cash-out' | 'reversal'; resolution: 'succeeded' | 'canceled' }
  /**
   * A hold resolved in the write that makes it: the funds must be available as for a hold
   * (insufficient_balance otherwise), then are posted or released at once. Nobody can see the
   * hold in between, so it is one entry, written settled: a payout the sandbox pays at once is two
   * statements instead of five.
   */
  | {
      action: 'hold-resolved'
      entryType: 'cash-out' | 'reversal'
      amountMinor: number
      role: SideRole
      resolution: 'succeeded' | 'canceled'
    }

/** How many entries the effects add to the ledger: a hold or a credit is a new entry; a resolve settles one. */
export function entriesAddedBy(effects: readonly LedgerEffect[]): number {
  return effects.filter((effect) => effect.action !== 'resolve').length
}

function holdStatus(sideStatus: Status): EntryStatus {
  if (sideStatus === 'pending') return 'pending'
  return sideStatus === 'succeeded' ? 'succeeded' : 'canceled'
}

/** The reserve's fate follows the later sides: held while one runs, posted when one stops, released when all succeeded. */
function reserveStatus(later: readonly Side[]): EntryStatus {
  if (later.some((side) => side.status !== 'pending' && side.status !== 'succeeded')) return 'succeeded'
  return later.every((side) => side.status === 'succeeded') ? 'canceled' : 'pending'
}

/** The entries an operation whose sides are in these states must have, in no particular order. */
export function expectedLedgerEntries(sides: readonly Side[]): ExpectedEntry[] {
  const entries: ExpectedEntry[] = []
  sides.forEach((side, index) => {
    const { entryType } = sideKinds[side.kind]
    const { role, cashAmountMinor: amountMinor } = side
    if (entryType !== 'cash-in') {
      entries.push({ role, type: entryType, status: holdStatus(side.status), amountMinor })
      return
    }
    if (side.status !== 'succeeded') return
    entries.push({ role, type: 'cash-in', status: 'succeeded', amountMinor })
    const later = sides.slice(index + 1)
    if (later.length === 0) return
    // A live refund operation took the reserve over: it holds the same amount itself, in the same write.
    const status = side.customerRefund ? 'canceled' : reserveStatus(later)
    entries.push({ role, type: 'reversal', status, amountMinor })
  })
  return entries
}

/**
 * The postings that take the ledger from what the sides called for before to what they call for
 * now: the state machine decides the sides, and the money follows from them alone.
 */
export function ledgerEffectsBetween(before: readonly Side[], after: readonly Side[]): LedgerEffect[] {
  const key = (entry: ExpectedEntry) => `${entry.role} ${entry.type}`
  const previous = new Map(expectedLedgerEntries(before).map((entry) => [key(entry), entry]))
  return expectedLedgerEntries(after).flatMap((entry): LedgerEffect[] => {
    const was = previous.get(key(entry))
    if (was?.status === entry.status) return []
    if (entry.type === 'cash-in') return [{ action: 'credit', amountMinor: entry.amountMinor }]
    const { type: entryType, amountMinor, role, status } = entry
    if (status === 'pending') return was ? [] : [{ action: 'hold', entryType, amountMinor, role }]
    if (!was) return [{ action: 'hold-resolved', entryType, amountMinor, role, resolution: status }]
    return [{ action: 'resolve', entryType, resolution: status }]
  })
}

/**
 * The effects of two transitions written together (chainTransitions): a hold the first makes and
 * the second resolves becomes one hold resolved at once, where the hold stood.
 */
export function ledgerEffectsInOneWrite(effects: readonly LedgerEffect[]): LedgerEffect[] {
  const merged = [...effects]
  for (let index = 0; index < merged.length; index++) {
    const resolve = merged[index]!
    if (resolve.action !== 'resolve') continue
    const holdIndex = merged.findIndex(
      (effect, at) => at < index && effect.action === 'hold' && effect.entryType === resolve.entryType,
    )
    const hold = merged[holdIndex]
    if (hold?.action !== 'hold') continue
    merged[holdIndex] = { ...hold, action: 'hold-resolved', resolution: resolve.resolution }
    merged.splice(index, 1)
    index--
  }
  return merged
}

/** What entries say an account holds: posted is credits less payouts and refunds; held is the open holds. */
export function balanceOfEntries(entries: readonly LedgerEntryShape[]): {
  postedMinor: number
  heldMinor: number
} {
  let postedMinor = 0
  let heldMinor = 0
  for (const entry of entries) {
    if (entry.status === 'succeeded')
      postedMinor += entry.type === 'cash-in' ? entry.amountMinor : -entry.amountMinor
    else if (entry.status === 'pending' && entry.type !== 'cash-in') heldMinor += entry.amountMinor
  }
  return { postedMinor, heldMinor }
}
