/**
 * An operator's own books of one account (a pawaPay wallet, a Wave business wallet, an MTN MoMo
 * product's account): the lines of what moved through it, oldest first, and its balance. Each
 * simulator records a line when one of its payments moves money, serves its balance and statement
 * APIs from here, and its control paths make the books disagree with what happened (a line left
 * out, another amount, a line twice, a movement no line shows) so the reconciliation's breaks can
 * be produced on purpose. Amounts are ten-thousandths (src/simulators/decimal-units.ts).
 */

/** Which way a line moved the account's money: `in` from a customer, `out` to one. */
export type LineDirection = 'in' | 'out'

export interface BookLine<Detail> {
  /** The id the operator shows the line under. */
  readonly lineId: string
  /** The payment it records (its id at the operator), so the control paths can find it. */
  readonly paymentId: string | undefined
  readonly atMs: number
  readonly direction: LineDirection
  /** What moved with the customer (or the adjustment's size): positive. */
  amountUnits: bigint
  /** What the operator kept for itself: taken from what came in, added to what went out. */
  readonly feeUnits: bigint
  /** Shown in statements and transaction lists. */
  listed: boolean
  /** Moves the balance. */
  counted: boolean
  /** What the operator shows of it besides amounts (ids, references, parties); none for a hidden movement. */
  readonly detail: Detail | undefined
  /** Ties between lines of one instant keep the order they were recorded in. */
  readonly sequence: number
}

export type NewLine<Detail> = Omit<BookLine<Detail>, 'sequence' | 'listed' | 'counted'> &
  Partial<Pick<BookLine<Detail>, 'listed' | 'counted'>>

/** How much a line changed the balance: what came in less the fee, or what went out and the fee. */
export function effectUnits(line: BookLine<unknown>): bigint {
  if (!line.counted) return 0n
  return line.direction === 'in' ? line.amountUnits - line.feeUnits : -(line.amountUnits + line.feeUnits)
}

/** A listed line and the account's balance once it was applied. */
export interface StatementEntry<Detail> {
  readonly line: BookLine<Detail>
  readonly balanceAfterUnits: bigint
}

export class WalletBook<Detail> {
  /** Every line, by time then by the order recorded. */
  private readonly lines: BookLine<Detail>[] = []
  private readonly byPayment = new Map<string, BookLine<Detail>[]>()
  /** The balance after each line of `lines`, computed again after a change. */
  private after: bigint[] | undefined
  private sequence = 0

  constructor(private openingUnits: bigint) {}

  /** The account's balance before its first line (its float): set by a simulator option or a control path. */
  setOpening(units: bigint): void {
    this.openingUnits = units
    this.after = undefined
  }

  record(line: NewLine<Detail>): BookLine<Detail> {
    const recorded: BookLine<Detail> = { listed: true, counted: true, ...line, sequence: this.sequence++ }
    let at = this.lines.length
    while (at > 0 && this.lines[at - 1]!.atMs > recorded.atMs) at--
    this.lines.splice(at, 0, recorded)
    if (recorded.paymentId !== undefined)
      this.byPayment.set(recorded.paymentId, [...(this.byPayment.get(recorded.paymentId) ?? []), recorded])
    this.after = undefined
    return recorded
  }

  /** Marks the books changed after a line was edited in place (its amount, whether it is listed or counted). */
  changed(): void {
    this.after = undefined
  }

  balanceUnits(): bigint {
    const after = this.balancesAfter()
    return after.length === 0 ? this.openingUnits : after[after.length - 1]!
  }

  /** The listed lines of [startMs, endMs), oldest first, each with the balance after it. */
  listedBetween(startMs: number, endMs: number): StatementEntry<Detail>[] {
    const after = this.balancesAfter()
    const entries: StatementEntry<Detail>[] = []
    for (let index = this.firstAtOrAfter(startMs); index < this.lines.length; index++) {
      const line = this.lines[index]!
      if (line.atMs >= endMs) break
      if (line.listed) entries.push({ line, balanceAfterUnits: after[index]! })
    }
    return entries
  }

  /**
   * Up to `limit` listed lines of [startMs, endMs) after the line at `after` (a line's `atMs` and
   * `sequence`: a page's cursor), and whether more follow.
   */
  listedPage(
    startMs: number,
    endMs: number,
    after: { atMs: number; sequence: number } | undefined,
    limit: number,
  ): { entries: StatementEntry<Detail>[]; more: boolean } {
    const balances = this.balancesAfter()
    const entries: StatementEntry<Detail>[] = []
    let index = this.firstAtOrAfter(Math.max(startMs, after?.atMs ?? startMs))
    for (; index < this.lines.length; index++) {
      const line = this.lines[index]!
      if (line.atMs >= endMs) break
      if (!line.listed || (after && line.atMs === after.atMs && line.sequence <= after.sequence)) continue
      if (entries.length === limit) return { entries, more: true }
      entries.push({ line, balanceAfterUnits: balances[index]! })
    }
    return { entries, more: false }
  }

  /** The lines of a payment, in the order recorded. */
  linesOf(paymentId: string): BookLine<Detail>[] {
    return this.byPayment.get(paymentId) ?? []
  }

  private balancesAfter(): bigint[] {
    if (this.after === undefined) {
      let balance = this.openingUnits
      this.after = this.lines.map((line) => {
        balance += effectUnits(line)
        return balance
      })
    }
    return this.after
  }

  private firstAtOrAfter(atMs: number): number {
    let low = 0
    let high = this.lines.length
    while (low < high) {
      const middle = (low + high) >> 1
      if (this.lines[middle]!.atMs < atMs) low = middle + 1
      else high = middle
    }
    return low
  }
}
