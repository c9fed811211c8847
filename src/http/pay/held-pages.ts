/**
 * The pending pages held open while their payment may change (`/pay/{token}/done?wait=1`,
 * showOutcome): each reads its payment every 500 ms for up to 5 s, so a thousand held from one
 * address would read the store thousands of times a second, at every other merchant's expense.
 * At most `perAddress` are held for one address and `inAll` for the instance; a page beyond either
 * is answered at once as it stands, without following its payment (the customer's page offers to
 * follow it again).
 */
export class HeldPages {
  /** The pages held for each address; only addresses holding any. */
  private readonly byAddress = new Map<string, number>()
  private total = 0

  constructor(
    private readonly perAddress: number,
    private readonly inAll: number,
  ) {}

  /** Holds one more page for `address`: its release, or undefined when that would pass a bound. */
  hold(address: string): (() => void) | undefined {
    const held = this.byAddress.get(address) ?? 0
    if (held >= this.perAddress || this.total >= this.inAll) return undefined
    this.byAddress.set(address, held + 1)
    this.total += 1
    let released = false
    return () => {
      if (released) return
      released = true
      this.total -= 1
      const left = (this.byAddress.get(address) ?? 1) - 1
      if (left > 0) this.byAddress.set(address, left)
      else this.byAddress.delete(address)
    }
  }
}

/** The bounds of one instance's held pending pages (CONTRACT.md, Limits; docs/guide/limits.md). */
export const heldPagesPerAddress = 10
export const heldPagesInAll = 200
