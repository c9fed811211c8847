import type { AppContext } from '../../src/app/context.ts'
import { amountsOf } from '../../src/app/initiate.ts'
import {
  controlsFor,
  dailyPayoutLimitOf,
  refuseAboveMaxAmount,
  refusePausedPayouts,
} from '../../src/app/merchant-controls.ts'
import type { Principal } from '../../src/app/principal.ts'
import { type OperationKind, paysOut } from '../../src/domain/kinds.ts'
import type { MerchantControls } from '../../src/domain/merchant-controls.ts'
import type { Operation } from '../../src/domain/operation.ts'

/** What the platform's controls cost an initiation on the API's path, in nanoseconds of this process's time. */
export interface ControlsCost {
  collectNs: number
  payoutNs: number
}

/**
 * The checks `initiateOperation` makes of the merchant's controls, as an API request makes them:
 * read from the principal its credential gave (no store), a collect's maxAmount compared, a
 * payout's pause and daily limit looked up too. Timed in a loop after a warm-up, so the figure is
 * the optimised code's, as on a server under load.
 */
export async function measureControlsCost(iterations: number): Promise<ControlsCost> {
  const controls: MerchantControls = {
    payoutsPaused: null,
    limits: { XOF: { maxAmountMinor: 5_000_000, dailyPayoutLimitMinor: 50_000_000 } },
  }
  const principal: Principal = { merchantId: 'mch_bench', merchantName: 'Bench', mode: 'live', controls }
  // Only the sides' amounts are read; the principal's controls mean the context is never reached.
  const draft = {
    currency: 'XOF',
    sides: [{ role: 'main', currency: 'XOF', amountMinor: 12_300 }],
  } as unknown as Operation
  const context = {} as AppContext
  const checks = async (kind: OperationKind) => {
    const read = await controlsFor(context, principal)
    if (paysOut(kind)) refusePausedPayouts(read)
    refuseAboveMaxAmount(read, principal.mode, amountsOf(draft))
    if (paysOut(kind)) dailyPayoutLimitOf(read, draft.currency)
  }
  const timed = async (kind: OperationKind) => {
    for (let i = 0; i < iterations / 10; i++) await checks(kind)
    const start = process.hrtime.bigint()
    for (let i = 0; i < iterations; i++) await checks(kind)
    return Number(process.hrtime.bigint() - start) / iterations
  }
  return { collectNs: await timed('collect'), payoutNs: await timed('disbursement') }
}
