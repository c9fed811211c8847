import type { Direction, SideRole } from './kinds.ts'
import type { Currency } from './money.ts'

/**
 * What an operator says happened on its own books, in Sika's terms: the lines of its statement
 * and the balances of its accounts (CONTRACT.md, Reconciliation and Platform console). The
 * adapters translate each operator's statement into these; the reconciliation's matcher reads
 * them. Pure types: nothing here knows an operator.
 */

/** The instants a statement covers: from `startAtUs` included to `endAtUs` excluded (microseconds). */
export interface StatementWindow {
  readonly startAtUs: number
  readonly endAtUs: number
}

/**
 * How a line names the Sika side it belongs to, each reference as Sika stores it on a side. Any
 * one of them that names a side joins the line to that side; a line may carry several, and none
 * when the operator moved money for something Sika never asked (a payment to the merchant's till,
 * a top-up).
 */
export interface OperatorLineReferences {
  /** The side's `operatorReference`: pawaPay's depositId, payoutId or refundId, MTN's X-Reference-Id. */
  readonly operatorReference?: string
  /** The side's `providerReference`: the operator's own id of it (Wave's checkout session or payout id). */
  readonly providerReference?: string
  /** The side itself, when the operator echoes the `<token>.<role>` Sika sent it (Wave's `client_reference`, pawaPay's `clientReferenceId`). */
  readonly side?: { readonly token: string; readonly role: SideRole }
}

/**
 * What a line is: a `payment` moves money with one customer (a collect, a payout, a refund through
 * the operator's refund API) and names its side; a `reversal` gives back a payment the operator
 * made earlier (Wave's refund of a checkout session, a payout reversed), its references naming
 * the payment it reverses; `other` moves the account's money with no customer (fees charged on
 * their own, top-ups, withdrawals, adjustments) and is never matched to a side, only counted in
 * the balance.
 */
export type OperatorLineKind = 'payment' | 'reversal' | 'other'

/**
 * The operator's final word on the line, through the adapter's status table: `succeeded` moved
 * the money; `failed` ended without moving it (operators' statements do not tell a decline from a
 * refusal, an expiry or a technical failure, so this is Sika's `failed`, `canceled` or `error`
 * alike); `pending` is any status the table does not know, never taken for a success.
 */
export type OperatorLineStatus = 'succeeded' | 'failed' | 'pending'

/** One line of an operator's statement, normalized. */
export interface OperatorLine {
  /** The account it moved (see `OperatorBalance.account`). */
  readonly account: string
  /**
   * The operator's id of the line, unique within one statement and the same each time the window
   * is fetched again (a line the operator lists twice under one id gets `#2`), so a break found
   * again keeps its identity.
   */
  readonly lineId: string
  readonly kind: OperatorLineKind
  readonly references: OperatorLineReferences
  /** `cash-in`: the customer paid the account; `cash-out`: the account paid the customer. */
  readonly direction: Direction
  /** What moved on the customer's wallet, in minor units (a side's `transactionAmount`): positive. */
  readonly amountMinor: number
  /** What the operator charged the account for the line, in minor units (0 when it says nothing). */
  readonly feeMinor: number
  /** How much the line changed the account's balance, in minor units: negative when money left it. */
  readonly balanceEffectMinor: number
  readonly currency: Currency
  readonly status: OperatorLineStatus
  /** When the operator recorded it (microseconds). */
  readonly atUs: number
  /** The account's balance after it, when the operator says (minor units). */
  readonly balanceAfterMinor?: number
  /** The line as received (a CSV row by its header, a JSON item), kept as evidence. */
  readonly raw: Readonly<Record<string, unknown>>
}

/** A line the adapter could not read (an amount in another currency's precision, no id...): kept, never dropped silently. */
export interface UnreadableLine {
  readonly account: string
  readonly raw: Readonly<Record<string, unknown>>
  /** Why, in a sentence: `Amount "12.5" has more decimals than XOF takes.` */
  readonly problem: string
}

/**
 * One account over the window: its balance when the window opened and when it closed, as the
 * operator's own statement gives them (absent when it gives none, or lists nothing in the window).
 * Then `openingBalanceMinor` plus the `balanceEffectMinor` of the account's lines plus
 * `excludedEffectMinor` is `closingBalanceMinor`, unless the operator's books disagree with
 * themselves (a `balance_drift`).
 */
export interface StatementAccount {
  readonly account: string
  readonly currency: Currency
  readonly openingBalanceMinor?: number
  readonly closingBalanceMinor?: number
  /**
   * What the account's lines left out of this statement moved: lines of other connections sharing
   * the account (pawaPay's wallet of a country carries every provider there), in minor units.
   */
  readonly excludedEffectMinor: number
}

/** One account's balance as the operator's balance API gives it now. */
export interface OperatorBalance {
  /**
   * Which account of the connection: MTN MoMo's product (`collection`, `disbursement`), pawaPay's
   * wallet (`BEN/XOF`, or `BEN/XOF/MOOV_BEN` for a provider's own wallet), Wave's `wallet`.
   */
  readonly account: string
  readonly currency: Currency
  readonly balanceMinor: number
  /** The operator's answer for this account, as received. */
  readonly raw: Readonly<Record<string, unknown>>
}
