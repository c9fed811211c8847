import { dayOf, dayWindow } from '../../domain/reconciliation-days.ts'
import { WakeSignal } from '../../events/wake-signal.ts'
import type { AppContext } from '../context.ts'
import { operatorDelayMs, performRun, runLeaseMs } from './run.ts'

/** How often the scheduler looks for a day that has ended and runs what is due. */
const lookEveryMs = 60_000

/**
 * Runs start by themselves (CONTRACT.md, Reconciliation): once a day has ended in
 * RECONCILIATION_TIMEZONE and the operator's own delay has passed, each live connection's run of
 * that day is made due, then claimed through its lease as scheduled work is (SKIP LOCKED on
 * PostgreSQL): one instance runs it, and another takes it over only once the lease of an instance
 * that died has run out. A run that failed is due again later; one that completed is run again
 * only by hand.
 */
export class ReconciliationScheduler {
  private stopped = false
  private readonly signal = new WakeSignal()
  private readonly abort = new AbortController()

  constructor(
    private readonly context: AppContext,
    private readonly owner: string,
  ) {}

  /** Makes the ended days due, then runs what is due now, one run at a time; resolves with how many ran. */
  async runOnce(): Promise<number> {
    const { context } = this
    const nowUs = context.clock.nowUs()
    const timeZone = context.config.reconciliationTimezone
    const today = dayOf(nowUs, timeZone)
    for (const connection of context.providers.liveConnections()) {
      const yesterday = dayOf(dayWindow(today, timeZone).startAtUs - 1, timeZone)
      const dueAtUs = dayWindow(yesterday, timeZone).endAtUs + operatorDelayMs(connection.adapter.name) * 1000
      await context.store.reconciliation.ensureRun(connection.id, yesterday, dueAtUs)
    }
    let ran = 0
    while (!this.stopped) {
      const [run] = await context.store.reconciliation.claimDue(
        this.owner,
        context.clock.nowUs(),
        runLeaseMs,
        1,
      )
      if (!run) return ran
      const connection = context.providers.liveConnection(run.connectionId)
      if (!connection) {
        const reason = `The connection ${run.connectionId} is no longer in OPERATORS_FILE.`
        await context.store.reconciliation.finishRun(run.id, this.owner, {
          status: 'failed',
          reason,
          lines: 0,
          matched: 0,
          matchedAmountMinor: 0,
          nowUs: context.clock.nowUs(),
          dueAgainAtUs: Number.MAX_SAFE_INTEGER,
        })
        continue
      }
      await performRun(context, connection, run, this.owner, this.abort.signal)
      ran++
    }
    return ran
  }

  start(): { stop(): Promise<void> } {
    const running = this.loop()
    return {
      stop: async () => {
        this.stopped = true
        this.abort.abort()
        this.signal.wake()
        await running
      },
    }
  }

  /** The first look comes a minute after the start: a start is busy enough, and a short-lived process runs nothing. */
  private async loop(): Promise<void> {
    await this.signal.wait(lookEveryMs)
    while (!this.stopped) {
      try {
        await this.runOnce()
      } catch (error) {
        this.context.logger.error({ err: error }, 'scheduling reconciliation runs failed; trying again')
      }
      await this.signal.wait(lookEveryMs)
    }
  }
}
