/**
 * How much argon2id work one instance does at once. Argon2 runs in libuv's thread pool: four
 * threads, which SQLite's WAL syncs (store/wal-sync.ts), dns.lookup and file reads share, and
 * each hash takes a core for tens of milliseconds. A burst of sign-ins queued there whole held
 * every merchant's commits behind it for seconds. So at most `running` hashes run at once, up to
 * `waiting` more wait their turn in order, and no address holds more than `perAddress` of those
 * places: the rest are refused at once ("try again in a moment"), never queued without end.
 */
export interface PasswordWorkLimits {
  running: number
  waiting: number
  perAddress: number
}

/** One thread of the pool's four: three stay free for WAL syncs, lookups and files. */
export const passwordWorkLimits: PasswordWorkLimits = { running: 1, waiting: 16, perAddress: 2 }

/** A place in the line, taken before any other work of the attempt: run its hash once, then release it. */
export interface PasswordTurn {
  /** Waits for this place's turn and runs `work` in it. */
  run<T>(work: () => Promise<T>): Promise<T>
  /** Gives the place back; once is enough, more do nothing. */
  release(): void
}

export class PasswordWork {
  private running = 0
  private readonly waiting: (() => void)[] = []
  /** Places held per address, waiting or running. */
  private readonly held = new Map<string, number>()
  private places = 0

  constructor(private readonly limits: PasswordWorkLimits = passwordWorkLimits) {}

  /** A place for `address`, or undefined when the line or the address's share of it is full. */
  take(address: string): PasswordTurn | undefined {
    const { running, waiting, perAddress } = this.limits
    const ofAddress = this.held.get(address) ?? 0
    if (ofAddress >= perAddress || this.places >= running + waiting) return undefined
    this.held.set(address, ofAddress + 1)
    this.places += 1
    let released = false
    return {
      run: (work) => this.inTurn(work),
      release: () => {
        if (released) return
        released = true
        this.places -= 1
        const left = (this.held.get(address) ?? 1) - 1
        if (left > 0) this.held.set(address, left)
        else this.held.delete(address)
      },
    }
  }

  private async inTurn<T>(work: () => Promise<T>): Promise<T> {
    if (this.running < this.limits.running) this.running += 1
    else await new Promise<void>((resolve) => this.waiting.push(resolve))
    try {
      return await work()
    } finally {
      // The turn passes to the next in line as it is, or the slot is freed.
      const next = this.waiting.shift()
      if (next) next()
      else this.running -= 1
    }
  }
}
