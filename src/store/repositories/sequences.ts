import type { Mode } from '../../domain/kinds.ts'
import type { RepositoryScope } from './executor.ts'
import { reserveCounterValues } from './pages.ts'

/** The first number of each range reserved: the next ledger sequence and the next event position. */
export interface ReservedNumbers {
  ledgerEntries: number
  events: number
}

/**
 * A write's ledger sequences and event positions (dense per merchant and mode: their lists seek on
 * them), reserved together in one statement before the entries and events are written: one round
 * trip instead of two while the counters' row locks are held. A time read after it keeps sequence
 * order and date order in step, as each counter's lock orders concurrent writers.
 */
export interface SequencesRepository {
  reserve(merchantId: string, mode: Mode, counts: ReservedNumbers): Promise<ReservedNumbers>
}

export function sequencesRepository({ db }: RepositoryScope): SequencesRepository {
  return {
    async reserve(merchantId, mode, counts) {
      const first = await reserveCounterValues(db, merchantId, mode, {
        ledger: counts.ledgerEntries,
        event: counts.events,
      })
      return { ledgerEntries: first.ledger, events: first.event }
    },
  }
}
