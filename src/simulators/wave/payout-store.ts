import type { SimulatorOutcome } from '../test-numbers.ts'
import { waveTimestamp } from './ids.ts'
import type { PayoutRequest } from './validation.ts'

export type PayoutStatus = 'processing' | 'succeeded' | 'failed' | 'reversed'

/** `payout_error`: set only when the payout failed while it was executed. */
export interface PayoutError {
  readonly error_code: string
  readonly error_message: string
}

export interface Payout {
  readonly id: string
  readonly request: PayoutRequest
  readonly fee: string
  readonly outcome: SimulatorOutcome
  /** The `timestamp`: when the request was recorded, not when it was executed. */
  readonly createdAtMs: number
  readonly idempotencyKey: string
  status: PayoutStatus
  payoutError: PayoutError | undefined
  settledAtMs: number | undefined
  reversedAtMs: number | undefined
}

interface IdempotencyRecord {
  readonly payout: Payout
  /** The request body, canonical, to tell a retry from another request reusing the key. */
  readonly fingerprint: string
}

/** JSON with its object keys sorted, so the same body sent with its keys in another order matches. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1))
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/** Every payout of the wallet, oldest first, and the idempotency keys that created them. */
export class PayoutStore {
  private readonly byId = new Map<string, Payout>()
  private readonly byKey = new Map<string, IdempotencyRecord>()
  private readonly inOrder: Payout[] = []

  add(payout: Payout, fingerprint: string): void {
    this.byId.set(payout.id, payout)
    this.byKey.set(payout.idempotencyKey, { payout, fingerprint })
    this.inOrder.push(payout)
  }

  get(id: string): Payout | undefined {
    return this.byId.get(id)
  }

  byIdempotencyKey(key: string): IdempotencyRecord | undefined {
    return this.byKey.get(key)
  }

  byClientReference(clientReference: string): Payout[] {
    return this.inOrder.filter((payout) => payout.request.clientReference === clientReference)
  }

  all(): Payout[] {
    return [...this.inOrder]
  }
}

/**
 * The payout object, its fields in the order of the docs' examples: the fields submitted, plus
 * `id`, `fee`, `status`, `payout_error` (when failed) and `timestamp`; absent fields left out.
 */
export function payoutView(payout: Payout): Record<string, unknown> {
  const { request } = payout
  const view: Record<string, unknown> = {
    id: payout.id,
    currency: request.currency,
    receive_amount: request.receiveAmount,
    fee: payout.fee,
    mobile: request.mobile,
    name: request.name,
    national_id: request.nationalId,
    client_reference: request.clientReference,
    payment_reason: request.paymentReason,
    status: payout.status,
    payout_error: payout.status === 'failed' ? payout.payoutError : undefined,
    timestamp: waveTimestamp(payout.createdAtMs),
    aggregated_merchant_id: request.aggregatedMerchantId,
  }
  for (const [name, value] of Object.entries(view)) if (value === undefined) delete view[name]
  return view
}
