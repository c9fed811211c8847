import type { SessionRow } from '../../store/repositories/dashboard-sessions.ts'
import type { InvitationRow, MemberRow } from '../../store/repositories/members.ts'
import type { AccountBook } from '../sign-in/account-book.ts'
import { audit } from './audit.ts'

/** A merchant's members, as the shared sign-in sees them: the dashboard's tables and audit log. */
export const dashboardAccounts: AccountBook<MemberRow, SessionRow, InvitationRow> = {
  subjectOf: (memberId) => `member:${memberId}`,
  unknownEmailSubject: (emailHash) => `email:${emailHash}`,
  members: (repositories) => repositories.members,
  sessions: (repositories) => repositories.dashboardSessions,
  invitations: (repositories) => repositories.members,
  sessionRow: (member, common) => ({ ...common, merchantId: member.merchantId }),
  sessionsOf: (repositories, member) =>
    repositories.dashboardSessions.listLiveSessions(member.merchantId, member.id),
  memberOf: (invitation, made) => ({
    id: made.id,
    merchantId: invitation.merchantId,
    email: invitation.email,
    name: made.name,
    role: invitation.role,
    passwordHash: made.passwordHash,
    totpSealed: null,
    totpLastStep: 0,
    timeZone: 'UTC',
    createdAtUs: made.nowUs,
    updatedAtUs: made.nowUs,
    removedAtUs: null,
  }),
  audit: (context, actor, change, within) =>
    audit(
      context,
      actor,
      {
        merchantId: change.member.merchantId,
        action: change.action,
        target: change.target,
        ...(change.before === undefined ? {} : { before: change.before }),
        ...(change.after === undefined ? {} : { after: change.after }),
      },
      within,
    ),
}
