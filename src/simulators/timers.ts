/** Timers that never hold the process open and that close() clears together. */
export class Timers {
  private readonly pending = new Set<NodeJS.Timeout>()

  after(delayMs: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.pending.delete(timer)
      run()
    }, delayMs)
    timer.unref()
    this.pending.add(timer)
  }

  clear(): void {
    for (const timer of this.pending) clearTimeout(timer)
    this.pending.clear()
  }
}
