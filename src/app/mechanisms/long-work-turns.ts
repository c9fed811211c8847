/** Whose long work a turn belongs to: turns are shared between modes, then between merchants. */
export interface LongWorkOwner {
  mode: string
  merchantId: string
}

type Waiting = () => void

/**
 * Long work runs in turns, one turn at a time in the whole process, each starting in its own check
 * phase of the event loop: the requests that arrived meanwhile are read and answered between two
 * turns, and wait for one turn at most, never for the whole of the work. The long work is what no
 * request may wait behind whole: a CSV statement or export, read a batch of rows a turn; a payout
 * batch's items priced a chunk a turn, and its acceptance and each of its dispatch's writes a
 * turn. On SQLite a turn's statements run in the process and hold the loop while they run; on
 * PostgreSQL its rows are parsed and written out in the process, and one turn at a time also keeps
 * long work to one pool connection.
 *
 * Turns go round: live and sandbox in turn, then each merchant of a mode in turn, then each of a
 * merchant's pieces of work in the order it asked. A merchant with much work, or many merchants,
 * take no more than their share from another merchant's, and sandbox never more than half from live.
 */
export class LongWorkTurns {
  /** mode → merchant → its work waiting for a turn. Maps keep insertion order: the next is first. */
  private readonly waiting = new Map<string, Map<string, Waiting[]>>()
  private running = false
  private scheduled = false

  /** Runs `turn` in its turn, and resolves or rejects as it does. */
  async run<T>(owner: LongWorkOwner, turn: () => Promise<T>): Promise<T> {
    await new Promise<void>((resolve) => {
      this.enqueue(owner, resolve)
      this.scheduleNext()
    })
    try {
      return await turn()
    } finally {
      this.running = false
      this.scheduleNext()
    }
  }

  private enqueue({ mode, merchantId }: LongWorkOwner, start: Waiting): void {
    let merchants = this.waiting.get(mode)
    if (!merchants) {
      merchants = new Map()
      this.waiting.set(mode, merchants)
    }
    const work = merchants.get(merchantId)
    if (work) work.push(start)
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

  /** The first waiting work of the first merchant of the first mode; each goes to the back of its line. */
  private takeNext(): Waiting | undefined {
    const [mode, merchants] = this.waiting.entries().next().value ?? []
    if (mode === undefined || !merchants) return undefined
    this.waiting.delete(mode)
    const [merchantId, work] = merchants.entries().next().value!
    merchants.delete(merchantId)
    const start = work.shift()
    if (work.length > 0) merchants.set(merchantId, work)
    if (merchants.size > 0) this.waiting.set(mode, merchants)
    return start
  }
}
