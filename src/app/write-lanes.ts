import type { Repositories, Store } from '../store/store.ts'

type Work = (tx: Repositories) => Promise<unknown>

interface Pending {
  work: Work
  resolve(result: unknown): void
  reject(error: unknown): void
}

interface Lane {
  queue: Pending[]
  running: boolean
}

/** How many transactions the lanes committed, and the writes they held (writes refused are in neither). */
export interface LaneStatistics {
  transactions: number
  writes: number
}

/** The most writes one transaction holds: a group holds the merchant's counters until it commits. */
const largestGroup = 32

/**
 * Group commit per merchant, for a store that commits each transaction alone (PostgreSQL).
 *
 * Every initiation of one merchant and mode takes the same counters' row lock, so they run one
 * after another whatever the number of connections, and each paid a WAL flush while holding it.
 * Here the writes of one lane that arrive while one of its transactions runs are made next, one
 * after another, in one transaction: one lock wait and one flush for the group.
 *
 * - A write that finds its lane idle starts at once, alone: one client waits no longer than before.
 * - Each write is answered only after the COMMIT that holds it.
 * - A write that fails fails alone. The transaction is rolled back, the writes before it are made
 *   again without it, and it is made again first of the next transaction: a refusal is answered
 *   only when nothing else was in its transaction, as if it had run alone.
 * - Different lanes (merchants) run side by side, on their own connections.
 *
 * A store that commits concurrent transactions together itself (SQLite) gets no lanes.
 */
export class WriteLanes {
  private readonly lanes = new Map<string, Lane>()
  private readonly counted: LaneStatistics = { transactions: 0, writes: 0 }

  constructor(private readonly store: Store) {}

  write<T>(key: string, work: (tx: Repositories) => Promise<T>): Promise<T> {
    if (this.store.groupsCommits) return this.store.transaction(work)
    return new Promise<T>((resolve, reject) => {
      let lane = this.lanes.get(key)
      if (!lane) {
        lane = { queue: [], running: false }
        this.lanes.set(key, lane)
      }
      lane.queue.push({ work, resolve: resolve as (result: unknown) => void, reject })
      if (!lane.running) void this.run(key, lane)
    })
  }

  statistics(): LaneStatistics {
    return { ...this.counted }
  }

  private async run(key: string, lane: Lane): Promise<void> {
    lane.running = true
    while (lane.queue.length > 0) await this.commitInOrder(lane.queue.splice(0, largestGroup))
    lane.running = false
    // Merchants come and go: an idle lane is forgotten.
    this.lanes.delete(key)
  }

  private async commitInOrder(group: Pending[]): Promise<void> {
    let rest = group
    while (rest.length > 0) {
      const outcome = await this.together(rest)
      if (outcome.made) {
        for (const [index, pending] of rest.entries()) pending.resolve(outcome.made[index])
        return
      }
      const { failedAt, error } = outcome
      if (failedAt === undefined) {
        // The transaction itself failed (its BEGIN or COMMIT): none of its writes happened.
        for (const pending of rest) pending.reject(error)
        return
      }
      if (failedAt > 0) await this.commitInOrder(rest.slice(0, failedAt))
      else rest[0]!.reject(error)
      rest = rest.slice(failedAt === 0 ? 1 : failedAt)
    }
  }

  /** The writes in one transaction, in order, until one fails. */
  private async together(
    writes: Pending[],
  ): Promise<{ made: unknown[] } | { made?: undefined; failedAt?: number; error: unknown }> {
    let failedAt: number | undefined
    try {
      const made = await this.store.transaction(async (tx) => {
        const results: unknown[] = []
        for (const [index, pending] of writes.entries()) {
          failedAt = index
          results.push(await pending.work(tx))
        }
        failedAt = undefined
        return results
      })
      this.counted.transactions += 1
      this.counted.writes += writes.length
      return { made }
    } catch (error) {
      return { failedAt, error }
    }
  }
}
