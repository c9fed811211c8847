import type { Direction, SideRole } from './kinds.ts'
import type { Currency } from './money.ts'
import type { OperatorLine, StatementAccount, StatementWindow } from './operator-lines.ts'
import type { Status } from './status.ts'

/**
 * The reconciliation's matcher (CONTRACT.md, Reconciliation): Sika's sides of one connection and
 * day beside the operator's lines of that day, joined by the side's operator reference and
 * compared on amount, currency, direction and final status. Pure: the same sides and lines, in any
 * order, give the same matches and the same breaks, each named by a reference stable from one run
 * of the day to the next (so a break found again keeps its identity).
 */

export const breakKinds = [
  'missing_in_sika',
  'missing_at_operator',
  'status_mismatch',
  'amount_mismatch',
  'duplicate',
  'balance_drift',
] as const
export type BreakKind = (typeof breakKinds)[number]

/** One side of a live operation as Sika holds it. */
export interface SikaSide {
  readonly operationId: number
  readonly token: string
  readonly role: SideRole
  readonly operatorReference?: string
  readonly providerReference?: string
  readonly direction: Direction
  /** The side's `transactionAmount`: what moved on the customer's wallet, in minor units. */
  readonly amountMinor: number
  readonly currency: Currency
  readonly status: Status
  /**
   * Whether the side belongs to the day: it ended in the day's window (or, still pending, began in
   * it). Only a side of the day that succeeded is owed a line; a side outside the day is read only
   * because a line of the day names it.
   */
  readonly ofTheDay: boolean
}

/** One account's balance as the operator's balance API gave it at the end of the lines read. */
export interface BalanceReading {
  readonly account: string
  readonly currency: Currency
  readonly balanceMinor: number
}

export interface MatchInput {
  readonly sides: readonly SikaSide[]
  readonly lines: readonly OperatorLine[]
  /** The statement's accounts: their opening and closing balances, when the operator gives them. */
  readonly accounts: readonly StatementAccount[]
  /** The balance API's answers, read when the statement reaches the present; absent otherwise. */
  readonly balances?: readonly BalanceReading[]
  /**
   * The day's window: lines outside it (read after the day to reach the present, for the balance
   * API's proof) count only in the balances. Absent: every line is of the day.
   */
  readonly day?: StatementWindow
}

export interface SideName {
  readonly operationId: number
  readonly token: string
  readonly role: SideRole
}

export interface FoundBreak {
  readonly kind: BreakKind
  /** Stable within one connection and day: `<token>.<role>`, the line's id, or the account. */
  readonly reference: string
  /** The operator's reference of what it is about (the side's, or the line's), or null. */
  readonly operatorReference: string | null
  readonly side: SideName | null
  /** The operator's lines it concerns, as received (none for `missing_at_operator`). */
  readonly lines: readonly OperatorLine[]
  /** The money at stake, in minor units: the line's amount, the side's, or the drift. */
  readonly amountMinor: number
  readonly currency: Currency
  /** What disagrees, in a sentence for a person. */
  readonly detail: string
}

export interface Matching {
  /** Every payment line read. */
  readonly lines: number
  /** Lines that joined a side and agreed with it. */
  readonly matched: number
  readonly matchedAmountMinor: number
  /** Ordered by kind, then reference. */
  readonly breaks: readonly FoundBreak[]
}

const sideKey = (side: { token: string; role: SideRole }) => `${side.token}.${side.role}`
const nameOf = (side: SikaSide): SideName => ({
  operationId: side.operationId,
  token: side.token,
  role: side.role,
})

/** Finds a line's side by the first reference that names one: the operator's, then Sika's own, then the operator's id. */
function sideFinder(sides: readonly SikaSide[]) {
  const byOperator = new Map<string, SikaSide>()
  const byProvider = new Map<string, SikaSide>()
  const byKey = new Map<string, SikaSide>()
  for (const side of sides) {
    if (side.operatorReference) byOperator.set(side.operatorReference.toLowerCase(), side)
    if (side.providerReference) byProvider.set(side.providerReference, side)
    byKey.set(sideKey(side), side)
  }
  return (line: OperatorLine): SikaSide | undefined => {
    const { operatorReference, side, providerReference } = line.references
    return (
      (operatorReference ? byOperator.get(operatorReference.toLowerCase()) : undefined) ??
      (side ? byKey.get(sideKey(side)) : undefined) ??
      (providerReference ? byProvider.get(providerReference) : undefined)
    )
  }
}

const ofTheDay = (day: StatementWindow | undefined, atUs: number) =>
  day === undefined || (atUs >= day.startAtUs && atUs < day.endAtUs)

const byLineId = (a: OperatorLine, b: OperatorLine) =>
  a.lineId < b.lineId ? -1 : a.lineId > b.lineId ? 1 : 0

/** Matches the day: see the module's comment. */
export function matchDay(input: MatchInput): Matching {
  const find = sideFinder(input.sides)
  const breaks: FoundBreak[] = []
  const linesOfSide = new Map<SikaSide, OperatorLine[]>()
  let lines = 0
  for (const line of input.lines) {
    if (line.kind !== 'payment' || !ofTheDay(input.day, line.atUs)) continue
    lines++
    const side = find(line)
    if (side === undefined) {
      if (line.status === 'succeeded') breaks.push(missingInSika(line))
      continue
    }
    const own = linesOfSide.get(side)
    if (own === undefined) linesOfSide.set(side, [line])
    else own.push(line)
  }
  let matched = 0
  let matchedAmountMinor = 0
  for (const [side, own] of linesOfSide) {
    const found = compareSide(side, own.sort(byLineId))
    breaks.push(...found.breaks)
    matched += found.matched
    if (found.matched > 0) matchedAmountMinor += side.amountMinor
  }
  for (const side of input.sides) {
    if (side.ofTheDay && side.status === 'succeeded' && !linesOfSide.has(side))
      breaks.push(missingAtOperator(side))
  }
  breaks.push(...balanceDrifts(input))
  breaks.sort((a, b) => a.kind.localeCompare(b.kind) || a.reference.localeCompare(b.reference))
  return { lines, matched, matchedAmountMinor, breaks }
}

function missingInSika(line: OperatorLine): FoundBreak {
  const reference = line.references.operatorReference ?? line.references.providerReference ?? line.lineId
  return {
    kind: 'missing_in_sika',
    reference: line.lineId,
    operatorReference: reference,
    side: null,
    lines: [line],
    amountMinor: line.amountMinor,
    currency: line.currency,
    detail: `The operator moved ${line.amountMinor} ${line.currency} (${line.direction}) for ${reference}, which Sika does not have.`,
  }
}

function missingAtOperator(side: SikaSide): FoundBreak {
  return {
    kind: 'missing_at_operator',
    reference: sideKey(side),
    operatorReference: side.operatorReference ?? null,
    side: nameOf(side),
    lines: [],
    amountMinor: side.amountMinor,
    currency: side.currency,
    detail: `Sika holds ${side.token} (${side.role}) as succeeded; the operator lists no line for it.`,
  }
}

/** Sika's word for a final outcome beside the operator's: a line says only whether money moved. */
function statusAgrees(side: SikaSide, line: OperatorLine): boolean {
  if (line.status === 'pending') return true
  if (line.status === 'succeeded') return side.status === 'succeeded'
  return side.status !== 'succeeded' && side.status !== 'pending'
}

/** A side's lines, ordered by id: the first is its line, any other a duplicate. */
function compareSide(
  side: SikaSide,
  own: readonly OperatorLine[],
): { matched: number; breaks: FoundBreak[] } {
  const [line, ...others] = own as [OperatorLine, ...OperatorLine[]]
  const common = {
    reference: sideKey(side),
    operatorReference: side.operatorReference ?? line.references.operatorReference ?? null,
    side: nameOf(side),
    currency: side.currency,
  }
  const breaks: FoundBreak[] = []
  const moved = others.filter((other) => other.status === 'succeeded')
  if (moved.length > 0)
    breaks.push({
      ...common,
      kind: 'duplicate',
      lines: own,
      amountMinor: moved.reduce((sum, other) => sum + other.amountMinor, 0),
      detail: `The operator lists ${own.length} lines for ${side.token} (${side.role}).`,
    })
  if (
    line.amountMinor !== side.amountMinor ||
    line.currency !== side.currency ||
    line.direction !== side.direction
  )
    breaks.push({
      ...common,
      kind: 'amount_mismatch',
      lines: [line],
      amountMinor: Math.abs(line.amountMinor - side.amountMinor),
      detail: `Sika holds ${side.amountMinor} ${side.currency} (${side.direction}); the operator's line says ${line.amountMinor} ${line.currency} (${line.direction}).`,
    })
  if (!statusAgrees(side, line))
    breaks.push({
      ...common,
      kind: 'status_mismatch',
      lines: [line],
      amountMinor: side.amountMinor,
      detail: `Sika holds ${side.token} (${side.role}) as ${side.status}; the operator's line says ${line.status}.`,
    })
  return { matched: breaks.length === 0 ? 1 : 0, breaks }
}

/**
 * Each account whose books disagree with themselves (its opening balance plus its lines is not its
 * closing balance) or with its balance API (the closing balance is not what the API said).
 */
function balanceDrifts(input: MatchInput): FoundBreak[] {
  const drifts: FoundBreak[] = []
  const effects = new Map<string, number>()
  for (const line of input.lines)
    effects.set(line.account, (effects.get(line.account) ?? 0) + line.balanceEffectMinor)
  for (const account of input.accounts) {
    const { openingBalanceMinor: opening, closingBalanceMinor: closing } = account
    if (opening === undefined || closing === undefined) continue
    const expected = opening + (effects.get(account.account) ?? 0) + account.excludedEffectMinor
    if (expected !== closing)
      drifts.push(
        drift(
          `${account.account}/lines`,
          account.currency,
          closing - expected,
          `The operator's opening balance of ${account.account} plus its lines is ${expected}; its closing balance is ${closing}.`,
        ),
      )
    const reading = input.balances?.find((each) => each.account === account.account)
    if (reading !== undefined && reading.balanceMinor !== closing)
      drifts.push(
        drift(
          `${account.account}/balance`,
          account.currency,
          reading.balanceMinor - closing,
          `The operator's lines close ${account.account} at ${closing}; its balance API says ${reading.balanceMinor}.`,
        ),
      )
  }
  return drifts
}

function drift(reference: string, currency: Currency, deltaMinor: number, detail: string): FoundBreak {
  return {
    kind: 'balance_drift',
    reference,
    operatorReference: null,
    side: null,
    lines: [],
    amountMinor: Math.abs(deltaMinor),
    currency,
    detail,
  }
}
