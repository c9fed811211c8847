import { toMajorUnits } from '../domain/money.ts'
import type { Operation } from '../domain/operation.ts'
import { leftToRefundMinor } from '../domain/refunds.ts'
import { ApiError } from '../errors.ts'
import type { RefusedHold } from '../store/repositories/ledger.ts'
import type { AppContext } from './context.ts'
import { answerForExisting } from './idempotency.ts'
import { dailyLimitExceeded } from './merchant-controls.ts'

/**
 * Why the write pipeline refused an opening: the transaction was rolled back and nothing was
 * written. Each is answered in one place, `answerRefusal`, from the table below.
 */
export abstract class WriteRefusal extends Error {
  abstract readonly reason: keyof typeof answers
}

/** The merchantReference already names an operation. */
export class DuplicateReference extends WriteRefusal {
  readonly reason = 'duplicate-reference'
  constructor(readonly existing: Operation) {
    super(`merchantReference ${existing.merchantReference} is already used`)
  }
}

/** The refunded operation had not succeeded, or had less left to refund than claimed. */
export class RefundRefused extends WriteRefusal {
  readonly reason = 'refund-refused'
  constructor(
    readonly refundedId: number,
    readonly claimedMinor: number,
  ) {
    super('the refund claims more than is left to refund')
  }
}

/** The available balance does not cover the cash-out side's hold. */
export class InsufficientBalance extends WriteRefusal {
  readonly reason = 'insufficient-balance'
  constructor(readonly refused: RefusedHold) {
    super('the available balance does not cover the hold')
  }
}

/** The payout would take the day's payouts (UTC) of its currency past the merchant's dailyPayoutLimit. */
export class DailyPayoutLimitExceeded extends WriteRefusal {
  readonly reason = 'daily-payout-limit'
  constructor(
    readonly currency: string,
    readonly limitMinor: number,
    /** What the day's other payouts took, this one left out. */
    readonly paidOutMinor: number,
    readonly neededMinor: number,
  ) {
    super("the payout would take the day's payouts past the daily payout limit")
  }
}

type Answer<R extends WriteRefusal> = (
  context: AppContext,
  draft: Operation,
  refusal: R,
) => Promise<Operation>

/** What each refusal answers the request that made it: an operation (a replay) or an API error. */
const answers = {
  'duplicate-reference': async (_context, draft, refusal: DuplicateReference) =>
    answerForExisting(refusal.existing, draft.requestHash),
  'insufficient-balance': async (_context, _draft, refusal: InsufficientBalance) => {
    throw insufficientBalance(refusal.refused)
  },
  'daily-payout-limit': async (_context, draft, refusal: DailyPayoutLimitExceeded) => {
    throw dailyLimitExceeded(draft.mode, refusal.currency, refusal)
  },
  // Another refund took what was left first, or the refunded operation changed: say which, as it is now.
  'refund-refused': async (context, _draft, refusal: RefundRefused) => {
    const now = await context.store.operations.findById(refusal.refundedId)
    if (!now) throw refusal
    refuseUnlessSucceeded(now)
    throw exceedsCollected(now, refusal.claimedMinor)
  },
} satisfies Record<string, Answer<never>>

export function answerRefusal(
  context: AppContext,
  draft: Operation,
  refusal: WriteRefusal,
): Promise<Operation> {
  const answer = answers[refusal.reason] as Answer<WriteRefusal>
  return answer(context, draft, refusal)
}

/** Names the cash-out side's amount, with what is available and what was needed. */
function insufficientBalance(refused: RefusedHold): ApiError {
  const { role, currency, availableMinor, neededMinor } = refused
  const major = (minor: number) => toMajorUnits(minor, currency as never)
  return new ApiError(
    'insufficient_balance',
    `The available ${currency} balance (${major(availableMinor)}) does not cover the ${major(neededMinor)} this operation needs.`,
    [
      {
        field: role === 'main' ? 'amount' : `${role}.amount`,
        code: 'insufficient_balance',
        message: `The available ${currency} balance is ${major(availableMinor)}; the cash amount needed is ${major(neededMinor)}.`,
      },
    ],
  )
}

/** Only a succeeded operation can be refunded. */
export function refuseUnlessSucceeded(refunded: Operation): void {
  if (refunded.status === 'succeeded') return
  throw new ApiError(
    'not_refundable',
    `Only a succeeded ${refunded.kind} can be refunded; ${refunded.token} is ${refunded.status}.`,
  )
}

/** More was asked than is left to refund (0 asked: nothing is left), naming what is. */
export function exceedsCollected(refunded: Operation, askedMinor: number): ApiError {
  const major = (minor: number) => toMajorUnits(minor, refunded.currency as never)
  const left = major(leftToRefundMinor(refunded))
  const asked = askedMinor > 0 ? `${major(askedMinor)} ${refunded.currency} was asked, but ` : ''
  return new ApiError(
    'refund_exceeds_collected',
    `${asked}${left} ${refunded.currency} is left to refund of ${refunded.token} (${major(refunded.refunds?.refundableMinor ?? 0)} collected, ${major(refunded.refunds?.refundedMinor ?? 0)} refunded or being refunded).`,
    undefined,
    undefined,
    { [refunded.kind]: refunded.token, leftToRefund: left },
  )
}
