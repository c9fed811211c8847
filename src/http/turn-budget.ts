/**
 * Spreads the API requests read in one turn of the event loop over several turns, so that no turn
 * starts requests for much longer than `budgetMs`. At saturation Node reads every connection's
 * request in one poll phase and, on SQLite, answers each before reading the next: fifty collects
 * held the loop 30–40 ms (the bench's loop delay p99), and every timer, callback delivery and
 * operator's answer waited as long. A request beyond the turn's budget starts in a check phase
 * after it, in order, before the loop reads more; a request alone never waits.
 *
 * The budget counts from the first request of a turn, through the microtasks each one runs, so it
 * holds a read answered without I/O to its whole cost. The work a request resumes after waiting on
 * I/O (a group commit's acknowledgements) is not held back.
 */
export class TurnBudget {
  private sliceOpen = false
  private sliceStartedAtMs = 0

  constructor(
    private readonly budgetMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Calls `start` now if this turn has time left, or in a later turn, after the ones deferred before it. */
  run(start: () => void): void {
    if (this.hasTimeLeft()) start()
    else setImmediate(() => this.run(start))
  }

  private hasTimeLeft(): boolean {
    if (this.budgetMs <= 0) return true
    const now = this.now()
    if (!this.sliceOpen) {
      this.sliceOpen = true
      this.sliceStartedAtMs = now
      // Queued before any request this turn defers, so it closes the slice before they run.
      setImmediate(this.closeSlice)
    }
    return now - this.sliceStartedAtMs < this.budgetMs
  }

  private readonly closeSlice = (): void => {
    this.sliceOpen = false
  }
}
