import type { PlatformInvitationRow, PlatformMemberRow } from '../../store/repositories/platform-members.ts'
import type { PlatformSessionRow } from '../../store/repositories/platform-sessions.ts'
import type { AccountBook } from '../sign-in/account-book.ts'
import { recordPlatformChange } from './platform-audit.ts'

/**
 * The platform's members, as the shared sign-in sees them: tables of their own, attempts counted
 * under subjects of their own, changes written to the platform audit log.
 */
export const platformAccounts: AccountBook<PlatformMemberRow, PlatformSessionRow, PlatformInvitationRow> = {
  subjectOf: (memberId) => `platform-member:${memberId}`,
  unknownEmailSubject: (emailHash) => `platform-email:${emailHash}`,
  members: (repositories) => repositories.platformMembers,
  sessions: (repositories) => repositories.platformSessions,
  invitations: (repositories) => repositories.platformMembers,
  sessionRow: (_member, common) => common,
  sessionsOf: (repositories, member) => repositories.platformSessions.listLiveSessions(member.id),
  memberOf: (invitation, made) => ({
    id: made.id,
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
    recordPlatformChange(
      context,
      actor,
      {
        action: change.action,
        target: change.target,
        ...(change.before === undefined ? {} : { before: change.before }),
        ...(change.after === undefined ? {} : { after: change.after }),
      },
      within,
    ),
}
