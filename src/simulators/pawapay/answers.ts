import type { ServerResponse } from 'node:http'
import type { Refusal } from './errors.ts'
import { sendJson } from './http-io.ts'
import type { Payment } from './ledger.ts'
import type { OperationSpec } from './operations.ts'

/** A failure outside an initiation (status checks, toolkit): `{failureReason}` alone. */
export function refuse(response: ServerResponse, refusal: Refusal): void {
  sendJson(response, refusal.status, { failureReason: { ...refusal.reason } })
}

/**
 * A failed initiation, whatever its HTTP status: `{depositId, status: "REJECTED", failureReason}`,
 * the id echoed when the body had one (API reference examples for 200, 400 and 401).
 */
export function rejectInitiation(
  response: ServerResponse,
  spec: OperationSpec,
  id: string | undefined,
  refusal: Refusal,
): void {
  const body: Record<string, unknown> = id === undefined ? {} : { [spec.idField]: id }
  sendJson(response, refusal.status, { ...body, status: 'REJECTED', failureReason: { ...refusal.reason } })
}

/** ACCEPTED and DUPLICATE_IGNORED carry the id and when pawaPay first received the payment. */
export function initiationAnswer(payment: Payment, status: 'ACCEPTED' | 'DUPLICATE_IGNORED') {
  return { [payment.spec.idField]: payment.id, status, created: payment.created }
}

/** The 500 of an initiation: the id and an UNKNOWN_ERROR reason, without a status (API reference). */
export function unknownErrorAnswer(payment: Payment, refusal: Refusal) {
  return { [payment.spec.idField]: payment.id, failureReason: { ...refusal.reason } }
}
