import type { Direction, Mode, SideRole } from '../domain/kinds.ts'
import type { Currency } from '../domain/money.ts'
import type {
  OperatorBalance,
  OperatorLine,
  StatementAccount,
  StatementWindow,
  UnreadableLine,
} from '../domain/operator-lines.ts'
import type { SideOutcome } from '../domain/transitions.ts'

/** An adapter's answer, already mapped to our statuses. An operator status the adapter does not know maps to `pending`, never to `succeeded`. */
export type ProviderOutcome = SideOutcome

/** What an adapter is asked to do: move one side's money with one customer's wallet. */
export interface ProviderRequest {
  /** Our token, sent to the operator as its idempotency key. */
  token: string
  role: SideRole
  mode: Mode
  direction: Direction
  channel: string
  country: string
  currency: Currency
  /** What moves on the customer's wallet, in minor units. */
  amountMinor: number
  phoneNumber: string
  /** When the side was first handed to the operator (microseconds), for polls. */
  submittedAtUs?: number
  providerReference?: string
  /** The reference this side is known by to its operator (MTN's X-Reference-Id), fixed before the first call. */
  operatorReference?: string
  /** The customer's full name as the merchant gave it; absent when it gave none. */
  customerName?: string
  /** The text the customer sees on their phone: 4 to 22 letters, digits or spaces; absent when none fits. */
  statementDescriptor?: string
  /** A refund: the payment it gives back, to go through the operator's own refund API where there is one. */
  refund?: RefundedPaymentRequest
}

/** The payment a refund gives back, as its operator knows it. */
export interface RefundedPaymentRequest {
  /** What Sika submitted it under (pawaPay's depositId, MTN's X-Reference-Id). */
  operatorReference?: string
  /** The operator's own id of it (Wave's checkout session id). */
  providerReference?: string
  /** What the customer paid, in minor units: a refund of all of it is a whole refund. */
  paidAmountMinor: number
}

/**
 * An operator's notification, verified and translated: which side, and what happened to it. The
 * side is named by our token and role, or only by its operator reference (pawaPay's callbacks
 * carry just their depositId).
 */
export interface ProviderNotification {
  side: { token: string; role: SideRole } | { operatorReference: string }
  outcome: ProviderOutcome
  /** An unsigned notification is only a hint: the side's status is asked of the operator before anything settles. */
  confirm?: boolean
}

export interface NotificationInput {
  headers: Record<string, string | string[] | undefined>
  rawBody: string
  /** The query of the notification URL (MTN: the token and role Sika put on X-Callback-Url). */
  query?: URLSearchParams
}

/**
 * One operator behind one interface: a stateless translator between our requests and the
 * operator's wire format, one method per flow. Adapters import this file and the domain,
 * never the app: the lifecycle never learns which operator it talks to.
 */
export interface ProviderAdapter {
  readonly name: string
  /** The ways this adapter can move money; one without cash-out (Orange Money Web Payment) cannot pay out. */
  readonly directions: readonly Direction[]
  initiate(request: ProviderRequest, nowUs: number): Promise<ProviderOutcome>
  pollStatus(request: ProviderRequest, nowUs: number): Promise<ProviderOutcome>
  /** Undefined when the notification is not authentic or not understood: nothing changes. */
  parseNotification(input: NotificationInput): Promise<ProviderNotification | undefined>
  /**
   * Only for a provider that decides without I/O (the sandbox): the same answer as `initiate`,
   * at once, so the initiation's own transaction can write it.
   */
  answerAtOnce?(request: ProviderRequest, nowUs: number): ProviderOutcome
  /**
   * Several cash-outs in one request to the operator (pawaPay's bulk payouts): one outcome per
   * request, in the order given. Absent when the operator takes payments one at a time.
   */
  initiateMany?(requests: readonly ProviderRequest[], nowUs: number): Promise<ProviderOutcome[]>
  /** The most requests one `initiateMany` call may carry (pawaPay: 20). */
  readonly largestBulk?: number
  /**
   * Asks the operator to stop a cash-out it holds but has not sent on yet (pawaPay's
   * fail-enqueued). Absent when the operator offers no such thing.
   */
  cancelQueued?(request: ProviderRequest, nowUs: number): Promise<QueuedCancelAnswer>
  /**
   * The operator's balance API, read now: one entry per account and currency of the connection
   * (MTN MoMo's two products, pawaPay's wallet of each country, Wave's wallet). A plain call:
   * caching it is the caller's. Absent when the operator publishes none (Orange Money Web Payment).
   */
  balance?(): Promise<OperatorReading<OperatorBalance[]>>
  /**
   * The operator's statement of a window, normalized: its lines, each account's opening and
   * closing balance when the operator gives them, and the documents as received. An operator that
   * prepares its statement asynchronously (pawaPay) is waited for, at most `waitMs`. Absent when
   * the operator publishes no statement API (MTN MoMo, Orange Money Web Payment).
   */
  statement?(request: StatementRequest): Promise<OperatorReading<OperatorStatement>>
}

/**
 * What an operator read gave: its value, or why there is none, in a sentence for a person (an
 * operator's refusal, a timeout, a statement that never completed). A reason never quotes a
 * credential.
 */
export type OperatorReading<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly reason: string }

export interface StatementRequest {
  readonly window: StatementWindow
  /** How long an asynchronous statement is waited for before the read fails (default 10 minutes). */
  readonly waitMs?: number
  /** Stops the waiting early (a shutdown): the read then fails, saying so. */
  readonly signal?: AbortSignal
}

/** One document of a statement, byte for byte as the operator sent it: evidence, kept with its hash. */
export interface StatementFile {
  /** A name for people: `<statementId>.csv.gz`, `transactions-2026-11-21-page-3.json`. */
  readonly name: string
  readonly contentType: string
  readonly bytes: Uint8Array
}

/** An operator's statement of one window, in Sika's terms (src/domain/operator-lines.ts). */
export interface OperatorStatement {
  readonly window: StatementWindow
  /** Every account of the connection the statement covers, with its opening and closing balances when known. */
  readonly accounts: readonly StatementAccount[]
  /** The lines of the window, oldest first. */
  readonly lines: readonly OperatorLine[]
  readonly unreadableLines: readonly UnreadableLine[]
  readonly files: readonly StatementFile[]
}

/**
 * The operator's answer to a cancel: `accepted` means it will end the payment (its status then
 * says so, and only that settles the side); `refused` means it has gone on already (`reason` says
 * what the operator said); `unknown` means no answer came (a timeout, a 5xx).
 */
export type QueuedCancelAnswer =
  | { answer: 'accepted' }
  | { answer: 'refused'; reason: string }
  | { answer: 'unknown' }
