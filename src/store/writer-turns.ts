/**
 * Turns at one SQLite file's write lock for two connections of this process in different threads:
 * the API's (the host) and the callback delivery thread's (the guest). SQLite keeps no queue for
 * the lock: a connection that finds it taken can only try again later. Under load the host commits
 * a group and opens the next in the same turn of its event loop, so a guest trying now and then
 * almost never found it free, and callbacks fell behind by about a thousand a second
 * (BENCHMARKS.md). Here the guest says it is waiting, and the host, before it opens a group, lets
 * it go first and waits until it has committed.
 *
 * One shared word: free, the guest waiting, or the guest holding the lock.
 */
// Node 20 has Atomics.waitAsync (V8 since 8.7); TypeScript types it from ES2024's lib only.
const waitAsync = (
  Atomics as unknown as {
    waitAsync(
      array: Int32Array,
      index: number,
      value: number,
      timeoutMs: number,
    ): { async: false; value: string } | { async: true; value: Promise<string> }
  }
).waitAsync.bind(Atomics)

const free = 0
const guestWaiting = 1
const guestHolding = 2

export class WriterTurns {
  private readonly state: Int32Array

  private constructor(
    readonly buffer: SharedArrayBuffer,
    /** The delivery thread's side; the API's otherwise. */
    readonly guest: boolean,
  ) {
    this.state = new Int32Array(buffer)
  }

  /** The API's side, and the memory to hand the thread. */
  static host(): WriterTurns {
    return new WriterTurns(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT), false)
  }

  /** The delivery thread's side of the host's memory. */
  static guest(buffer: SharedArrayBuffer): WriterTurns {
    return new WriterTurns(buffer, true)
  }

  /** The guest found the lock taken and will try again shortly. */
  waiting(): void {
    if (Atomics.compareExchange(this.state, 0, free, guestWaiting) === free) Atomics.notify(this.state, 0)
  }

  /** The guest has the lock. */
  holding(): void {
    Atomics.store(this.state, 0, guestHolding)
    Atomics.notify(this.state, 0)
  }

  /** The guest committed, rolled back or gave up: the lock is the host's again. */
  released(): void {
    Atomics.store(this.state, 0, free)
    Atomics.notify(this.state, 0)
  }

  /** Whether the host should let the guest go before it opens a group. */
  guestWants(): boolean {
    return Atomics.load(this.state, 0) !== free
  }

  /**
   * The host waits, for `withinMs` at most, until the guest has taken the lock and committed. A
   * guest that stops (its thread failed) is not waited for longer than that: `released` is also
   * called for it by whoever saw it stop.
   */
  async giveWay(withinMs: number): Promise<void> {
    const until = performance.now() + withinMs
    for (;;) {
      const seen = Atomics.load(this.state, 0)
      const leftMs = until - performance.now()
      if (seen === free || leftMs <= 0) return
      const wait = waitAsync(this.state, 0, seen, leftMs)
      if (!wait.async) continue
      // A pending waitAsync holds no handle on the event loop, and its timeout may be heard after
      // the loop ran dry: this timer keeps the loop, and ends the wait itself.
      let timer: NodeJS.Timeout | undefined
      const timedOut = new Promise((resolve) => {
        timer = setTimeout(resolve, leftMs)
      })
      await Promise.race([wait.value, timedOut])
      clearTimeout(timer)
    }
  }
}
