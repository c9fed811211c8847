import type { Direction, OperationKind, SideKind } from './kinds.ts'
import type { Currency } from './money.ts'
import type { FailureReason, Status } from './status.ts'

export interface Customer {
  fullName: string
  phoneNumber: string
  email: string
}

/** One movement of money with one customer: the whole of a collect, or one half of a transfer. */
export interface Side {
  role: 'main' | 'from' | 'to'
  /** How this side is priced and which way its money goes. */
  kind: SideKind
  channel: string
  country: string
  currency: Currency
  amountMinor: number
  feesMinor: number
  transactionAmountMinor: number
  cashAmountMinor: number
  percentageMilli: number
  additionalFeeMinor: number
  supportedByAccount: boolean
  customer: Customer
  status: Status
  failure?: FailureReason
  providerReference?: string
  /** Set once the side was handed to its provider; a side is never submitted twice. */
  submittedAtUs?: number
  /** The customer must decide on the hosted checkout page before anything moves. */
  awaitingCustomer?: boolean
}

export function sideDirection(side: Side): Direction {
  return side.kind === 'collect' || side.kind === 'recharge' ? 'cash-in' : 'cash-out'
}

/**
 * The operation's status follows from its sides. A transfer is pending while a side is in
 * flight, succeeded when both succeeded, takes the `from` side's status when that side
 * stops it, and is `failed` when the `to` side stops after the `from` customer paid: the
 * customer is refunded, so money did move and `error` ("no money moved") would be untrue.
 */
export function compositeStatus(kind: OperationKind, sides: readonly Side[]): Status {
  const [first, second] = sides
  if (!first) throw new Error('an operation has at least one side')
  if (kind !== 'transfer' || !second) return first.status
  if (first.status !== 'succeeded') return first.status
  if (second.status === 'pending' || second.status === 'succeeded') return second.status
  return 'failed'
}
