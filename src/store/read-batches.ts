import { Batcher, failAll } from '../batching/batcher.ts'

/**
 * Point reads of one kind, sent together when they queue. While fewer than `inFlightLimit` reads
 * are running, a read goes at once, alone: an idle service answers as fast as without batches.
 * Reads that arrive while that many are running wait, and go as one statement as soon as one ends,
 * up to `largestBatch` at a time. On PostgreSQL each statement costs a round trip, two system
 * calls on each side and the server's per-statement work; fifty merchants' clients reading
 * details at once then pay those once per batch instead of once per read. On SQLite a read
 * returns before the next request is parsed, so nothing ever queues and every batch is one read.
 */
export class ReadBatches<Key, Result> {
  private readonly batches: Batcher<Key, Result>

  constructor(
    /** Reads every key in one statement; answers in the keys' order. */
    readAll: (keys: readonly Key[]) => Promise<readonly Result[]>,
    inFlightLimit: number,
    largestBatch: number,
  ) {
    // A failure (the database cannot answer) is every read's failure, as it would have been alone.
    this.batches = new Batcher({ inFlight: inFlightLimit, largestBatch, run: failAll(readAll) })
  }

  read(key: Key): Promise<Result> {
    return this.batches.submit(key)
  }
}
