/** How the writes of a group are made together, and one alone; each answers with what the write returned. */
export interface GroupedWriteSteps<T, R> {
  /** Makes every write of the group in one transaction (all committed, or none); results in their order. */
  writeGroup(items: readonly T[]): Promise<R[]>
  /** Makes one write in its own transaction: how a group that failed is retried, one by one. */
  writeOne(item: T): Promise<R>
}

interface Pending<T, R> {
  item: T
  resolve(result: R): void
  reject(error: unknown): void
}

/**
 * Group commit for small writes that many callers make at once (a callback attempt's record):
 * a write made while none is being committed starts at once, alone, so one caller waits no
 * longer than before; the writes that arrive while a group is being committed are committed
 * together next, in one transaction, up to `largestGroup`. Each caller resolves only once the
 * commit that holds its write is done, so nothing is acknowledged before it is durable. A group
 * that fails is made again one write at a time, so a write that cannot be made fails alone.
 *
 * On PostgreSQL a commit waits for the WAL flush and every statement is a round trip (the
 * writev that sends it was the largest part of a callback drain's CPU).
 */
export class GroupedWrites<T, R = void> {
  private queue: Pending<T, R>[] = []
  private writing = false

  constructor(
    private readonly steps: GroupedWriteSteps<T, R>,
    private readonly largestGroup = 32,
  ) {}

  write(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject })
      if (!this.writing) void this.writeQueued()
    })
  }

  private async writeQueued(): Promise<void> {
    this.writing = true
    try {
      while (this.queue.length > 0) {
        const group = this.queue.splice(0, this.largestGroup)
        await this.writeTogether(group)
      }
    } finally {
      this.writing = false
    }
  }

  private async writeTogether(group: Pending<T, R>[]): Promise<void> {
    let results: R[]
    try {
      if (group.length === 1) results = [await this.steps.writeOne(group[0]!.item)]
      else results = await this.steps.writeGroup(group.map((pending) => pending.item))
    } catch (error) {
      if (group.length === 1) return group[0]!.reject(error)
      for (const pending of group)
        await this.steps.writeOne(pending.item).then(pending.resolve, pending.reject)
      return
    }
    for (const [index, pending] of group.entries()) pending.resolve(results[index] as R)
  }
}
