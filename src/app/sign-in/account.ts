import type { Repositories } from '../../store/store.ts'
import type { AppContext } from '../context.ts'
import { type DashboardRefusal, refusal } from '../dashboard/refusals.ts'
import type {
  AccountBook,
  AccountInvitationRow,
  AccountRow,
  AccountSessionRow,
  LiveSessionOf,
} from './account-book.ts'
import { actorOf } from './account-book.ts'
import { hashPassword, minimumPasswordLength } from './passwords.ts'
import { newRecoveryCodes, recoveryCodeHash } from './second-factor.ts'
import { confirmCodeOf, confirmPasswordOf, type SecretHolder } from './secrets.ts'
import { isInUse } from './sessions.ts'

/**
 * A member's own account, whichever its kind (a merchant's member in the dashboard, a platform
 * member in the console): written once against the account book, so both check secrets, count
 * attempts and lock out exactly as their sign-in does, and each audits in its own log.
 */

/** The zones a member may show times in: UTC and the places Sika's merchants and their teams are. */
export const timeZones = [
  'UTC',
  'Africa/Abidjan',
  'Africa/Accra',
  'Africa/Bamako',
  'Africa/Conakry',
  'Africa/Dakar',
  'Africa/Douala',
  'Africa/Kampala',
  'Africa/Kigali',
  'Africa/Kinshasa',
  'Africa/Lagos',
  'Africa/Lome',
  'Africa/Lubumbashi',
  'Africa/Nairobi',
  'Africa/Ouagadougou',
  'Africa/Porto-Novo',
  'Africa/Dar_es_Salaam',
  'Africa/Johannesburg',
  'Africa/Casablanca',
  'Africa/Cairo',
  'Europe/London',
  'Europe/Paris',
  'America/New_York',
  'Asia/Dubai',
] as const

type Book<A extends AccountRow, S extends AccountSessionRow> = AccountBook<A, S, AccountInvitationRow>

/** A member signed in, and where their request comes from. */
export interface AccountHolder<A extends AccountRow, S extends AccountSessionRow> {
  live: LiveSessionOf<A, S>
  address: string
}

export interface AccountViewOf<S extends AccountSessionRow> {
  sessions: S[]
  unusedRecoveryCodes: number
}

/** The member's sessions in use now, newest first. */
export async function ownSessionsOf<A extends AccountRow, S extends AccountSessionRow>(
  context: AppContext,
  book: Book<A, S>,
  member: A,
): Promise<S[]> {
  const nowUs = context.clock.nowUs()
  const rows = await book.sessionsOf(context.store, member)
  return rows.filter((row) => isInUse(row, nowUs))
}

export async function accountViewOf<A extends AccountRow, S extends AccountSessionRow>(
  context: AppContext,
  book: Book<A, S>,
  live: LiveSessionOf<A, S>,
): Promise<AccountViewOf<S>> {
  const [sessions, unusedRecoveryCodes] = await Promise.all([
    ownSessionsOf(context, book, live.member),
    book.members(context.store).countUnusedRecoveryCodes(live.member.id),
  ])
  return { sessions, unusedRecoveryCodes }
}

const holderOf = ({ live, address }: AccountHolder<AccountRow, AccountSessionRow>): SecretHolder => ({
  memberId: live.member.id,
  sessionId: live.session.id,
  address,
})

/** One change of the member's own account and its audit row, in one transaction. */
async function changeOwnAccount<A extends AccountRow, S extends AccountSessionRow>(
  context: AppContext,
  book: Book<A, S>,
  holder: AccountHolder<A, S>,
  change: { action: string; before?: unknown; after?: unknown },
  work: (within: Repositories, nowUs: number) => Promise<void>,
): Promise<void> {
  const { member } = holder.live
  const nowUs = context.clock.nowUs()
  await context.store.transaction(async (tx) => {
    await work(tx, nowUs)
    const audited = { ...change, target: member.email, member }
    await book.audit(context, actorOf(member, holder.address), audited, tx)
  })
}

/**
 * A new password ends every other session of the member: whoever knew the old one is signed out.
 * The current password counts with the sign-in's attempts.
 */
export async function changeOwnPassword<A extends AccountRow, S extends AccountSessionRow>(
  context: AppContext,
  book: Book<A, S>,
  holder: AccountHolder<A, S>,
  input: { current: string; next: string },
): Promise<true | DashboardRefusal> {
  if (input.next.length < minimumPasswordLength)
    return refusal('password_too_short', { minimum: minimumPasswordLength })
  const confirmed = await confirmPasswordOf(context, book, holderOf(holder), input.current)
  if (confirmed !== true) return confirmed
  const turn = context.passwordWork.take(holder.address)
  if (!turn) return refusal('password_checks_busy')
  const passwordHash = await turn.run(() => hashPassword(input.next)).finally(turn.release)
  const { member, session } = holder.live
  await changeOwnAccount(context, book, holder, { action: 'password.changed' }, async (tx, nowUs) => {
    await book.members(tx).updateMember(member.id, { passwordHash }, nowUs)
    await book.sessions(tx).endSessionsOfMember(member.id, 'password changed', nowUs, session.id)
  })
  return true
}

/**
 * Ten new recovery codes, the old ones void, once a fresh code from the authenticator proves the
 * phone is at hand (counted with the sign-in's attempts).
 */
export async function renewOwnRecoveryCodes<A extends AccountRow, S extends AccountSessionRow>(
  context: AppContext,
  book: Book<A, S>,
  holder: AccountHolder<A, S>,
  code: string,
): Promise<string[] | DashboardRefusal> {
  const confirmed = await confirmCodeOf(context, book, holderOf(holder), code)
  if (confirmed !== true) return confirmed
  const { member } = holder.live
  const codes = newRecoveryCodes()
  const renewed = { action: 'recovery_codes.regenerated' }
  await changeOwnAccount(context, book, holder, renewed, async (tx, nowUs) => {
    await book.members(tx).replaceRecoveryCodes(member.id, codes.map(recoveryCodeHash), nowUs)
  })
  return codes
}

/**
 * A new authenticator (a new phone), once a fresh code from the current one proves it is at hand
 * (counted with the sign-in's attempts): the old secret and every other session end, and this
 * session goes back to the enrolment, which shows a new QR code and, once confirmed, new recovery
 * codes.
 */
export async function replaceOwnAuthenticator<A extends AccountRow, S extends AccountSessionRow>(
  context: AppContext,
  book: Book<A, S>,
  holder: AccountHolder<A, S>,
  code: string,
): Promise<true | DashboardRefusal> {
  const confirmed = await confirmCodeOf(context, book, holderOf(holder), code)
  if (confirmed !== true) return confirmed
  const { member, session } = holder.live
  const replaced = { action: 'authenticator.replaced' }
  await changeOwnAccount(context, book, holder, replaced, async (tx, nowUs) => {
    await book.members(tx).updateMember(member.id, { totpSealed: null, totpLastStep: 0 }, nowUs)
    await book.sessions(tx).endSessionsOfMember(member.id, 'authenticator replaced', nowUs, session.id)
    await book.sessions(tx).setStage(session.id, 'enrolment')
  })
  return true
}

export async function setOwnTimeZone<A extends AccountRow, S extends AccountSessionRow>(
  context: AppContext,
  book: Book<A, S>,
  holder: AccountHolder<A, S>,
  zone: string,
): Promise<true | 'invalid'> {
  if (!(timeZones as readonly string[]).includes(zone)) return 'invalid'
  const { member } = holder.live
  if (member.timeZone === zone) return true
  const changed = {
    action: 'time_zone.changed',
    before: { timeZone: member.timeZone },
    after: { timeZone: zone },
  }
  await changeOwnAccount(context, book, holder, changed, async (tx, nowUs) => {
    await book.members(tx).updateMember(member.id, { timeZone: zone }, nowUs)
  })
  member.timeZone = zone
  return true
}

/** A member ends one of their own sessions (a browser left signed in elsewhere). */
export async function endOwnSessionOf<A extends AccountRow, S extends AccountSessionRow>(
  context: AppContext,
  book: Book<A, S>,
  holder: AccountHolder<A, S>,
  sessionId: string,
): Promise<true | DashboardRefusal> {
  const sessions = await book.sessionsOf(context.store, holder.live.member)
  const session = sessions.find((row) => row.id === sessionId)
  if (!session) return refusal('member_unknown')
  const ended = { action: 'session.ended', before: { session: session.id, address: session.address } }
  await changeOwnAccount(context, book, holder, ended, async (tx, nowUs) => {
    await book.sessions(tx).endSession(session.id, 'ended by its member', nowUs)
  })
  return true
}
