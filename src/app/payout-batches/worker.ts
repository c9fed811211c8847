import { setTimeout as sleep } from 'node:timers/promises'
import { type Operation, sideAwaitingSubmission } from '../../domain/operation.ts'
import type { PayoutBatch } from '../../domain/payout-batches.ts'
import { WakeSignal } from '../../events/wake-signal.ts'
import type { ProviderAdapter } from '../../providers/provider.ts'
import type { AppContext } from '../context.ts'
import { submitSides } from '../lifecycle.ts'
import { providerRequest } from '../provider-requests.ts'
import { executeWrites } from '../write-pipeline.ts'
import { completeIfFinal } from './decisions.ts'

/** How long a claimed batch is left to its worker before another instance may take it over. */
const leaseMs = 30_000
/** A batch whose dispatched items are not all final is looked at again after this. */
const lookAgainMs = 250
/**
 * Items taken for the sandbox in one write: it answers at once, in that write. Each write is a
 * turn of long work and holds the merchant's counters (and SQLite's writer) while it runs: a
 * hundred, written together, keep it to a few milliseconds, so other writes go in between.
 */
const sandboxChunk = 100
/** Items taken for live operators in one write: a request's worth (a bulk, or one at a time). */
const liveChunk = 20
/** At most this many writes of items per claim, so other batches get their turn. */
const chunksPerClaim = 20
/** The least time between two requests to one operator connection, from this instance. */
const paceMs = 100

/**
 * The batch worker: claims a processing batch through its lease (SKIP LOCKED on PostgreSQL), so
 * two instances never work the same one, and hands its queued items to their operators. Each item
 * is first taken in a committed write (`WriteSteps.dispatch`: its expiry and submission backstop
 * scheduled there), then sent after the commit: in bulk where the operator offers it (pawaPay,
 * `initiateMany`, `largestBulk` a request), one by one through the ordinary submission otherwise,
 * never faster than one request per `paceMs` per operator connection. A crash after the take
 * loses nothing: the submission backstop sends the item again under the same operator reference,
 * which the operator deduplicates. A batch whose items are all final completes, with its event.
 */
export class PayoutBatchWorker {
  private stopped = false
  private readonly signal = new WakeSignal()
  /** When each operator connection may next be sent a request. */
  private readonly nextRequestAt = new Map<ProviderAdapter, number>()

  constructor(
    private readonly context: AppContext,
    private readonly owner: string,
    private readonly idleMs: number,
  ) {}

  /** Works every batch due now, once; resolves with how many items it dispatched. */
  async runOnce(): Promise<number> {
    let dispatched = 0
    for (;;) {
      const batch = await this.claim()
      if (!batch) return dispatched
      dispatched += await this.work(batch)
    }
  }

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
    while (!this.stopped) {
      try {
        const batch = await this.claim()
        if (batch) {
          await this.work(batch)
          continue
        }
      } catch (error) {
        this.context.logger.error({ err: error }, 'working a payout batch failed; retrying')
      }
      await this.signal.wait(this.idleMs)
    }
  }

  private claim(): Promise<PayoutBatch | undefined> {
    return this.context.store.payoutBatches.claimDue(this.owner, this.context.clock.nowUs(), leaseMs)
  }

  private async work(batch: PayoutBatch): Promise<number> {
    const { context } = this
    const chunk = batch.mode === 'sandbox' ? sandboxChunk : liveChunk
    let dispatched = 0
    let queuedLeft = true
    try {
      for (let round = 0; round < chunksPerClaim && !this.stopped; round++) {
        const ids = await context.store.payoutBatches.itemIds(batch.id, { queuedOnly: true, limit: chunk })
        queuedLeft = ids.length === chunk
        if (ids.length === 0) break
        const taken = await context.longWork.run(batch, () => this.take(ids))
        dispatched += taken.length
        await this.send(taken)
        const kept = await context.store.payoutBatches.renew(
          batch.id,
          this.owner,
          context.clock.nowUs() + leaseMs * 1000,
        )
        // Its lease ran out and another instance holds it now: the rest is that instance's.
        if (!kept) return dispatched
        if (!queuedLeft) break
      }
      const done = !queuedLeft && (await completeIfFinal(context, batch.id))
      const nowUs = context.clock.nowUs()
      await context.store.payoutBatches.release(
        batch.id,
        this.owner,
        queuedLeft || done ? nowUs : nowUs + lookAgainMs * 1000,
      )
    } catch (error) {
      // Its lease runs out and it is worked again; the items taken are the backstop's.
      context.logger.error({ err: error, batch: batch.token }, 'working a payout batch failed')
    }
    return dispatched
  }

  /** Takes the items for their operators in one committed write (the sandbox answering there). */
  private take(ids: readonly number[]): Promise<Operation[]> {
    return executeWrites(this.context, async (steps) => {
      const operations = await steps.dispatchAll(ids)
      await steps.tx.payoutBatches.markDispatched(ids)
      return operations
    })
  }

  /** Hands the taken items that need an operator to it: each connection in turn, at its pace. */
  private async send(operations: readonly Operation[]): Promise<void> {
    const byAdapter = new Map<ProviderAdapter, Operation[]>()
    for (const operation of operations) {
      const side = sideAwaitingSubmission(operation.sides)
      if (!side) continue
      const adapter = this.context.providers.adapterFor(operation.mode, side.channel, side.country)
      byAdapter.set(adapter, [...(byAdapter.get(adapter) ?? []), operation])
    }
    await Promise.all([...byAdapter].map(([adapter, items]) => this.sendTo(adapter, items)))
  }

  private async sendTo(adapter: ProviderAdapter, operations: readonly Operation[]): Promise<void> {
    const size = adapter.initiateMany ? Math.max(1, adapter.largestBulk ?? 1) : 1
    for (let from = 0; from < operations.length; from += size) {
      await this.pace(adapter)
      const group = operations.slice(from, from + size)
      try {
        if (adapter.initiateMany) await this.sendBulk(adapter, group)
        else await submitSides(this.context, group[0]!)
      } catch (error) {
        // Taken and unanswered: the submission backstop sends them again, under the same reference.
        this.context.logger.error({ err: error, operator: adapter.name }, 'a payout batch request failed')
      }
    }
  }

  private async sendBulk(adapter: ProviderAdapter, group: readonly Operation[]): Promise<void> {
    const { context } = this
    const requests = group.map((operation) => providerRequest(operation, operation.sides[0]!))
    const outcomes = await adapter.initiateMany!(requests, context.clock.nowUs())
    await executeWrites(context, async (steps) => {
      await steps.lockOperations(group.map((operation) => operation.id))
      for (const [index, operation] of group.entries()) {
        const outcome = outcomes[index]
        if (outcome)
          await steps.settle({
            operationId: operation.id,
            role: operation.sides[0]!.role,
            outcome,
            source: 'submission',
          })
      }
    })
  }

  private async pace(adapter: ProviderAdapter): Promise<void> {
    const now = Date.now()
    const at = this.nextRequestAt.get(adapter) ?? now
    this.nextRequestAt.set(adapter, Math.max(now, at) + paceMs)
    if (at > now) await sleep(at - now)
  }
}
