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
  private inFlight = 0
  private waiting: Waiting<Key, Result>[] = []

  constructor(
    /** Reads every key in one statement; answers in the keys' order. */
    private readonly readAll: (keys: readonly Key[]) => Promise<readonly Result[]>,
    private readonly inFlightLimit: number,
    private readonly largestBatch: number,
  ) {}

  read(key: Key): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.waiting.push({ key, resolve, reject })
      if (this.inFlight < this.inFlightLimit) this.sendWaiting()
    })
  }

  private sendWaiting(): void {
    const batch = this.waiting.splice(0, this.largestBatch)
    this.inFlight += 1
    // A failure (the database cannot answer) is every read's failure, as it would have been alone.
    this.readAll(batch.map((read) => read.key))
      .then(
        (results) => {
          for (let index = 0; index < batch.length; index++) batch[index]!.resolve(results[index]!)
        },
        (error: unknown) => {
          for (const read of batch) read.reject(error)
        },
      )
      .finally(() => {
        this.inFlight -= 1
        if (this.waiting.length > 0) this.sendWaiting()
      })
  }
}

interface Waiting<Key, Result> {
  key: Key
  resolve(result: Result): void
  reject(error: unknown): void
}
