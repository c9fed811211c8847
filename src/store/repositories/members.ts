import type { Selectable } from 'kysely'
import type { Role } from '../../domain/roles.ts'
import type { InvitationsTable, MembersTable } from '../schema.ts'
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

/** Dashboard members, their invitations and recovery codes. */

export type MemberRow = AccountFields & { merchantId: string; role: Role }

export type InvitationRow = InvitationFields & { merchantId: string; role: Role }

export type MemberChanges = AccountChanges & { role?: Role }

export interface MembersRepository {
  insertInvitation(row: InvitationRow): Promise<void>
  findInvitationByTokenHash(tokenHash: string): Promise<InvitationRow | undefined>
  /** Newest first. */
  listInvitations(merchantId: string): Promise<InvitationRow[]>
  /** False when already accepted, revoked, or expired at nowUs. */
  markInvitationAccepted(id: string, memberId: string, nowUs: number): Promise<boolean>
  /** False when unknown to the merchant, already accepted or revoked. */
  revokeInvitation(merchantId: string, id: string, nowUs: number): Promise<boolean>
  /** Throws on a conflict: an active member already has the email. */
  insertMember(row: MemberRow): Promise<void>
  findMember(memberId: string): Promise<MemberRow | undefined>
  /** Among members not removed. */
  findActiveMemberByEmail(email: string): Promise<MemberRow | undefined>
  /** Active only, by email. */
  listMembers(merchantId: string): Promise<MemberRow[]>
  updateMember(memberId: string, changes: MemberChanges, nowUs: number): Promise<void>
  /** Atomically: sets totpLastStep to step only when step > totpLastStep; false otherwise (a replayed code). */
  claimTotpStep(memberId: string, step: number): Promise<boolean>
  /** Two statements: call it inside a transaction so old and new codes change together. */
  replaceRecoveryCodes(memberId: string, codeHashes: string[], nowUs: number): Promise<void>
  /** Marks the unused code used; false when unknown or already used. */
  useRecoveryCode(memberId: string, codeHash: string, nowUs: number): Promise<boolean>
  countUnusedRecoveryCodes(memberId: string): Promise<number>
  /** The merchant's owners; in a transaction on PostgreSQL their rows stay locked until it ends. */
  countOwners(merchantId: string): Promise<number>
}

export function membersRepository({ db, dialect }: RepositoryScope): MembersRepository {
  const selectMembers = () => db.selectFrom('members').selectAll()
  return {
    ...invitationMethods(db),
    ...invitationAcceptance(db, 'invitations'),
    ...recoveryCodeMethods(db, 'member_recovery_codes'),
    ...accountMethods(db, 'members'),
    async insertMember(row) {
      await db
        .insertInto('members')
        .values({ ...toAccountColumns(row), merchant_id: row.merchantId })
        .execute()
    },
    async findMember(memberId) {
      const row = await selectMembers().where('id', '=', memberId).executeTakeFirst()
      return row && toMemberRow(row)
    },
    async findActiveMemberByEmail(email) {
      const row = await selectMembers()
        .where('email', '=', email)
        .where('removed_at_us', 'is', null)
        .executeTakeFirst()
      return row && toMemberRow(row)
    },
    async listMembers(merchantId) {
      const rows = await selectMembers()
        .where('merchant_id', '=', merchantId)
        .where('removed_at_us', 'is', null)
        .orderBy('email')
        .execute()
      return rows.map(toMemberRow)
    },
    async countOwners(merchantId) {
      const owners = db
        .selectFrom('members')
        .select('id')
        .where('merchant_id', '=', merchantId)
        .where('role', '=', 'owner')
        .where('removed_at_us', 'is', null)
      // The owners' rows stay locked until the transaction ends: two owners demoting each other at
      // once are counted one after the other, and the second finds one owner left.
      return (await (dialect.supportsRowLocks ? owners.forUpdate() : owners).execute()).length
    },
  }
}

function invitationMethods(db: Executor) {
  return {
    async insertInvitation(row: InvitationRow) {
      await db
        .insertInto('invitations')
        .values({ ...toInvitationColumns(row), merchant_id: row.merchantId })
        .execute()
    },
    async findInvitationByTokenHash(tokenHash: string) {
      const row = await db
        .selectFrom('invitations')
        .selectAll()
        .where('token_hash', '=', tokenHash)
        .executeTakeFirst()
      return row && toInvitationRow(row)
    },
    async listInvitations(merchantId: string) {
      const rows = await db
        .selectFrom('invitations')
        .selectAll()
        .where('merchant_id', '=', merchantId)
        .orderBy('created_at_us', 'desc')
        .orderBy('id', 'desc')
        .execute()
      return rows.map(toInvitationRow)
    },
    async revokeInvitation(merchantId: string, id: string, nowUs: number) {
      const result = await db
        .updateTable('invitations')
        .set({ revoked_at_us: nowUs })
        .where('id', '=', id)
        .where('merchant_id', '=', merchantId)
        .where('accepted_at_us', 'is', null)
        .where('revoked_at_us', 'is', null)
        .executeTakeFirst()
      return result.numUpdatedRows > 0n
    },
  }
}

/** Recovery codes, of a merchant's members or of the platform's: the two tables have one shape. */
export function toMemberRow(row: Selectable<MembersTable>): MemberRow {
  return { ...toAccountFields(row), merchantId: row.merchant_id, role: row.role as Role }
}

function toInvitationRow(row: Selectable<InvitationsTable>): InvitationRow {
  return { ...toInvitationFields(row), merchantId: row.merchant_id, role: row.role as Role }
}
