import type { SimulatorOutcome } from '../test-numbers.ts'
import type { AccountDetails } from './bodies.ts'
import type { FailureReason } from './errors.ts'
import type { OperationKind, OperationSpec } from './operations.ts'

/** The statuses a payment goes through (check-status `data.status`); the last two are final. */
export type PaymentStatus =
  | 'ACCEPTED'
  | 'ENQUEUED'
  | 'PROCESSING'
  | 'IN_RECONCILIATION'
  | 'COMPLETED'
  | 'FAILED'

export const paymentStatuses: readonly PaymentStatus[] = [
  'ACCEPTED',
  'ENQUEUED',
  'PROCESSING',
  'IN_RECONCILIATION',
  'COMPLETED',
  'FAILED',
]

export function isFinal(status: PaymentStatus): boolean {
  return status === 'COMPLETED' || status === 'FAILED'
}

/** One deposit, payout or refund, as pawaPay holds it once ACCEPTED. */
export interface Payment {
  readonly spec: OperationSpec
  readonly id: string
  /** As initiated (a refund without an amount takes what remains of the deposit). */
  readonly amount: string
  readonly currency: string
  /** ISO 3166-1 alpha-3 of the provider. */
  readonly country: string
  readonly accountDetails: AccountDetails
  readonly customerMessage: string | undefined
  readonly clientReferenceId: string | undefined
  readonly metadata: Record<string, unknown> | undefined
  /** The deposit a refund refunds. */
  readonly depositId: string | undefined
  readonly outcome: SimulatorOutcome
  readonly createdAtMs: number
  /** ISO 8601 in UTC to the second, as pawaPay writes `created` ("2020-10-19T11:17:01Z"). */
  readonly created: string
  status: PaymentStatus
  failureReason: FailureReason | undefined
  providerTransactionId: string | undefined
  settledAtMs: number | undefined
  callbackSent: boolean
}

/** Every payment, keyed per operation, as ids are unique per operation. */
export class Ledger {
  private readonly byKey = new Map<string, Payment>()
  private readonly inOrder: Payment[] = []

  private static key(kind: OperationKind, id: string): string {
    return `${kind}:${id.toLowerCase()}`
  }

  get(kind: OperationKind, id: string): Payment | undefined {
    return this.byKey.get(Ledger.key(kind, id))
  }

  add(payment: Payment): void {
    this.byKey.set(Ledger.key(payment.spec.kind, payment.id), payment)
    this.inOrder.push(payment)
  }

  all(): readonly Payment[] {
    return this.inOrder
  }

  /** The payments with this id, whatever their operation (for the control paths). */
  withId(id: string): Payment[] {
    const wanted = id.toLowerCase()
    return this.inOrder.filter((payment) => payment.id.toLowerCase() === wanted)
  }

  refundsOf(depositId: string): Payment[] {
    const wanted = depositId.toLowerCase()
    return this.inOrder.filter(
      (payment) => !payment.spec.partyInBody && payment.depositId?.toLowerCase() === wanted,
    )
  }
}
