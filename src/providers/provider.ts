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
      /** The customer must act on a page of ours (the hosted checkout). */
      needsCustomerAction?: boolean
    }

/**
 * One operator behind one interface: a stateless translator between our requests and the
 * operator's wire format. Adapters import this file and the domain, never the app.
 */
export interface ProviderAdapter {
  readonly name: string
  initiate(request: ProviderRequest): Promise<ProviderOutcome>
}
