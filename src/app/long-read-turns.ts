/** Whose long read a batch belongs to: turns are shared between modes, then between merchants. */
export interface LongReadOwner {
  mode: string
  merchantId: string
}

type Waiting = () => void

/**
 * Long reads (CSV statements of any length) run batch by batch, one batch at a time in the whole
 * process, each starting in its own check phase of the event loop: the requests that arrived
 * meanwhile are read and answered between two batches, and wait for one batch at most, never for
 * a whole statement. On SQLite a batch's query runs in the process and holds the loop while it
 * runs; on PostgreSQL its rows are parsed and written out in the process, and one batch at a time
 * also keeps long reads to one pool connection.
 *
 * Turns go round: live and sandbox in turn, then each merchant of a mode in turn, then each of a
 * merchant's reads in the order it asked. A merchant with many reads, or many merchants, take no
 * more than their share from another merchant's statement, and sandbox never more than half from live.
 */
export class LongReadTurns {
  /** mode → merchant → its reads waiting for a turn. Maps keep insertion order: the next is first. */
  private readonly waiting = new Map<string, Map<string, Waiting[]>>()
  private running = false
  private scheduled = false

  /** Runs `batch` in its turn, and resolves or rejects as it does. */
  async run<T>(owner: LongReadOwner, batch: () => Promise<T>): Promise<T> {
    await new Promise<void>((resolve) => {
      this.enqueue(owner, resolve)
      this.scheduleNext()
    })
    try {
      return await batch()
    } finally {
      this.running = false
      this.scheduleNext()
    }
  }

  private enqueue({ mode, merchantId }: LongReadOwner, start: Waiting): void {
    let merchants = this.waiting.get(mode)
    if (!merchants) {
      merchants = new Map()
      this.waiting.set(mode, merchants)
    }
    const reads = merchants.get(merchantId)
    if (reads) reads.push(start)
    else merchants.set(merchantId, [start])
  }

  /** The next turn starts in a check phase, after the poll phase that reads waiting requests. */
  private scheduleNext(): void {
    if (this.running || this.scheduled || this.waiting.size === 0) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      if (this.running) return
      const start = this.takeNext()
      if (!start) return
      this.running = true
      start()
    })
  }

  /** The first waiting read of the first merchant of the first mode; each goes to the back of its line. */
  private takeNext(): Waiting | undefined {
    const [mode, merchants] = this.waiting.entries().next().value ?? []
    if (mode === undefined || !merchants) return undefined
    this.waiting.delete(mode)
    const [merchantId, reads] = merchants.entries().next().value!
    merchants.delete(merchantId)
    const start = reads.shift()
    if (reads.length > 0) merchants.set(merchantId, reads)
    if (merchants.size > 0) this.waiting.set(mode, merchants)
    return start
  }
}
