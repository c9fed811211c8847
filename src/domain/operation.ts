import {
  type Mode,
  type OperationKind,
  refundKindFor,
  type SideKind,
  type SideRole,
  sideKinds,
} from './kinds.ts'
import { type Currency, toMajorUnits } from './money.ts'
import type { FailureReason, Status } from './status.ts'

export interface Customer {
  fullName: string
  phoneNumber: string
  email: string
}

/** One movement of money with one customer: the whole of a collect, or one half of a transfer. */
export interface Side {
  role: SideRole
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
  /**
   * What the operator knows this side by (a UUID), chosen before the first call and written with
   * the operation, so every retry is the same payment to the operator.
   */
  operatorReference?: string
  /** Set once the side was handed to its provider; a side is never submitted twice. */
  submittedAtUs?: number
  /** The customer must decide on the hosted checkout page before anything moves. */
  awaitingCustomer?: boolean
  /**
   * The text the customer sees on their phone (an operator's customer message): the initiation's
   * statementDescriptor, or the merchant's name cut to fit.
   */
  statementDescriptor?: string
  /**
   * A live cash-in side that succeeded before a later side stopped: the refund operation that pays
   * this customer back through their operator, and where it stands.
   */
  customerRefund?: CustomerRefund
  /** A refund side: the payment it gives back, as its operator knows it. */
  refundedPayment?: RefundedPayment
  /** An item of a payout batch: the batch it belongs to. */
  batch?: { token: string }
  /**
   * Set while the side waits in its payout batch (for approval, or for the batch worker): no
   * operator has it, nothing submits it, and it expires only once dispatched.
   */
  queuedInBatch?: boolean
  /** The merchant asked the operator to stop it (pawaPay's fail-enqueued): a failure it then reports is a cancel. */
  cancelRequested?: boolean
  /** The merchant's words on that cancel, kept in failureReason.message when the operator stops it. */
  cancelReason?: string
}

/** The refund a live multi-sided operation opened for one of its customers. */
export interface CustomerRefund {
  /** The refund operation's token. */
  token: string
  status: Status
}

/**
 * What a refund gives back, named as the refunded payment's operator knows it, so the refund can go
 * through that operator's refund API against it.
 */
export interface RefundedPayment {
  /** The refunded operation's kind and the side refunded. */
  kind: OperationKind
  role: SideRole
  operatorReference?: string
  providerReference?: string
  /** What moved on the customer's wallet when they paid. */
  transactionAmountMinor: number
}

/** The URLs a merchant gave at initiation. */
export interface OperationUrls {
  callbackUrl: string | null
  pendingUrl?: string
  succeededUrl?: string
  failedUrl?: string
  canceledUrl?: string
  errorUrl?: string
}

/** An operation as the domain reasons about it; the store gives it an id and a position. */
export interface Operation {
  id: number
  token: string
  merchantId: string
  mode: Mode
  kind: OperationKind
  /** 1, 2, 3... per merchant, mode and kind. */
  position: number
  status: Status
  merchantReference: string
  /** SHA-256 of the canonical request, to tell a retry from a reuse of the reference. */
  requestHash: string
  currency: Currency
  sides: Side[]
  urls: OperationUrls
  redirectUrl: string | null
  failure: FailureReason | null
  initiatedAtUs: number
  completedAtUs: number | null
  updatedAtUs: number
  /** The merchant's own key-value pairs, returned on the record and its callbacks. */
  metadata?: Metadata
  /** A refund's link to the operation it refunds. */
  refundOf?: { id: number; token: string }
  /** What may be refunded of it (a collect's amount), and what its live refunds claim. */
  refunds?: { refundableMinor: number; refundedMinor: number }
  /** The token of the payment link a collect was paid through. */
  paymentLink?: string
}

export type Metadata = Record<string, string>

/**
 * A deep copy, so a transition never changes the state it was given. Written out rather than
 * `structuredClone`, which serialises and parses the whole object, several times an initiation.
 * Every nested object of an operation is copied here.
 */
export function cloneOperation(operation: Operation): Operation {
  const copy: Operation = {
    ...operation,
    sides: operation.sides.map(cloneSide),
    urls: { ...operation.urls },
    failure: operation.failure && { ...operation.failure },
  }
  if (operation.metadata) copy.metadata = { ...operation.metadata }
  if (operation.refundOf) copy.refundOf = { ...operation.refundOf }
  if (operation.refunds) copy.refunds = { ...operation.refunds }
  return copy
}

function cloneSide(side: Side): Side {
  const copy: Side = { ...side, customer: { ...side.customer } }
  if (side.failure) copy.failure = { ...side.failure }
  if (side.customerRefund) copy.customerRefund = { ...side.customerRefund }
  if (side.refundedPayment) copy.refundedPayment = { ...side.refundedPayment }
  if (side.batch) copy.batch = { ...side.batch }
  return copy
}

/**
 * A refund claims its amount on the operation it refunds while it may still move money: from its
 * initiation until it ends failed, canceled or error, when the claim is released.
 */
export function refundClaimMinor(operation: Operation): number {
  if (!operation.refundOf) return 0
  // A customer refund is the only refund of its side, opened with the failure: nothing to claim.
  if (customerRefundOf(operation)) return 0
  if (operation.status !== 'pending' && operation.status !== 'succeeded') return 0
  return operation.sides[0]?.amountMinor ?? 0
}

/**
 * The side a customer refund gives back: a refund Sika opened itself when a live multi-sided
 * operation stopped after that side's money moved (no merchant can refund such a kind).
 */
export function customerRefundOf(operation: Operation): RefundedPayment | undefined {
  const refunded = operation.sides[0]?.refundedPayment
  return operation.refundOf && refunded && !refundKindFor(refunded.kind) ? refunded : undefined
}

export function isCashIn(side: Side): boolean {
  return sideKinds[side.kind].direction === 'cash-in'
}

/**
 * The operation's status follows from its sides, taken in order. It is the first side's status
 * until that side succeeds, then pending while a later side is in flight, succeeded when all
 * did, and `failed` when a later side stops after an earlier one moved money: that customer is
 * refunded, so money did move and `error` ("no money moved") would be untrue.
 */
export function compositeStatus(sides: readonly Side[]): Status {
  const [first, ...later] = sides
  if (!first) throw new Error('an operation has at least one side')
  if (first.status !== 'succeeded') return first.status
  for (const side of later) {
    if (side.status === 'pending') return 'pending'
    if (side.status !== 'succeeded') return 'failed'
  }
  return 'succeeded'
}

/**
 * The reason the operation stopped: the side that stopped it, and what became of the customers
 * whose money had already moved (refunded at once in the sandbox; in live mode, by a refund
 * operation through their operator, said to be under way until it ends).
 */
export function failureOf(sides: readonly Side[], status: Status): FailureReason | null {
  if (status === 'pending' || status === 'succeeded') return null
  const stopped = sides.find((side) => side.status !== 'succeeded')
  if (!stopped?.failure) return null
  const refunded = sides.slice(0, sides.indexOf(stopped)).filter(isCashIn)
  if (refunded.length === 0) return stopped.failure
  const notes = refunded.map(customerRefundNote).join(' ')
  return { code: stopped.failure.code, message: `${stopped.failure.message} ${notes}` }
}

function customerRefundNote(side: Side): string {
  const refund = side.customerRefund
  if (!refund) return `The ${side.role} customer was refunded.`
  if (refund.status === 'pending')
    return `The ${side.role} customer's refund is under way (refund ${refund.token}).`
  if (refund.status === 'succeeded') return `The ${side.role} customer was refunded (refund ${refund.token}).`
  const owed = `${toMajorUnits(side.cashAmountMinor, side.currency)} ${side.currency}`
  return `The refund to the ${side.role} customer ${refund.status === 'error' ? 'could not be made' : 'failed'} (refund ${refund.token}, ${refund.status}): ${owed} is owed to them.`
}

/** The side to hand to its provider next: one at a time, each only after the ones before it succeeded. */
export function sideAwaitingSubmission(sides: readonly Side[]): Side | undefined {
  for (const side of sides) {
    // A side queued in a payout batch goes to its operator only once the batch worker dispatches it.
    if (side.queuedInBatch) return undefined
    if (side.status === 'pending' && side.submittedAtUs === undefined) return side
    if (side.status !== 'succeeded') return undefined
  }
  return undefined
}
