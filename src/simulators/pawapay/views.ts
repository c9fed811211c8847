import { displayAmount } from './amounts.ts'
import type { SimulatorConfig } from './config.ts'
import type { Payment } from './ledger.ts'

/**
 * The payment as check-status answers it in `data`, fields in the order of pawaPay's examples;
 * absent fields are left out, as in the examples of an ACCEPTED deposit (no providerTransactionId,
 * no failureReason).
 */
export function statusData(payment: Payment): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    [payment.spec.idField]: payment.id,
    status: payment.status,
    amount: displayAmount(payment.amount),
    currency: payment.currency,
    country: payment.country,
    [payment.spec.partyField]: { type: 'MMO', accountDetails: { ...payment.accountDetails } },
    customerMessage: payment.customerMessage,
    clientReferenceId: payment.clientReferenceId,
    created: payment.created,
    providerTransactionId: payment.providerTransactionId,
    failureReason: payment.failureReason === undefined ? undefined : { ...payment.failureReason },
    metadata: payment.metadata === undefined ? undefined : { ...payment.metadata },
  }
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined))
}

/**
 * The callback's body: the same object, without `clientReferenceId`, which pawaPay's callback
 * schemas do not list (SOURCES.md, "Callbacks"), unless the option puts it back.
 */
export function callbackBody(payment: Payment, config: SimulatorConfig): Record<string, unknown> {
  const { clientReferenceId, ...rest } = statusData(payment)
  return config.callbackClientReferenceId && clientReferenceId !== undefined ? statusData(payment) : rest
}
