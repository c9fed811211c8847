/**
 * Spreads the API requests that arrive together over several turns of the event loop, so that no
 * stretch of it starts requests for much longer than `budgetMs`. At saturation Node reads every
 * connection's request in one poll phase and, on SQLite, answers each before reading the next, so
 * a burst of requests holds the loop for all of them, and every timer, callback delivery and
 * operator's answer waits as long. A request over the budget starts in a check phase
 * after it, behind every request deferred before it; one that finds the loop idle never waits.
 *
 * The budget's stretch opens at the first request after a check phase and closes at the next
 * check phase. A request read from a socket runs its microtasks before the next socket is read, so
 * the budget holds a read answered without I/O to its whole cost; the work a request resumes after
 * waiting on I/O (a group commit's acknowledgements) is not held back.
 */
export class TurnBudget {
  private sliceOpen = false
  private sliceStartedAtMs = 0
  /** Requests deferred and not started yet: a request after them waits behind them. */
  private deferred = 0

  constructor(
    private readonly budgetMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Calls `start` now if the stretch has time left and nothing waits, or later, in order. */
  run(start: () => void): void {
    if (this.deferred === 0 && this.hasTimeLeft()) start()
    else this.later(start)
  }

  /**
   * Calls `start` in a check phase, behind every request deferred before it. For requests let in
   * together from a microtask (the admission line's), which would otherwise all start before the
   * first had run past its first await, and so before the budget could see its cost.
   */
  later(start: () => void): void {
    if (this.budgetMs <= 0) {
      start()
      return
    }
    this.deferred += 1
    setImmediate(() => this.resume(start))
  }

  private resume(start: () => void): void {
    if (!this.hasTimeLeft()) {
      setImmediate(() => this.resume(start))
      return
    }
    this.deferred -= 1
    start()
  }

  private hasTimeLeft(): boolean {
    if (this.budgetMs <= 0) return true
    const now = this.now()
    if (!this.sliceOpen) {
      this.sliceOpen = true
      this.sliceStartedAtMs = now
      // Queued before any request this stretch defers, so it closes the stretch before they run.
      setImmediate(this.closeSlice)
    }
    return now - this.sliceStartedAtMs < this.budgetMs
  }

  private readonly closeSlice = (): void => {
    this.sliceOpen = false
  }
}
