import type { AppContext } from '../context.ts'
import {
  beginEnrolmentOf,
  confirmEnrolmentOf,
  type Enrolment,
  signInWithCodeOf,
  signInWithPasswordOf,
} from '../sign-in/sign-in.ts'
import { dashboardAccounts } from './accounts.ts'
import type { DashboardRefusal } from './refusals.ts'
import type { LiveSession, OpenedSession, SessionClient } from './sessions.ts'

export type { Enrolment } from '../sign-in/sign-in.ts'

/** The dashboard's sign-in: the shared steps of sign-in/, on the merchants' members. */
export function signInWithPassword(
  context: AppContext,
  input: { email: string; password: string },
  client: SessionClient,
): Promise<OpenedSession | DashboardRefusal> {
  return signInWithPasswordOf(context, dashboardAccounts, input, client)
}

export function signInWithCode(
  context: AppContext,
  live: LiveSession,
  code: string,
  client: SessionClient,
): Promise<OpenedSession | DashboardRefusal> {
  return signInWithCodeOf(context, dashboardAccounts, live, code, client)
}

export function beginEnrolment(context: AppContext, live: LiveSession): Promise<Enrolment> {
  return beginEnrolmentOf(context, dashboardAccounts, live)
}

export function confirmEnrolment(
  context: AppContext,
  live: LiveSession,
  code: string,
  client: SessionClient,
): Promise<{ opened: OpenedSession; recoveryCodes: string[] } | DashboardRefusal> {
  return confirmEnrolmentOf(context, dashboardAccounts, live, code, client)
}
