import { Batcher, retryOneByOne } from '../../batching/batcher.ts'
import type { Config } from '../../config.ts'

/** How the writes of a group are made together, and one alone; each answers with what the write returned. */
export interface GroupedWriteSteps<T, R> {
  /** Makes every write of the group in one transaction (all committed, or none); results in their order. */
  writeGroup(items: readonly T[]): Promise<R[]>
  /** Makes one write in its own transaction: how a group that failed is retried, one by one. */
  writeOne(item: T): Promise<R>
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
  private readonly groups: Batcher<T, R>

  constructor(steps: GroupedWriteSteps<T, R>, largestGroup = 32) {
    this.groups = new Batcher({
      inFlight: 1,
      largestBatch: largestGroup,
      run: retryOneByOne(async (items: readonly T[]) =>
        items.length === 1 ? [await steps.writeOne(items[0]!)] : steps.writeGroup(items),
      ),
    })
  }

  write(item: T): Promise<R> {
    return this.groups.submit(item)
  }
}

/** `largest`, or 1 when SPEED_MECHANISMS_OFF names grouped-writes: then each write commits alone. */
export function largestGroupOf(config: Pick<Config, 'speedMechanismsOff'>, largest: number): number {
  return config.speedMechanismsOff.has('grouped-writes') ? 1 : largest
}
