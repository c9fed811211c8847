import type { Payment } from './ledger.ts'

/** One POST /v2/payouts/bulk as it arrived: how many payouts it carried. */
export interface BulkReceipt {
  readonly size: number
  readonly receivedAtMs: number
}

/** How often one payment's id was answered ACCEPTED and DUPLICATE_IGNORED, over every initiation path. */
export interface Acceptance {
  readonly operation: string
  readonly id: string
  readonly clientReferenceId: string | undefined
  accepted: number
  duplicatesIgnored: number
}

/**
 * What the simulator counts for tests (not part of pawaPay's API): the sizes of the bulk requests
 * it received, and each id's acceptances, so a test can prove no bulk carried more than pawaPay's
 * limit and no payment was accepted, so paid, twice.
 */
export class Receipts {
  readonly bulks: BulkReceipt[] = []
  private readonly byKey = new Map<string, Acceptance>()

  bulk(size: number): void {
    this.bulks.push({ size, receivedAtMs: Date.now() })
  }

  answered(payment: Payment, status: 'ACCEPTED' | 'DUPLICATE_IGNORED'): void {
    const key = `${payment.spec.kind}:${payment.id.toLowerCase()}`
    const known = this.byKey.get(key) ?? {
      operation: payment.spec.kind,
      id: payment.id,
      clientReferenceId: payment.clientReferenceId,
      accepted: 0,
      duplicatesIgnored: 0,
    }
    if (status === 'ACCEPTED') known.accepted += 1
    else known.duplicatesIgnored += 1
    this.byKey.set(key, known)
  }

  acceptances(): Acceptance[] {
    return [...this.byKey.values()].map((entry) => ({ ...entry }))
  }
}
