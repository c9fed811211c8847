import { Batcher, type Pending } from '../../batching/batcher.ts'
import type { Repositories, Store } from '../../store/store.ts'

type Work = (tx: Repositories) => Promise<unknown>
type Write = Pending<Work, unknown>

export interface GroupCommitStatistics {
  /** Transactions the group commit committed, and the writes they held (writes refused are in neither). */
  transactions: number
  writes: number
  /** Writes that failed after others in their transaction: each made those again without it. */
  refusedInGroups: number
}

/** The most writes one transaction holds, and the longest it keeps adding more: it holds the merchant's counters until it commits. */
const largestGroup = 32
const longestGroupMs = 200

/**
 * Group commit per merchant and mode, for a store that commits each transaction alone (PostgreSQL).
 *
 * Every initiation of one merchant and mode takes the same counters' row lock, so they run one
 * after another whatever the number of connections, and each alone would pay a WAL flush while
 * holding it. Here the writes of one merchant and mode that arrive while one of its transactions
 * runs are made next, one after another, in one transaction: one lock wait and one flush for the
 * group.
 *
 * - A write that finds its merchant's queue idle starts at once, alone: one client waits no longer
 *   than it would without grouping.
 * - Each write is answered only after the COMMIT that holds it.
 * - A write that fails fails alone. The transaction is rolled back, the writes before it are made
 *   again without it, and it is made again first of the next transaction: a refusal is answered
 *   only when nothing else was in its transaction, as if it had run alone.
 * - When the database cannot answer (a lock or statement timeout, a lost connection), the write,
 *   those after it in its group and those queued behind the group are answered so at once, not
 *   tried one after another: each would wait out the timeout again before its 503.
 * - A group stops taking writes after `longestGroupMs`, so a settlement waiting for the same
 *   counters waits for one short group, not for a long queue.
 * - Different merchants' queues run side by side, on their own connections.
 *
 * Each merchant and mode's queue is a `Batcher` of one batch at a time, up to `largestGroup`, whose
 * run function is `commitGroup`: it answers each write itself, since a group may take several
 * transactions (its time ran out, or a write failed) before every write is answered.
 *
 * A store that commits concurrent transactions together itself (SQLite) has its writes go straight
 * to it.
 */
export class MerchantGroupCommit {
  private readonly queues = new Map<string, Batcher<Work, unknown>>()
  private readonly counted: GroupCommitStatistics = { transactions: 0, writes: 0, refusedInGroups: 0 }

  constructor(
    private readonly store: Store,
    /** groups false: each write commits alone (SPEED_MECHANISMS_OFF=merchant-group-commit). */
    private readonly options: { groups: boolean } = { groups: true },
  ) {}

  /** Commits `work` with the other writes queued under the same key (a merchant and mode). */
  write<T>(key: string, work: (tx: Repositories) => Promise<T>): Promise<T> {
    if (this.store.groupsCommits || !this.options.groups) return this.store.transaction(work)
    return (this.queues.get(key) ?? this.queueOf(key)).submit(work) as Promise<T>
  }

  statistics(): GroupCommitStatistics {
    return { ...this.counted }
  }

  /**
   * Commits that held grouped writes, and the writes they held, whichever groups them: SQLite's
   * group commit (every write transaction) or this one (one merchant's initiations).
   */
  grouped(): { commits: number; writes: number } {
    const sqlite = this.store.commitStatistics()
    if (sqlite) return { commits: sqlite.commits, writes: sqlite.transactions }
    return { commits: this.counted.transactions, writes: this.counted.writes }
  }

  private queueOf(key: string): Batcher<Work, unknown> {
    const queue: Batcher<Work, unknown> = new Batcher({
      inFlight: 1,
      largestBatch: largestGroup,
      run: (group) => this.commitGroup(queue, group),
      // Merchants come and go: an idle queue is forgotten.
      onIdle: () => this.queues.delete(key),
    })
    this.queues.set(key, queue)
    return queue
  }

  private async commitGroup(queue: Batcher<Work, unknown>, group: readonly Write[]): Promise<void> {
    const unavailable = await this.commitInOrder(group)
    // Those that queued behind a group the database did not answer waited out its timeout
    // already; a transaction of their own would wait out another before its answer.
    if (unavailable) queue.failQueued(unavailable.error)
  }

  /** Commits the group's writes, answering each; says so when the database did not answer. */
  private async commitInOrder(group: readonly Write[]): Promise<{ error: unknown } | undefined> {
    let rest = group
    while (rest.length > 0) {
      const outcome = await this.together(rest)
      if (outcome.made) {
        for (const [index, result] of outcome.made.entries()) rest[index]!.resolve(result)
        rest = rest.slice(outcome.made.length)
        continue
      }
      const { failedAt, error } = outcome
      // The transaction itself failed (its BEGIN or COMMIT), or the database cannot answer now.
      const unavailable = this.store.isUnavailable(error)
      if (failedAt === undefined || unavailable) {
        for (const pending of rest) pending.reject(error)
        return unavailable ? { error } : undefined
      }
      if (failedAt === 0) {
        rest[0]!.reject(error)
        rest = rest.slice(1)
        continue
      }
      this.counted.refusedInGroups += 1
      // The writes before the failed one, committed again without it; if the database did not
      // answer them, those after it are answered with them.
      const unanswered = await this.commitInOrder(rest.slice(0, failedAt))
      if (unanswered) {
        for (const pending of rest.slice(failedAt)) pending.reject(unanswered.error)
        return unanswered
      }
      rest = rest.slice(failedAt)
    }
    return undefined
  }

  /** The writes in one transaction, in order, until one fails or the group has run long enough. */
  private async together(
    writes: readonly Write[],
  ): Promise<{ made: unknown[] } | { made?: undefined; failedAt?: number; error: unknown }> {
    let failedAt: number | undefined
    const started = performance.now()
    try {
      const made = await this.store.transaction(async (tx) => {
        const results: unknown[] = []
        for (const [index, pending] of writes.entries()) {
          if (index > 0 && performance.now() - started > longestGroupMs) break
          failedAt = index
          results.push(await pending.item(tx))
        }
        failedAt = undefined
        return results
      })
      this.counted.transactions += 1
      this.counted.writes += made.length
      return { made }
    } catch (error) {
      return { failedAt, error }
    }
  }
}
