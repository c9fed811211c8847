import type { Mode, OperationKind } from '../../domain/kinds.ts'
import type { RepositoryScope } from './executor.ts'
import { reserveCounterValues } from './pages.ts'

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
}

export function sequencesRepository({ db }: RepositoryScope): SequencesRepository {
  return {
    async reserve(merchantId, mode, wanted) {
      const counts: Record<string, number> = { ledger: wanted.ledgerEntries, event: wanted.events }
      if (wanted.positionOf) {
        if (wanted.positionOf in counts)
          throw new Error(`a kind named ${wanted.positionOf} would share a counter`)
        counts[wanted.positionOf] = 1
      }
      const first = await reserveCounterValues(db, merchantId, mode, counts)
      return {
        ledgerEntries: first.ledger!,
        events: first.event!,
        position: wanted.positionOf ? first[wanted.positionOf]! : 0,
      }
    },
  }
}
