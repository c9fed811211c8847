import type { Mode, OperationKind } from '../../domain/kinds.ts'
import type { RepositoryScope } from './executor.ts'
import { advanceLockedCounters, reserveCounterValues } from './pages.ts'

/** How many numbers a write takes: ledger sequences, event positions, and a list position when it opens an operation. */
export interface NumbersWanted {
  ledgerEntries: number
  events: number
  /** The kind of the operation being opened: it takes the next position of that kind's list. */
  positionOf?: OperationKind
}

/** The first number of each range reserved (position is 0 when none was wanted). */
export interface ReservedNumbers {
  ledgerEntries: number
  events: number
  position: number
}

/**
 * A write's numbers (dense per merchant and mode: their lists seek on them), reserved together in
 * one statement before anything is written with them: one round trip instead of three while the
 * counters' row locks are held, and every initiation of one merchant waits behind that lock. The
 * rows are taken in name order in that one statement, so two writes cannot deadlock on them. A
 * time read after it keeps list order, sequence order and date order in step.
 */
export interface SequencesRepository {
  reserve(merchantId: string, mode: Mode, wanted: NumbersWanted): Promise<ReservedNumbers>
  /**
   * An opening's list position, taken with the locks of the merchant's ledger and event counters
   * (in one statement, or none when this transaction holds them already), so that the opening is
   * decided once, after the lock, and the numbers its decision wants are then counted here by
   * `reserve`, whose advance rides with the next statement. Only inside a transaction.
   */
  takePosition(merchantId: string, mode: Mode, kind: OperationKind): Promise<number>
}

/**
 * `inTransaction`: the repository is a transaction's. A counter it advanced stays locked until the
 * transaction ends, so later reserves of the same counters (the next openings of a merchant's
 * group commit, `app/merchant-group-commit.ts`) are counted here, and the statement that advances them rides
 * with the next statement declared a carrier (write-only.ts): one round trip fewer for each opening after the first.
 */
export function sequencesRepository({ db }: RepositoryScope, inTransaction = false): SequencesRepository {
  /** The last value taken of each counter this transaction has advanced, by merchant, mode and name. */
  const lastTaken = new Map<string, number>()
  return {
    async reserve(merchantId, mode, wanted) {
      const counts: Record<string, number> = { ledger: wanted.ledgerEntries, event: wanted.events }
      if (wanted.positionOf) {
        if (wanted.positionOf in counts)
          throw new Error(`a kind named ${wanted.positionOf} would share a counter`)
        counts[wanted.positionOf] = 1
      }
      const keyOf = (name: string) => `${merchantId}/${mode}/${name}`
      const names = Object.keys(counts).filter((name) => counts[name]! > 0)
      const known = inTransaction && names.every((name) => lastTaken.has(keyOf(name)))
      const first: Record<string, number> = known
        ? Object.fromEntries(Object.keys(counts).map((name) => [name, 0]))
        : await reserveCounterValues(db, merchantId, mode, counts)
      for (const name of names) {
        if (known) first[name] = lastTaken.get(keyOf(name))! + 1
        lastTaken.set(keyOf(name), first[name]! + counts[name]! - 1)
      }
      if (known) await advanceLockedCounters(db, merchantId, mode, counts)
      return {
        ledgerEntries: first.ledger!,
        events: first.event!,
        position: wanted.positionOf ? first[wanted.positionOf]! : 0,
      }
    },
    async takePosition(merchantId, mode, kind) {
      if (!inTransaction) throw new Error('a position is taken inside the transaction that opens with it')
      const counts: Record<string, number> = { ledger: 0, event: 0 }
      if (kind in counts) throw new Error(`a kind named ${kind} would share a counter`)
      counts[kind] = 1
      const keyOf = (name: string) => `${merchantId}/${mode}/${name}`
      if (Object.keys(counts).every((name) => lastTaken.has(keyOf(name)))) {
        const position = lastTaken.get(keyOf(kind))! + 1
        lastTaken.set(keyOf(kind), position)
        await advanceLockedCounters(db, merchantId, mode, { [kind]: 1 })
        return position
      }
      const first = await reserveCounterValues(db, merchantId, mode, counts, { lockUnchanged: true })
      for (const name of Object.keys(counts)) lastTaken.set(keyOf(name), first[name]! + counts[name]! - 1)
      return first[kind]!
    },
  }
}
