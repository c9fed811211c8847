import type { Direction, Mode } from '../domain/kinds.ts'
import type { Currency } from '../domain/money.ts'
import type { FailureReason } from '../domain/status.ts'

/** What an adapter is asked to do: move one side's money with one customer's wallet. */
export interface ProviderRequest {
  /** Our token, sent to the operator as its idempotency key. */
  token: string
  role: 'main' | 'from' | 'to'
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
}

/**
 * An adapter's answer, already mapped to our statuses. An operator status the adapter does
 * not know must map to `pending`, never to `succeeded`.
 */
export type ProviderOutcome =
  | { status: 'succeeded'; providerReference?: string }
  | { status: 'failed' | 'canceled' | 'error'; reason: FailureReason; providerReference?: string }
  | {
      status: 'pending'
      providerReference?: string
      /** The customer must act on our hosted checkout page. */
      needsCustomerAction?: boolean
      /** Ask the operator again after this long; without it we wait for a notification or expiry. */
      pollAfterMs?: number
    }

/** An operator's notification, verified and translated: which side, and what happened to it. */
export interface ProviderNotification {
  token: string
  role: ProviderRequest['role']
  outcome: ProviderOutcome
}

export interface NotificationInput {
  headers: Record<string, string | string[] | undefined>
  rawBody: string
}

/**
 * One operator behind one interface: a stateless translator between our requests and the
 * operator's wire format, one method per flow. Adapters import this file and the domain,
 * never the app: the lifecycle never learns which operator it talks to.
 */
export interface ProviderAdapter {
  readonly name: string
  initiate(request: ProviderRequest, nowUs: number): Promise<ProviderOutcome>
  pollStatus(request: ProviderRequest, nowUs: number): Promise<ProviderOutcome>
  /** Undefined when the notification is not authentic or not understood: nothing changes. */
  parseNotification(input: NotificationInput): Promise<ProviderNotification | undefined>
}
