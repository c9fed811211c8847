import { rejectInitiation } from './answers.ts'
import { rejections } from './errors.ts'
import { type Exchange, sendJson } from './http-io.ts'
import type { OperationSpec } from './operations.ts'
import { applyStatus, forceStatus, settleNow } from './settlement.ts'
import type { SimulatorState } from './state.ts'

/**
 * Payouts pawaPay holds ENQUEUED while their provider is delayed (docs.pawapay.io/payouts,
 * "Enqueued payouts"; PP-KIT payouts.md). The simulator holds them while `holdPayouts` is on.
 */

/**
 * POST /v2/payouts/fail-enqueued/{payoutId}: only an ENQUEUED payout can be failed. It is answered
 * `{payoutId, status: "ACCEPTED"}` and then, asynchronously, moves to FAILED with
 * MANUALLY_CANCELLED and its callback; otherwise `{payoutId, status: "REJECTED", failureReason}`
 * with NOT_FOUND or INVALID_STATE, and nothing changes (D-CANCEL, PP-KIT).
 */
export function failEnqueued(spec: OperationSpec, id: string) {
  return (state: SimulatorState, { response }: Exchange) => {
    const payment = state.ledger.get(spec.kind, id)
    if (payment === undefined)
      return rejectInitiation(response, spec, id, rejections.notFound(spec.label, id))
    if (payment.status !== 'ENQUEUED') {
      const refusal = rejections.notEnqueued(spec.label, payment.id, payment.status)
      return rejectInitiation(response, spec, payment.id, refusal)
    }
    sendJson(response, 200, { [spec.idField]: payment.id, status: 'ACCEPTED' })
    state.timers.after(0, () => {
      // A release between the answer and now sent it on to its provider: it is no longer stoppable.
      if (payment.status === 'ENQUEUED')
        forceStatus(state, payment, { status: 'FAILED', failureCode: 'MANUALLY_CANCELLED' })
    })
  }
}

/** Holds new payouts ENQUEUED, or stops holding them and sends every ENQUEUED one on to settle. */
export function holdPayouts(state: SimulatorState, hold: boolean): number {
  state.holdPayouts = hold
  if (hold) return state.ledger.all().filter((payment) => payment.status === 'ENQUEUED').length
  const released = state.ledger.all().filter((payment) => payment.status === 'ENQUEUED')
  for (const payment of released) {
    applyStatus(payment, 'PROCESSING')
    state.timers.after(state.config.settleDelayMs, () => settleNow(state, payment))
  }
  return released.length
}
