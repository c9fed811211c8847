import type { SimulatorOutcome } from '../test-numbers.ts'
import type { Payout, PayoutError, PayoutStatus } from './payout-store.ts'
import type { SimulatorState } from './state.ts'
import { bookPayout } from './wallet.ts'

/**
 * How a payout is executed. The Payout API is synchronous ("Wave will attempt to execute the
 * transaction immediately and return the result in the response"), so by default the POST already
 * carries `succeeded` or `failed`; a payout that takes time shows `processing` until it settles.
 */

export interface FinalPayoutStatus {
  readonly status: PayoutStatus
  readonly payoutError?: PayoutError
}

/** The payout errors of the shared test numbers, as the docs name and word them. */
const declines: Partial<Record<SimulatorOutcome, PayoutError>> = {
  '101': { error_code: 'insufficient-funds', error_message: 'Insufficient funds in wallet.' },
  '102': {
    error_code: 'recipient-limit-exceeded',
    error_message: 'The recipient has reached their monthly limit.',
  },
  '103': {
    error_code: 'internal-server-error',
    error_message: 'The payout could not be executed in time and was abandoned.',
  },
  '108': {
    error_code: 'recipient-account-inactive',
    error_message: 'The recipient has no active Wave account.',
  },
}

/** How a payout ends; undefined for 104, which stays `processing` for ever. */
export function finalStatusOf(outcome: SimulatorOutcome): FinalPayoutStatus | undefined {
  if (outcome === '104') return undefined
  const payoutError = declines[outcome]
  return payoutError === undefined ? { status: 'succeeded' } : { status: 'failed', payoutError }
}

export function applyPayoutStatus(payout: Payout, final: FinalPayoutStatus) {
  payout.status = final.status
  payout.payoutError = final.status === 'failed' ? (final.payoutError ?? declines['103']) : undefined
  if (final.status === 'reversed') payout.reversedAtMs ??= Date.now()
  else payout.settledAtMs = final.status === 'processing' ? undefined : Date.now()
}

/**
 * Executes a new payout: at once when synchronous, except 103 (it takes the settle delay to give
 * up) and 104 (never settles); after the settle delay when asynchronous.
 */
export function executePayout(state: SimulatorState, payout: Payout) {
  const final = finalStatusOf(payout.outcome)
  if (final === undefined) return
  const immediate = state.config.payoutSettlement === 'synchronous' && payout.outcome !== '103'
  const settle = () => {
    applyPayoutStatus(payout, final)
    bookPayout(state, payout)
  }
  if (immediate) return settle()
  state.timers.after(state.config.settleDelayMs, () => {
    if (payout.status === 'processing') settle()
  })
}
