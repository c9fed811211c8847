/**
 * Turns at one SQLite file's write lock for two connections of this process in different threads:
 * the API's (the host) and the callback delivery thread's (the guest, DELIVERY_THREAD=on). SQLite
 * keeps no queue for the lock: a connection that finds it taken can only try again later. Under
 * load the host commits a group and opens the next in the same turn of its event loop, so a guest
 * trying now and then almost never finds it free, and callbacks fall behind. So the guest says
 * when it is waiting; the host then ends its group and,
 * before it opens the next, lets the guest go first and waits until it has committed. After each
 * commit the guest leaves the host a moment before it begins again, so neither keeps the lock.
 *
 * The lock may also be held by a third connection (a CLI command, another instance): a guest
 * waiting for that one would make the host wait for nothing, so a wait that runs out stops the
 * host giving way for a while.
 *
 * One shared word: free, the guest waiting, or the guest holding the lock.
 */
const free = 0
const guestWaiting = 1
const guestHolding = 2

/** The longest the host waits for a waiting guest to take the lock, then for it to commit. */
const hostWaitsMs = 20
const hostWaitsForCommitMs = 1000
/** How long the host does not give way after a wait that ran out. */
const hostIgnoresMs = 1000
/** How long the guest leaves the lock to the host after each commit. */
const guestGapMs = 2
/** The guest's retries while the lock is taken: 1, 2, then every 4 ms. */
const guestLongestPauseMs = 4

export class WriterTurns {
  private readonly state: Int32Array
  /** Host: until when it does not give way (a wait ran out). */
  private ignoreGuestUntil = 0
  /** Guest: when it last let the lock go. */
  private releasedAt = Number.NEGATIVE_INFINITY

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

  /**
   * What a connection waits for before it tries BEGIN, or undefined when it may try now: the host
   * a waiting guest's turn, the guest the host's moment after its own last commit.
   */
  beforeBegin(): Promise<void> | undefined {
    if (this.guest) {
      const leftMs = this.releasedAt + guestGapMs - performance.now()
      return leftMs > 0 ? new Promise((resolve) => setTimeout(resolve, leftMs)) : undefined
    }
    return this.hostShouldGiveWay() ? this.giveWay() : undefined
  }

  /** Whether the host ends its open group now, so that a waiting guest goes next. */
  endGroupEarly(): boolean {
    return !this.guest && this.hostShouldGiveWay()
  }

  /** The longest pause between two tries of BEGIN while the lock is taken: the guest tries often. */
  get longestPauseMs(): number {
    return this.guest ? guestLongestPauseMs : 20
  }

  /** BEGIN found the lock taken: the guest says it is waiting. */
  busy(): void {
    if (this.guest && Atomics.compareExchange(this.state, 0, free, guestWaiting) === free)
      Atomics.notify(this.state, 0)
  }

  /** BEGIN took the lock. */
  begun(): void {
    if (!this.guest) return
    Atomics.store(this.state, 0, guestHolding)
    Atomics.notify(this.state, 0)
  }

  /** The group committed, rolled back, or stopped waiting: the lock is the host's again. */
  ended(): void {
    if (!this.guest) return
    this.releasedAt = performance.now()
    this.released()
  }

  /** The guest's turn is over, whoever saw it end (the thread itself, or the host when the thread stopped). */
  released(): void {
    Atomics.store(this.state, 0, free)
    Atomics.notify(this.state, 0)
  }

  /** Whether the guest is waiting for the lock or holding it (host and tests). */
  guestWants(): boolean {
    return Atomics.load(this.state, 0) !== free
  }

  private hostShouldGiveWay(): boolean {
    return this.guestWants() && performance.now() >= this.ignoreGuestUntil
  }

  /**
   * The host waits until the guest has taken the lock (`hostWaitsMs` at most: a guest that does
   * not get it is waiting for a third connection, and the host stops giving way for a while), then
   * until it has committed (`hostWaitsForCommitMs` at most).
   */
  private async giveWay(): Promise<void> {
    if (!(await this.waitWhile(guestWaiting, hostWaitsMs))) {
      this.ignoreGuestUntil = performance.now() + hostIgnoresMs
      return
    }
    await this.waitWhile(guestHolding, hostWaitsForCommitMs)
  }

  /** Waits while the word holds `value`, `withinMs` at most; whether it changed in time. */
  private async waitWhile(value: number, withinMs: number): Promise<boolean> {
    const until = performance.now() + withinMs
    for (;;) {
      if (Atomics.load(this.state, 0) !== value) return true
      const leftMs = until - performance.now()
      if (leftMs <= 0) return false
      const wait = Atomics.waitAsync(this.state, 0, value, leftMs)
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
