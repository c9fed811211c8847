import type { SideRole } from '../../domain/kinds.ts'

/** One side of one operation: what its submissions and status checks are kept by. */
export const sideKey = (operationId: number, role: SideRole) => `${operationId}/${role}`

interface CheckState {
  /** The check running now, if any. */
  running?: Promise<void>
  /** The check that runs once the one running ends and the interval is up, if one was asked for meanwhile. */
  following?: Promise<void>
  startedAtMs: number
}

/**
 * What this instance knows of each live side between writes: whether its submission to the
 * operator is in flight (and whether the operator told us something meanwhile), and when its
 * status was last asked. An operator's notification can arrive before its own POST has answered,
 * and anyone can send one: each side then gets one status check at a time on this instance, at
 * most one per interval, and a notification heard during the submission is acted on as soon as it
 * ends. Across instances, each check still takes the side's turn (status-check-turns.ts).
 */
export class SideChecks {
  private readonly submitting = new Map<string, { heard: boolean }>()
  private readonly checks = new Map<string, CheckState>()

  constructor(
    private readonly intervalMs = 1000,
    private readonly nowMs: () => number = () => performance.now(),
  ) {}

  /** Runs the side's submission; `heard` says whether a notification about it arrived meanwhile. */
  async submit<T>(key: string, work: () => Promise<T>): Promise<{ result: T; heard: boolean }> {
    const state = { heard: false }
    this.submitting.set(key, state)
    try {
      const result = await work()
      return { result, heard: state.heard }
    } finally {
      if (this.submitting.get(key) === state) this.submitting.delete(key)
    }
  }

  /** A notification about a side: remembered when its submission is in flight here (true), else false. */
  heardDuringSubmission(key: string): boolean {
    const state = this.submitting.get(key)
    if (state) state.heard = true
    return state !== undefined
  }

  /**
   * Asks the side's status through `run`: at once when nothing is running and the interval since
   * the last check is up; otherwise once, after the running check and the interval, however many
   * ask meanwhile (a status read before the operator's change could miss it, so a later ask is
   * never dropped, only joined).
   */
  check(key: string, run: () => Promise<void>): Promise<void> {
    const state = this.checks.get(key)
    if (!state) return this.start(key, run)
    if (state.following) return state.following
    const previous = state.running ?? Promise.resolve()
    const following = previous.then(async () => {
      // A timer may fire a little before its delay by this clock (libuv counts from its cached
      // loop time), so the wait repeats until the interval is really up.
      for (let waitMs = this.waitMs(state); waitMs > 0; waitMs = this.waitMs(state))
        await new Promise((resolve) => setTimeout(resolve, Math.ceil(waitMs)))
      state.following = undefined
      await this.start(key, run)
    })
    state.following = following
    return following
  }

  private waitMs(state: CheckState): number {
    return state.startedAtMs + this.intervalMs - this.nowMs()
  }

  private start(key: string, run: () => Promise<void>): Promise<void> {
    const state: CheckState = this.checks.get(key) ?? { startedAtMs: 0 }
    state.startedAtMs = this.nowMs()
    const running = run().finally(() => {
      state.running = undefined
      this.forgetLater(key, state)
    })
    state.running = running.catch(() => undefined)
    this.checks.set(key, state)
    return running
  }

  /**
   * A side nobody asked about for an interval is forgotten, so the map holds only sides in play;
   * never before an interval has passed since its last check began, which the next one must wait.
   */
  private forgetLater(key: string, state: CheckState): void {
    setTimeout(() => {
      const idle = !state.running && !state.following && this.nowMs() - state.startedAtMs >= this.intervalMs
      if (this.checks.get(key) === state && idle) this.checks.delete(key)
      else if (this.checks.get(key) === state && !state.running && !state.following)
        this.forgetLater(key, state)
    }, this.intervalMs).unref()
  }
}
