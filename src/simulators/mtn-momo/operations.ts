/**
 * The asynchronous operations of the MoMo Open API this simulator publishes, each described by
 * data (its paths, product, party and callback method) so the handlers never branch on a name.
 */

export type ProductName = 'collection' | 'disbursement'

export type PartyRole = 'payer' | 'payee'

export type MomoStatus = 'PENDING' | 'SUCCESSFUL' | 'FAILED'

export interface OperationSpec {
  /** The POST that creates the resource, e.g. /collection/v1_0/requesttopay. */
  readonly createPath: string
  /** The GET path before the reference id; refund V1 and V2 share /disbursement/v1_0/refund/. */
  readonly statusPrefix: string
  readonly product: ProductName
  /** The party the body names (none for a refund, whose payee is the refunded payment's payer). */
  readonly bodyParty: PartyRole | undefined
  /** The party the status shows. */
  readonly statusParty: PartyRole
  readonly callbackMethod: 'PUT' | 'POST'
  /** Reference ids are unique per resource kind: the key of its store. */
  readonly resource: string
  /** The order of the fields in the status answer, as MoMo returns them. */
  readonly fieldOrder: readonly string[]
}

const payerFirstOrder = [
  'financialTransactionId',
  'externalId',
  'amount',
  'currency',
  'payer',
  'payee',
  'payerMessage',
  'payeeNote',
  'status',
  'reason',
] as const

const amountFirstOrder = [
  'amount',
  'currency',
  'financialTransactionId',
  'externalId',
  'payee',
  'payerMessage',
  'payeeNote',
  'status',
  'reason',
] as const

export const requestToPay: OperationSpec = {
  createPath: '/collection/v1_0/requesttopay',
  statusPrefix: '/collection/v1_0/requesttopay/',
  product: 'collection',
  bodyParty: 'payer',
  statusParty: 'payer',
  callbackMethod: 'PUT',
  resource: 'requesttopay',
  fieldOrder: payerFirstOrder,
}

export const transferV1: OperationSpec = {
  createPath: '/disbursement/v1_0/transfer',
  statusPrefix: '/disbursement/v1_0/transfer/',
  product: 'disbursement',
  bodyParty: 'payee',
  statusParty: 'payee',
  callbackMethod: 'POST',
  resource: 'transfer',
  fieldOrder: amountFirstOrder,
}

export const refundV1: OperationSpec = {
  createPath: '/disbursement/v1_0/refund',
  statusPrefix: '/disbursement/v1_0/refund/',
  product: 'disbursement',
  bodyParty: undefined,
  statusParty: 'payee',
  callbackMethod: 'POST',
  resource: 'refund',
  fieldOrder: payerFirstOrder,
}

export const refundV2: OperationSpec = {
  ...refundV1,
  createPath: '/disbursement/v2_0/refund',
  callbackMethod: 'PUT',
}

export const operations: readonly OperationSpec[] = [requestToPay, transferV1, refundV1, refundV2]

export const products: readonly ProductName[] = ['collection', 'disbursement']
