import { WakeSignal } from '../../events/wake-signal.ts'
import type { ScheduledWork } from '../../store/repositories/scheduled-work.ts'
import type { AppContext } from '../context.ts'
import { runWork } from '../lifecycle.ts'
import { GroupedWrites, largestGroupOf } from './grouped-writes.ts'

/** How long a claimed item is left to its worker before another instance may take it over. */
const leaseMs = 60_000
/** A failed item is due again after this, doubled with each attempt, up to the lease's length. */
const firstRetryMs = 1_000
/** The most one pass by hand claims (`runOnce`), whatever the concurrency. */
const passSize = 64

export interface ScheduledWorkOptions {
  /** Items run at once (each holds a transaction for its settlement's time). */
  concurrency: number
  /** How long the loop sleeps when nothing is due, and after a failure to claim. */
  idleMs: number
}

/**
 * Scheduled work (submissions a crash cut short, polls of pending sides, expiry), claimed in
 * batches of what the pool has room for and run side by side, so that settlements commit
 * together (SQLite's group commit) instead of one after another: one at a time, settlement fell
 * behind any overload. A new claim waits until a quarter of the pool is free, so a claim holds
 * many items; an item that takes long (an operator's answer) holds its own slot, not the others'.
 * One operation's items run one after another.
 *
 * Items done are completed together, in one statement per group (`GroupedWrites`). No item
 * waits out its lease because something failed:
 * - An item that fails is released at once, due again a second later (doubling with its
 *   attempts, up to the lease).
 * - When the database went away (an item's write, a claim or a write back failed as
 *   unavailable, or was not answered), this owner's leases may be held by nobody: the next claim
 *   is preceded by one statement releasing every lease of this owner but the items it still
 *   holds. What an outage interrupted is so due again, at once, as soon as the database answers,
 *   and an outage does not hold a connection per interrupted item for their releases.
 */
export class ScheduledWorkPool {
  /** Claimed and not yet written back (completed or released). */
  private readonly held = new Set<number>()
  /** The last item of each operation in the pool: the next of that operation runs after it. */
  private readonly chains = new Map<number, Promise<void>>()
  /** Set when a claim or a write back failed: leases of this owner may be held by nobody. */
  private unsure = false
  /** The last claim filled the room it had: more may be due as soon as items end. */
  private moreMayBeDue = false
  private stopped = false
  private readonly signal = new WakeSignal()
  private readonly completions: GroupedWrites<number>

  constructor(
    private readonly context: AppContext,
    private readonly owner: string,
    private readonly options: ScheduledWorkOptions,
  ) {
    const complete = (ids: readonly number[]) =>
      context.store.scheduledWork.complete(ids, owner, context.clock.nowUs())
    this.completions = new GroupedWrites<number>(
      {
        writeGroup: async (ids) => {
          await complete(ids)
          return ids.map(() => undefined)
        },
        writeOne: (id) => complete([id]),
      },
      largestGroupOf(context.config, options.concurrency),
    )
  }

  /**
   * One pass, for a caller that moves a clock by hand: claims what is due (up to `passSize`),
   * runs it, `concurrency` items at a time, and writes it back; resolves with how many it claimed.
   */
  async runOnce(): Promise<number> {
    await this.releaseUnheldIfUnsure()
    const due = await this.claim(passSize)
    for (let from = 0; from < due.length; from += this.options.concurrency)
      await Promise.all(due.slice(from, from + this.options.concurrency).map((work) => this.take(work)))
    return due.length
  }

  /** Claims and runs in the background until `stop()`. */
  start(): { stop(): Promise<void> } {
    const running = this.loop()
    return {
      stop: async () => {
        this.stopped = true
        this.signal.wake()
        await running
      },
    }
  }

  private async loop(): Promise<void> {
    const { concurrency, idleMs } = this.options
    while (!this.stopped) {
      const room = concurrency - this.held.size
      // A claim once a quarter is free: claims of one or two items would cost a commit each.
      if (room < Math.max(1, concurrency / 4)) {
        await this.signal.wait(idleMs)
        continue
      }
      try {
        await this.releaseUnheldIfUnsure()
        const due = await this.claim(room)
        for (const work of due) void this.take(work)
        this.moreMayBeDue = due.length === room
        if (this.moreMayBeDue) continue
      } catch (error) {
        this.unsure = true
        this.context.logger.error({ err: error }, 'claiming scheduled work failed; retrying')
      }
      await this.signal.wait(idleMs)
    }
    await Promise.all(this.chains.values())
  }

  private claim(limit: number): Promise<ScheduledWork[]> {
    const nowUs = this.context.clock.nowUs()
    return this.context.store.scheduledWork.claimDue(this.owner, nowUs, leaseMs, limit)
  }

  private async releaseUnheldIfUnsure(): Promise<void> {
    if (!this.unsure) return
    // Cleared first: a write back that fails meanwhile sets it again, and is released next time.
    this.unsure = false
    try {
      await this.context.store.scheduledWork.releaseUnheld(this.owner, [...this.held])
    } catch (error) {
      this.unsure = true
      throw error
    }
  }

  /** Runs the item after the items of its operation already in the pool; resolves once it is written back. */
  private take(work: ScheduledWork): Promise<void> {
    this.held.add(work.id)
    const previous = this.chains.get(work.operationId) ?? Promise.resolve()
    const done = previous
      .then(() => this.runAndWriteBack(work))
      .finally(() => {
        this.held.delete(work.id)
        if (this.chains.get(work.operationId) === done) this.chains.delete(work.operationId)
        if (this.moreMayBeDue) this.signal.wake()
      })
    this.chains.set(work.operationId, done)
    return done
  }

  /** Never rejects: what fails is released or left to `releaseUnheld`; what is not yet due is postponed. */
  private async runAndWriteBack(work: ScheduledWork): Promise<void> {
    const { context, owner } = this
    let postponed: { dueAgainAtUs: number } | undefined
    try {
      postponed = await runWork(context, work)
    } catch (error) {
      if (context.store.isUnavailable(error)) {
        // The database went away: released with the others once it answers, due at once.
        context.logger.warn({ err: error, workId: work.id, kind: work.kind }, 'scheduled work interrupted')
        this.unsure = true
        return
      }
      const retryMs = Math.min(firstRetryMs * 2 ** Math.max(0, work.attempts - 1), leaseMs)
      context.logger.error(
        { err: error, workId: work.id, kind: work.kind, retryMs },
        'scheduled work failed; due again after retryMs',
      )
      try {
        await context.store.scheduledWork.release(work.id, owner, context.clock.nowUs() + retryMs * 1000)
      } catch {
        this.unsure = true
      }
      return
    }
    try {
      if (postponed) await context.store.scheduledWork.postpone(work.id, owner, postponed.dueAgainAtUs)
      else await this.completions.write(work.id)
    } catch {
      // Done (or postponed) but not marked so: released after the next claim, then run again.
      this.unsure = true
    }
  }
}
