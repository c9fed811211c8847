import type { LongWorkOwner } from './long-work-turns.ts'

/**
 * How many statements each merchant and mode may stream at once on this instance. Turns are
 * shared between merchants whatever their number of statements (`LongWorkTurns`); this bound keeps
 * one merchant's pile of open statements (each holds a response and a place in the turns) from
 * growing without end. Two lets a statement be fetched again while the first is still streaming.
 */
export const statementsPerMerchant = 2

/** The statements each merchant and mode is streaming now, on this instance. */
export class StatementSlots {
  private readonly open = new Map<string, number>()

  constructor(private readonly perMerchant = statementsPerMerchant) {}

  /** A slot for one more statement, with its release (once is enough, more do nothing); undefined when all are taken. */
  claim({ merchantId, mode }: LongWorkOwner): (() => void) | undefined {
    const key = `${merchantId}/${mode}`
    const count = this.open.get(key) ?? 0
    if (count >= this.perMerchant) return undefined
    this.open.set(key, count + 1)
    let released = false
    return () => {
      if (released) return
      released = true
      const left = (this.open.get(key) ?? 1) - 1
      if (left > 0) this.open.set(key, left)
      else this.open.delete(key)
    }
  }
}
