import type { Operation } from '../../domain/operation.ts'
import type { NumbersWanted } from '../../store/repositories/sequences.ts'

type Expected = Omit<NumbersWanted, 'positionOf'>

/** Sorts of openings remembered at most: more than a catalogue's kinds, modes and routes. */
const largest = 512

/**
 * What the last opening of each sort (mode, kind, refund or not, each side's channel and country)
 * wanted of the ledger and event counters. An opening takes that many with its position, in the
 * statement that locks its counters, so one whose decision wants the same needs no second
 * statement (sequences.ts); a wrong guess costs the second statement it would have cost anyway.
 * Shared by every transaction of the instance: a wrong guess costs a statement, never a number.
 */
export class OpeningNumbers {
  private readonly wanted = new Map<string, Expected>()

  expected(draft: Operation): Expected | undefined {
    return this.wanted.get(sortOf(draft))
  }

  remember(draft: Operation, wanted: Expected): void {
    const sort = sortOf(draft)
    const known = this.wanted.get(sort)
    if (known?.ledgerEntries === wanted.ledgerEntries && known.events === wanted.events) return
    if (!known && this.wanted.size >= largest) this.wanted.clear()
    this.wanted.set(sort, { ledgerEntries: wanted.ledgerEntries, events: wanted.events })
  }
}

function sortOf(draft: Operation): string {
  const sides = draft.sides.map((side) => `${side.channel}:${side.country}`).join('/')
  return `${draft.mode}/${draft.kind}/${draft.refundOf ? 'refund' : 'new'}/${sides}`
}
