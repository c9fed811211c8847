import type { MemberRow } from '../../store/repositories/members.ts'
import type { AppContext } from '../context.ts'
import { claimTotpCodeOf, confirmCodeOf, confirmPasswordOf, type SecretHolder } from '../sign-in/secrets.ts'
import { dashboardAccounts } from './accounts.ts'
import type { DashboardRefusal } from './refusals.ts'

export { refusalOfAttempt, type SecretHolder } from '../sign-in/secrets.ts'

/** The row a member's attempts count in, at sign-in and at every form that checks their secrets. */
export function memberSubject(memberId: string): string {
  return dashboardAccounts.subjectOf(memberId)
}

/** True when the code is right now and its time step is later than any this member used. */
export function claimTotpCode(context: AppContext, member: MemberRow, code: string): Promise<boolean> {
  return claimTotpCodeOf(context, dashboardAccounts, member, code)
}

/** A fresh code of the member's authenticator, good once (sign-in/secrets.ts counts it). */
export function confirmCode(
  context: AppContext,
  holder: SecretHolder,
  code: string,
): Promise<true | DashboardRefusal> {
  return confirmCodeOf(context, dashboardAccounts, holder, code)
}

/** The member's current password, checked in a place of the instance's password work. */
export function confirmPassword(
  context: AppContext,
  holder: SecretHolder,
  password: string,
): Promise<true | DashboardRefusal> {
  return confirmPasswordOf(context, dashboardAccounts, holder, password)
}
