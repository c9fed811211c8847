import type { Side } from '../../domain/operation.ts'
import type { StatusCheckClaim } from '../../store/repositories/status-check-marks.ts'
import type { AppContext } from '../context.ts'

/** CONTRACT.md, Limits: a live side's status is asked of its operator at most once a second across the deployment. */
export const statusCheckIntervalMs = 1000
const statusCheckIntervalUs = statusCheckIntervalMs * 1000

/**
 * Takes the side's turn to be asked of its operator, or says when the check holding it began. The
 * turn is kept on the side's own row (its operator reference's), so every instance, and every
 * reason to ask (an operator's notification, a customer's return, Sika's own polls), shares one
 * budget: one check a second, whatever asks. A side with no operator reference (the sandbox's)
 * is asked of no operator and always has its turn, without a write.
 */
export function takeStatusCheck(context: AppContext, side: Side): Promise<StatusCheckClaim> {
  if (side.operatorReference === undefined) return Promise.resolve({ claimed: true })
  const nowUs = context.clock.nowUs()
  return context.store.statusCheckMarks.claim(side.operatorReference, nowUs, nowUs - statusCheckIntervalUs)
}

/** When the side may be asked again, after a check that began at `checkedAtUs`. */
export const nextTurnAtUs = (checkedAtUs: number) => checkedAtUs + statusCheckIntervalUs

/** How long to wait, from now, for the next turn (at least a millisecond, at most an interval). */
export function msUntilNextTurn(context: AppContext, checkedAtUs: number): number {
  const waitMs = Math.ceil((nextTurnAtUs(checkedAtUs) - context.clock.nowUs()) / 1000)
  return Math.min(statusCheckIntervalMs, Math.max(1, waitMs))
}
