/**
 * The three payment operations of pawaPay's v2 API, described by data (paths, id field, party
 * field, accepted body fields) so the handlers never branch on a name.
 */

export type OperationKind = 'deposit' | 'payout' | 'refund'

export interface OperationSpec {
  readonly kind: OperationKind
  /** POST here initiates; GET {path}/{id} checks status; POST {path}/resend-callback/{id} resends. */
  readonly path: string
  /** The id the merchant generates, e.g. `depositId`. */
  readonly idField: 'depositId' | 'payoutId' | 'refundId'
  /** Who the status shows: the payer of a deposit, the recipient of a payout or refund. */
  readonly partyField: 'payer' | 'recipient'
  /** Whether the body names the party (a refund's recipient is the refunded deposit's payer). */
  readonly partyInBody: boolean
  /** The operation type of active configuration and of the callback URL settings. */
  readonly operationType: 'DEPOSIT' | 'PAYOUT' | 'REFUND'
  /** "Deposit", as pawaPay's failure messages name it. */
  readonly label: string
  /** Every top-level field the initiation body may carry; others are UNSUPPORTED_PARAMETER. */
  readonly allowedFields: readonly string[]
  /**
   * Whether pawaPay may hold it ENQUEUED while its provider is delayed, and takes
   * POST {path}/fail-enqueued/{id} and POST {path}/bulk (payouts only, SOURCES.md "Bulk payouts").
   */
  readonly queued: boolean
}

const commonFields = ['amount', 'currency', 'clientReferenceId', 'customerMessage', 'metadata'] as const

export const deposit: OperationSpec = {
  kind: 'deposit',
  path: '/v2/deposits',
  idField: 'depositId',
  partyField: 'payer',
  partyInBody: true,
  operationType: 'DEPOSIT',
  label: 'Deposit',
  allowedFields: [
    'depositId',
    'payer',
    'preAuthorisationCode',
    'successfulUrl',
    'failedUrl',
    ...commonFields,
  ],
  queued: false,
}

export const payout: OperationSpec = {
  kind: 'payout',
  path: '/v2/payouts',
  idField: 'payoutId',
  partyField: 'recipient',
  partyInBody: true,
  operationType: 'PAYOUT',
  label: 'Payout',
  allowedFields: ['payoutId', 'recipient', ...commonFields],
  queued: true,
}

export const refund: OperationSpec = {
  kind: 'refund',
  path: '/v2/refunds',
  idField: 'refundId',
  partyField: 'recipient',
  partyInBody: false,
  operationType: 'REFUND',
  label: 'Refund',
  allowedFields: ['refundId', 'depositId', ...commonFields],
  queued: false,
}

export const operations: readonly OperationSpec[] = [deposit, payout, refund]
