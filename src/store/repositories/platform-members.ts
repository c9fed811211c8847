import type { Selectable } from 'kysely'
import type { PlatformRole } from '../../domain/platform-roles.ts'
import type { PlatformInvitationsTable, PlatformMembersTable } from '../schema.ts'
import {
  type AccountChanges,
  type AccountFields,
  accountMethods,
  type InvitationFields,
  invitationAcceptance,
  recoveryCodeMethods,
  toAccountColumns,
  toAccountFields,
  toInvitationColumns,
  toInvitationFields,
} from './account-rows.ts'
import type { Executor, RepositoryScope } from './executor.ts'

/** The platform's own members (the console's staff), their invitations and recovery codes. */

export type PlatformMemberRow = AccountFields & { role: PlatformRole }
export type PlatformInvitationRow = InvitationFields & { role: PlatformRole }
export type PlatformMemberChanges = AccountChanges & { role?: PlatformRole }

export interface PlatformMembersRepository {
  insertInvitation(row: PlatformInvitationRow): Promise<void>
  findInvitationByTokenHash(tokenHash: string): Promise<PlatformInvitationRow | undefined>
  /** Not accepted, not revoked, not expired at nowUs; newest first. */
  listOpenInvitations(nowUs: number): Promise<PlatformInvitationRow[]>
  /** False when already accepted, revoked, or expired at nowUs. */
  markInvitationAccepted(id: string, memberId: string, nowUs: number): Promise<boolean>
  /** Throws on a conflict: an active platform member already has the email. */
  insertMember(row: PlatformMemberRow): Promise<void>
  findMember(memberId: string): Promise<PlatformMemberRow | undefined>
  findActiveMemberByEmail(email: string): Promise<PlatformMemberRow | undefined>
  /** Active only, by email. */
  listMembers(): Promise<PlatformMemberRow[]>
  updateMember(memberId: string, changes: PlatformMemberChanges, nowUs: number): Promise<void>
  /** Sets totpLastStep to step only when step > totpLastStep; false otherwise (a replayed code). */
  claimTotpStep(memberId: string, step: number): Promise<boolean>
  replaceRecoveryCodes(memberId: string, codeHashes: string[], nowUs: number): Promise<void>
  useRecoveryCode(memberId: string, codeHash: string, nowUs: number): Promise<boolean>
  countUnusedRecoveryCodes(memberId: string): Promise<number>
  /** The active admins; in a transaction on PostgreSQL their rows stay locked until it ends. */
  countAdmins(): Promise<number>
}

export function platformMembersRepository({ db, dialect }: RepositoryScope): PlatformMembersRepository {
  const selectMembers = () => db.selectFrom('platform_members').selectAll()
  return {
    ...invitationMethods(db),
    ...invitationAcceptance(db, 'platform_invitations'),
    ...recoveryCodeMethods(db, 'platform_member_recovery_codes'),
    ...accountMethods(db, 'platform_members'),
    async insertMember(row) {
      await db.insertInto('platform_members').values(toAccountColumns(row)).execute()
    },
    async findMember(memberId) {
      const row = await selectMembers().where('id', '=', memberId).executeTakeFirst()
      return row && toPlatformMemberRow(row)
    },
    async findActiveMemberByEmail(email) {
      const row = await selectMembers()
        .where('email', '=', email)
        .where('removed_at_us', 'is', null)
        .executeTakeFirst()
      return row && toPlatformMemberRow(row)
    },
    async listMembers() {
      const rows = await selectMembers().where('removed_at_us', 'is', null).orderBy('email').execute()
      return rows.map(toPlatformMemberRow)
    },
    async countAdmins() {
      const admins = db
        .selectFrom('platform_members')
        .select('id')
        .where('role', '=', 'admin')
        .where('removed_at_us', 'is', null)
      // Two admins demoting each other at once are counted one after the other.
      return (await (dialect.supportsRowLocks ? admins.forUpdate() : admins).execute()).length
    },
  }
}

function invitationMethods(db: Executor) {
  return {
    async insertInvitation(row: PlatformInvitationRow) {
      await db.insertInto('platform_invitations').values(toInvitationColumns(row)).execute()
    },
    async findInvitationByTokenHash(tokenHash: string) {
      const row = await db
        .selectFrom('platform_invitations')
        .selectAll()
        .where('token_hash', '=', tokenHash)
        .executeTakeFirst()
      return row && toInvitationRow(row)
    },
    async listOpenInvitations(nowUs: number) {
      const rows = await db
        .selectFrom('platform_invitations')
        .selectAll()
        .where('accepted_at_us', 'is', null)
        .where('revoked_at_us', 'is', null)
        .where('expires_at_us', '>', nowUs)
        .orderBy('created_at_us', 'desc')
        .orderBy('id', 'desc')
        .execute()
      return rows.map(toInvitationRow)
    },
  }
}

export function toPlatformMemberRow(row: Selectable<PlatformMembersTable>): PlatformMemberRow {
  return { ...toAccountFields(row), role: row.role as PlatformRole }
}

function toInvitationRow(row: Selectable<PlatformInvitationsTable>): PlatformInvitationRow {
  return { ...toInvitationFields(row), role: row.role as PlatformRole }
}
