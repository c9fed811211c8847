import type { AppContext } from '../context.ts'
import { type DashboardRefusal, type DashboardRefusalCode, refusal } from '../dashboard/refusals.ts'
import { type AttemptOutcome, attemptSecret, lockMinutes } from '../mechanisms/secret-attempts.ts'
import type { AccountBook, AccountInvitationRow, AccountRow, AccountSessionRow } from './account-book.ts'
import { passwordMatches } from './passwords.ts'
import { totpStepOf } from './second-factor.ts'

// biome-ignore lint/suspicious/noExplicitAny: a book of any kind of account; each function names its own.
export type AnyAccountBook = AccountBook<any, any, any>

/** True when the code is right now and its time step is later than any this member used. */
export async function claimTotpCodeOf<A extends AccountRow>(
  context: AppContext,
  book: AccountBook<A, AccountSessionRow, AccountInvitationRow>,
  member: A,
  code: string,
): Promise<boolean> {
  if (member.totpSealed === null) return false
  const step = await totpStepOf(
    context.secrets.open(member.totpSealed),
    code.trim(),
    context.clock.nowUs() / 1000,
  )
  return step !== undefined && (await book.members(context.store).claimTotpStep(member.id, step))
}

/** A member asked for a secret again, in a session of theirs. */
export interface SecretHolder {
  memberId: string
  /** Ended by the attempt that locks the member. */
  sessionId: string
  /** Where the request comes from: its share of the instance's password work. */
  address: string
}

/** The refusal of an attempt that was not right: the form's own words for a wrong secret. */
export function refusalOfAttempt(
  outcome: Exclude<AttemptOutcome, 'right'>,
  wrong: DashboardRefusalCode,
): DashboardRefusal {
  if (outcome === 'address_throttled') return refusal('address_throttled', { minutes: lockMinutes })
  return refusal(outcome === 'locked' ? 'account_locked' : wrong)
}

/**
 * A secret asked again of a signed-in member (the code of an approval, of a new authenticator, of
 * new recovery codes; the current password) counts with the sign-in's attempts, so that a stolen
 * session cannot guess at it: five wrong lock the member as sign-in does, and the attempt that
 * finds the member locked ends the session that made it.
 */
async function confirmSecret(
  context: AppContext,
  book: AnyAccountBook,
  holder: SecretHolder,
  check: () => Promise<boolean>,
  wrong: DashboardRefusalCode,
): Promise<true | DashboardRefusal> {
  const outcome = await attemptSecret(context, { subject: book.subjectOf(holder.memberId) }, check)
  if (outcome === 'right') return true
  if (outcome === 'locked')
    await book.sessions(context.store).endSession(holder.sessionId, 'locked', context.clock.nowUs())
  return refusalOfAttempt(outcome, wrong)
}

/** A fresh code of the member's authenticator, good once. */
export function confirmCodeOf(
  context: AppContext,
  book: AnyAccountBook,
  holder: SecretHolder,
  code: string,
): Promise<true | DashboardRefusal> {
  const check = async () => {
    const member = await book.members(context.store).findMember(holder.memberId)
    return member !== undefined && (await claimTotpCodeOf(context, book, member, code))
  }
  return confirmSecret(context, book, holder, check, 'code_wrong')
}

/** The member's current password, checked in a place of the instance's password work. */
export async function confirmPasswordOf(
  context: AppContext,
  book: AnyAccountBook,
  holder: SecretHolder,
  password: string,
): Promise<true | DashboardRefusal> {
  const turn = context.passwordWork.take(holder.address)
  if (!turn) return refusal('password_checks_busy')
  try {
    const check = async () => {
      const member = await book.members(context.store).findMember(holder.memberId)
      return turn.run(() => passwordMatches(member?.passwordHash ?? null, password))
    }
    return await confirmSecret(context, book, holder, check, 'password_wrong')
  } finally {
    turn.release()
  }
}
