import { outcomeForPhoneNumber, type SimulatorOutcome } from '../test-numbers.ts'
import {
  type CheckoutSession,
  endSession,
  type PaymentError,
  sessionView,
  type ViewContext,
} from './checkout-store.ts'
import { transactionId } from './ids.ts'
import type { SimulatorState } from './state.ts'
import { bookSession } from './wallet.ts'

/**
 * What happens to a checkout session when its payer acts: in the Wave app in real life, on the
 * simulator's hosted page, by itself for a restricted session, or from the control paths.
 */

/** The `last_payment_error` codes of the Checkout API, with the docs' descriptions as messages. */
export const paymentErrors = {
  insufficientFunds: { code: 'insufficient-funds', message: 'The payer does not have enough funds to pay.' },
  payerMobileMismatch: {
    code: 'payer-mobile-mismatch',
    message: 'The payer tried to pay with a mobile number that does not match restrict_payer_mobile.',
  },
  paymentFailure: { code: 'payment-failure', message: 'The payment failed.' },
} as const satisfies Record<string, PaymentError>

/** What an attempt came to, so the hosted page knows where to send the browser. */
export type AttemptResult = 'succeeded' | 'failed' | 'ended' | 'pending' | 'not-open'

export function viewContext(state: SimulatorState): ViewContext {
  return { baseUrl: state.url, businessName: state.config.businessName }
}

function notify(state: SimulatorState, type: string, session: CheckoutSession): void {
  state.webhooks.send(type, sessionView(session, viewContext(state)))
}

/** The payer paid: `complete`, `succeeded`, a transaction id, and `checkout.session.completed`. */
export function completePayment(
  state: SimulatorState,
  session: CheckoutSession,
  payerMobile: string | undefined,
  webhook = true,
): void {
  session.checkoutStatus = 'complete'
  session.paymentStatus = 'succeeded'
  session.transactionId = transactionId()
  session.completedAtMs = Date.now()
  session.payerMobile = payerMobile
  bookSession(state, session)
  if (webhook) notify(state, 'checkout.session.completed', session)
}

/**
 * A payment attempt failed: the session stays open for another try, with the reason in
 * `last_payment_error`, and `checkout.session.payment_failed` is sent.
 */
export function failPayment(
  state: SimulatorState,
  session: CheckoutSession,
  error: PaymentError,
  payerMobile: string | undefined,
  webhook = true,
): void {
  session.lastPaymentError = error
  session.payerMobile = payerMobile
  if (webhook) notify(state, 'checkout.session.payment_failed', session)
}

/** The outcome of a payer's number; no number (a person clicked Pay) is a success. */
function outcomeOfPayer(mobile: string | undefined): SimulatorOutcome {
  return mobile === undefined || mobile === '' ? 'succeeds' : outcomeForPhoneNumber(mobile)
}

/**
 * The payer with this number tries to pay an open session. The test number decides: 101 and 108
 * fail the attempt, 102 (refused) and 103 (never answers) end the session unpaid, 104 leaves it
 * pending, 105 pays without a webhook, any other pays (106 and 107 only change API answers).
 */
export function attemptPayment(
  state: SimulatorState,
  session: CheckoutSession,
  mobile?: string,
): AttemptResult {
  if (state.checkout.get(session.id)?.checkoutStatus !== 'open') return 'not-open'
  const restricted = session.request.restrictPayerMobile
  const payer = mobile === undefined || mobile === '' ? restricted : mobile
  if (restricted !== undefined && payer !== restricted) {
    failPayment(state, session, paymentErrors.payerMobileMismatch, payer)
    return 'failed'
  }
  const outcome = outcomeOfPayer(payer)
  if (outcome === '101' || outcome === '108') {
    const error = outcome === '101' ? paymentErrors.insufficientFunds : paymentErrors.paymentFailure
    failPayment(state, session, error, payer)
    return 'failed'
  }
  if (outcome === '102' || outcome === '103') {
    endSession(session)
    return 'ended'
  }
  if (outcome === '104') return 'pending'
  completePayment(state, session, payer, outcome !== '105')
  return 'succeeded'
}

/** The payer declines on the hosted page: the session ends unpaid, with no webhook (see SOURCES.md). */
export function declinePayment(state: SimulatorState, session: CheckoutSession): AttemptResult {
  if (state.checkout.get(session.id)?.checkoutStatus !== 'open') return 'not-open'
  endSession(session)
  return 'ended'
}

/**
 * A session restricted to a test number plays its payer by itself after the settle delay, so an
 * unattended test sees every path. 103 needs nothing: it was created to expire at that moment.
 */
export function playRestrictedPayer(state: SimulatorState, session: CheckoutSession): void {
  const outcome = session.outcome
  if (!state.config.autoPay || outcome === undefined || outcome === '103' || outcome === '104') return
  state.timers.after(state.config.settleDelayMs, () => {
    attemptPayment(state, session)
  })
}
