import type { Selectable, Updateable } from 'kysely'
import type { PlatformRole } from '../../domain/platform-roles.ts'
import type { PlatformInvitationsTable, PlatformMembersTable } from '../schema.ts'
import type { Executor, RepositoryScope } from './executor.ts'
import { type InvitationRow, type MemberRow, nullableNumber, recoveryCodeMethods } from './members.ts'

/** The platform's own members (the console's staff), their invitations and recovery codes. */

export type PlatformMemberRow = Omit<MemberRow, 'merchantId' | 'role'> & { role: PlatformRole }
export type PlatformInvitationRow = Omit<InvitationRow, 'merchantId' | 'role'> & { role: PlatformRole }
export type PlatformMemberChanges = Partial<
  Pick<
    PlatformMemberRow,
    'name' | 'role' | 'passwordHash' | 'totpSealed' | 'totpLastStep' | 'timeZone' | 'removedAtUs'
  >
>

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
    ...recoveryCodeMethods(db, 'platform_member_recovery_codes'),
    async insertMember(row) {
      await db.insertInto('platform_members').values(toMemberColumns(row)).execute()
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
    async updateMember(memberId, changes, nowUs) {
      const columns: Updateable<PlatformMembersTable> = {
        name: changes.name,
        role: changes.role,
        password_hash: changes.passwordHash,
        totp_sealed: changes.totpSealed,
        totp_last_step: changes.totpLastStep,
        time_zone: changes.timeZone,
        removed_at_us: changes.removedAtUs,
      }
      const given = Object.fromEntries(Object.entries(columns).filter(([, value]) => value !== undefined))
      await db
        .updateTable('platform_members')
        .set({ ...given, updated_at_us: nowUs })
        .where('id', '=', memberId)
        .execute()
    },
    async claimTotpStep(memberId, step) {
      const result = await db
        .updateTable('platform_members')
        .set({ totp_last_step: step })
        .where('id', '=', memberId)
        .where('totp_last_step', '<', step)
        .executeTakeFirst()
      return result.numUpdatedRows > 0n
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
    // The conditions are the statement's own, so of two acceptances racing only one changes the row.
    async markInvitationAccepted(id: string, memberId: string, nowUs: number) {
      const result = await db
        .updateTable('platform_invitations')
        .set({ accepted_at_us: nowUs, member_id: memberId })
        .where('id', '=', id)
        .where('accepted_at_us', 'is', null)
        .where('revoked_at_us', 'is', null)
        .where('expires_at_us', '>', nowUs)
        .executeTakeFirst()
      return result.numUpdatedRows > 0n
    },
  }
}

export function toPlatformMemberRow(row: Selectable<PlatformMembersTable>): PlatformMemberRow {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role as PlatformRole,
    passwordHash: row.password_hash,
    totpSealed: row.totp_sealed,
    totpLastStep: Number(row.totp_last_step),
    timeZone: row.time_zone,
    createdAtUs: Number(row.created_at_us),
    updatedAtUs: Number(row.updated_at_us),
    removedAtUs: nullableNumber(row.removed_at_us),
  }
}

function toMemberColumns(row: PlatformMemberRow): Selectable<PlatformMembersTable> {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    password_hash: row.passwordHash,
    totp_sealed: row.totpSealed,
    totp_last_step: row.totpLastStep,
    time_zone: row.timeZone,
    created_at_us: row.createdAtUs,
    updated_at_us: row.updatedAtUs,
    removed_at_us: row.removedAtUs,
  }
}

function toInvitationRow(row: Selectable<PlatformInvitationsTable>): PlatformInvitationRow {
  return {
    id: row.id,
    email: row.email,
    role: row.role as PlatformRole,
    tokenHash: row.token_hash,
    invitedBy: row.invited_by,
    createdAtUs: Number(row.created_at_us),
    expiresAtUs: Number(row.expires_at_us),
    acceptedAtUs: nullableNumber(row.accepted_at_us),
    revokedAtUs: nullableNumber(row.revoked_at_us),
    memberId: row.member_id,
  }
}

function toInvitationColumns(row: PlatformInvitationRow): Selectable<PlatformInvitationsTable> {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    token_hash: row.tokenHash,
    invited_by: row.invitedBy,
    created_at_us: row.createdAtUs,
    expires_at_us: row.expiresAtUs,
    accepted_at_us: row.acceptedAtUs,
    revoked_at_us: row.revokedAtUs,
    member_id: row.memberId,
  }
}
