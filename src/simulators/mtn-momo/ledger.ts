import { randomInt } from 'node:crypto'
import type { SimulatorOutcome } from '../test-numbers.ts'
import type { ReasonFormat } from './config.ts'
import { reasonObject } from './errors.ts'
import { type MomoStatus, type OperationSpec, requestToPay } from './operations.ts'

export interface Party {
  readonly partyIdType: string
  readonly partyId: string
}

/** One request to pay, transfer or refund, as the wallet platform holds it. */
export interface MomoTransaction {
  readonly spec: OperationSpec
  readonly referenceId: string
  /** As MoMo echoes it: the decimal without trailing zeros ("5.0" is answered as "5"). */
  readonly amount: string
  readonly currency: string
  readonly externalId: string | undefined
  readonly party: Party
  readonly payerMessage: string | undefined
  readonly payeeNote: string | undefined
  readonly referenceIdToRefund: string | undefined
  readonly callbackUrl: string | undefined
  readonly outcome: SimulatorOutcome
  readonly createdAtMs: number
  status: MomoStatus
  reason: string | undefined
  financialTransactionId: string | undefined
  settledAtMs: number | undefined
  callbackSent: boolean
}

export interface FinalStatus {
  readonly status: 'SUCCESSFUL' | 'FAILED'
  readonly reason?: string
}

/** The declines of the shared test numbers (src/simulators/test-numbers.ts), as MoMo names them. */
const declines: Partial<Record<SimulatorOutcome, string>> = {
  '101': 'NOT_ENOUGH_FUNDS',
  '102': 'APPROVAL_REJECTED',
  '103': 'EXPIRED',
}

/** Every transaction, keyed per resource kind, as reference ids are unique per kind. */
export class Ledger {
  private readonly byKey = new Map<string, MomoTransaction>()
  private readonly inOrder: MomoTransaction[] = []

  private static key(resource: string, referenceId: string): string {
    return `${resource}:${referenceId.toLowerCase()}`
  }

  get(resource: string, referenceId: string): MomoTransaction | undefined {
    return this.byKey.get(Ledger.key(resource, referenceId))
  }

  add(transaction: MomoTransaction): void {
    this.byKey.set(Ledger.key(transaction.spec.resource, transaction.referenceId), transaction)
    this.inOrder.push(transaction)
  }

  all(): readonly MomoTransaction[] {
    return this.inOrder
  }

  /** The transactions with this reference id, whatever their kind (for the control paths). */
  withReference(referenceId: string): MomoTransaction[] {
    const wanted = referenceId.toLowerCase()
    return this.inOrder.filter((transaction) => transaction.referenceId.toLowerCase() === wanted)
  }

  /**
   * How a transaction ends when its settle delay is over, or undefined while it stays PENDING. A
   * refund of a payment that has not succeeded is refused, whatever the number.
   */
  finalStatusOf(transaction: MomoTransaction): FinalStatus | undefined {
    if (transaction.outcome === '104') return undefined
    if (transaction.referenceIdToRefund !== undefined) {
      const refunded = this.get(requestToPay.resource, transaction.referenceIdToRefund)
      if (refunded?.status !== 'SUCCESSFUL') return { status: 'FAILED', reason: 'NOT_ALLOWED' }
    }
    if (transaction.outcome === '108') {
      return {
        status: 'FAILED',
        reason: transaction.spec.bodyParty === 'payer' ? 'PAYER_NOT_FOUND' : 'PAYEE_NOT_FOUND',
      }
    }
    const decline = declines[transaction.outcome]
    return decline === undefined ? { status: 'SUCCESSFUL' } : { status: 'FAILED', reason: decline }
  }
}

/** Moves a transaction to its final status; MoMo gives a financial transaction id to what succeeded. */
export function applyStatus(
  transaction: MomoTransaction,
  final: FinalStatus | { status: MomoStatus; reason?: string },
) {
  transaction.status = final.status
  transaction.reason = final.status === 'FAILED' ? (final.reason ?? 'INTERNAL_PROCESSING_ERROR') : undefined
  if (final.status === 'SUCCESSFUL' && transaction.financialTransactionId === undefined) {
    transaction.financialTransactionId = String(randomInt(100_000_000, 2_000_000_000))
  }
  transaction.settledAtMs = final.status === 'PENDING' ? undefined : Date.now()
}

/**
 * The status answer of GET /{resource}/{referenceId}, which is also the callback's body: the fields
 * MoMo returns in the order it returns them, absent fields left out rather than null.
 */
export function statusView(
  transaction: MomoTransaction,
  reasonFormat: ReasonFormat,
): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    financialTransactionId: transaction.financialTransactionId,
    externalId: transaction.externalId,
    amount: transaction.amount,
    currency: transaction.currency,
    [transaction.spec.statusParty]: {
      partyIdType: transaction.party.partyIdType,
      partyId: transaction.party.partyId,
    },
    payerMessage: transaction.payerMessage,
    payeeNote: transaction.payeeNote,
    status: transaction.status,
    reason:
      transaction.reason === undefined
        ? undefined
        : reasonFormat === 'object'
          ? reasonObject(transaction.reason)
          : transaction.reason,
  }
  const view: Record<string, unknown> = {}
  for (const name of transaction.spec.fieldOrder) {
    if (fields[name] !== undefined) view[name] = fields[name]
  }
  return view
}
