import type { AppContext } from '../context.ts'
import { minuteUs } from '../sign-in/tokens.ts'

/** Five failed attempts at one subject's secrets lock it for 15 minutes. */
export const attemptsBeforeLock = 5
export const lockMinutes = 15
/** An address may fail this many attempts in its 15-minute window, whichever subjects it tries. */
export const addressAttemptsPerWindow = 20
const addressWindowUs = 15 * minuteUs

/**
 * Whose secret is tried, and from where. The subject names the row its attempts count in: a
 * member's (`member:<id>`, every form that checks their password or codes), an email no member
 * has (`email:<hash>`); another kind of account names rows of its own. The address is counted
 * too when the attempt comes from someone not signed in (a sign-in's password and code): one
 * address guessing at many accounts meets its own limit. A form inside a session is bounded by
 * its subject's count alone, so members sharing an office's address never lock each other out.
 */
export interface Attempt {
  subject: string
  address?: string
}

/** What an attempt came to, in order of precedence. */
export type AttemptOutcome = 'address_throttled' | 'locked' | 'right' | 'wrong'

/**
 * Checks a secret only once an attempt is claimed for its address and its subject, each by one
 * statement that checks the limit and counts the attempt together: any number of concurrent
 * attempts, on any number of instances, gets at most the limit checked. A right secret gives its
 * claims back; a wrong one stays counted, and the one that fills the subject's count locks it.
 * A check that throws leaves its claims counted.
 */
export async function attemptSecret(
  context: AppContext,
  attempt: Attempt,
  check: () => Promise<boolean>,
): Promise<AttemptOutcome> {
  const { secretAttempts } = context.store
  const nowUs = context.clock.nowUs()
  const address = addressClaims(context, attempt.address, nowUs)
  if (!(await address.claim())) return 'address_throttled'
  if (!(await secretAttempts.claim(attempt.subject, attemptsBeforeLock, nowUs))) {
    // A locked subject's refusal checks nothing: the address is not charged for it.
    await address.giveBack()
    return 'locked'
  }
  if (await check()) {
    await secretAttempts.giveBack(attempt.subject)
    await address.giveBack()
    return 'right'
  }
  const lockedUntilUs = await secretAttempts.fail(
    attempt.subject,
    attemptsBeforeLock,
    context.clock.nowUs() + lockMinutes * minuteUs,
  )
  return lockedUntilUs !== null && lockedUntilUs > nowUs ? 'locked' : 'wrong'
}

/** The address's claim in its current window; nothing to claim for an attempt without one. */
function addressClaims(context: AppContext, address: string | undefined, nowUs: number) {
  const { secretAttempts } = context.store
  const windowStartUs = nowUs - (nowUs % addressWindowUs)
  return {
    claim: async () =>
      address === undefined ||
      (await secretAttempts.claimForAddress(address, windowStartUs, addressAttemptsPerWindow)),
    giveBack: async () => {
      if (address !== undefined) await secretAttempts.giveBackForAddress(address, windowStartUs)
    },
  }
}

/** A whole sign-in (both factors proven): the subject's count starts again. */
export function startCountAgain(context: AppContext, subject: string): Promise<void> {
  return context.store.secretAttempts.clear(subject)
}
