import type { Selectable, Updateable } from 'kysely'
import type { Role } from '../../domain/roles.ts'
import type { InvitationsTable, MembersTable } from '../schema.ts'
import type { Executor, RepositoryScope } from './executor.ts'

/** Dashboard members, their invitations and recovery codes. */

export interface MemberRow {
  id: string
  merchantId: string
  /** Lowercased. */
  email: string
  name: string
  role: Role
  /** Null until the invitation is accepted. */
  passwordHash: string | null
  /** The TOTP secret sealed by the SecretBox; null until enrolled. */
  totpSealed: string | null
  /** The last accepted TOTP time step: a step at or below it is refused (no reuse). */
  totpLastStep: number
  /** IANA, default 'UTC'. */
  timeZone: string
  createdAtUs: number
  updatedAtUs: number
  removedAtUs: number | null
}

export interface InvitationRow {
  id: string
  merchantId: string
  email: string
  role: Role
  tokenHash: string
  /** 'cli' or a member id. */
  invitedBy: string
  createdAtUs: number
  expiresAtUs: number
  acceptedAtUs: number | null
  revokedAtUs: number | null
  memberId: string | null
}

export type MemberChanges = Partial<
  Pick<
    MemberRow,
    'name' | 'role' | 'passwordHash' | 'totpSealed' | 'totpLastStep' | 'timeZone' | 'removedAtUs'
  >
>

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
    ...recoveryCodeMethods(db, 'member_recovery_codes'),
    async insertMember(row) {
      await db.insertInto('members').values(toMemberColumns(row)).execute()
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
    async updateMember(memberId, changes, nowUs) {
      await db
        .updateTable('members')
        .set({ ...toMemberChanges(changes), updated_at_us: nowUs })
        .where('id', '=', memberId)
        .execute()
    },
    async claimTotpStep(memberId, step) {
      const result = await db
        .updateTable('members')
        .set({ totp_last_step: step })
        .where('id', '=', memberId)
        .where('totp_last_step', '<', step)
        .executeTakeFirst()
      return result.numUpdatedRows > 0n
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
      await db.insertInto('invitations').values(toInvitationColumns(row)).execute()
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
    // The conditions are the statement's own, so of two acceptances racing only one changes the row.
    async markInvitationAccepted(id: string, memberId: string, nowUs: number) {
      const result = await db
        .updateTable('invitations')
        .set({ accepted_at_us: nowUs, member_id: memberId })
        .where('id', '=', id)
        .where('accepted_at_us', 'is', null)
        .where('revoked_at_us', 'is', null)
        .where('expires_at_us', '>', nowUs)
        .executeTakeFirst()
      return result.numUpdatedRows > 0n
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
export function recoveryCodeMethods(
  db: Executor,
  table: 'member_recovery_codes' | 'platform_member_recovery_codes',
) {
  return {
    async replaceRecoveryCodes(memberId: string, codeHashes: string[], nowUs: number) {
      await db.deleteFrom(table).where('member_id', '=', memberId).execute()
      if (codeHashes.length === 0) return
      await db
        .insertInto(table)
        .values(
          codeHashes.map((codeHash) => ({
            member_id: memberId,
            code_hash: codeHash,
            created_at_us: nowUs,
            used_at_us: null,
          })),
        )
        .execute()
    },
    async useRecoveryCode(memberId: string, codeHash: string, nowUs: number) {
      const result = await db
        .updateTable(table)
        .set({ used_at_us: nowUs })
        .where('member_id', '=', memberId)
        .where('code_hash', '=', codeHash)
        .where('used_at_us', 'is', null)
        .executeTakeFirst()
      return result.numUpdatedRows > 0n
    },
    async countUnusedRecoveryCodes(memberId: string) {
      const row = await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('member_id', '=', memberId)
        .where('used_at_us', 'is', null)
        .executeTakeFirstOrThrow()
      return Number(row.count)
    },
  }
}

export function toMemberRow(row: Selectable<MembersTable>): MemberRow {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    email: row.email,
    name: row.name,
    role: row.role as Role,
    passwordHash: row.password_hash,
    totpSealed: row.totp_sealed,
    totpLastStep: Number(row.totp_last_step),
    timeZone: row.time_zone,
    createdAtUs: Number(row.created_at_us),
    updatedAtUs: Number(row.updated_at_us),
    removedAtUs: nullableNumber(row.removed_at_us),
  }
}

function toMemberColumns(row: MemberRow): Selectable<MembersTable> {
  return {
    id: row.id,
    merchant_id: row.merchantId,
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

/** Only the fields given: undefined leaves a column as it is, null clears it. */
function toMemberChanges(changes: MemberChanges): Updateable<MembersTable> {
  const columns: Updateable<MembersTable> = {
    name: changes.name,
    role: changes.role,
    password_hash: changes.passwordHash,
    totp_sealed: changes.totpSealed,
    totp_last_step: changes.totpLastStep,
    time_zone: changes.timeZone,
    removed_at_us: changes.removedAtUs,
  }
  return Object.fromEntries(Object.entries(columns).filter(([, value]) => value !== undefined))
}

function toInvitationRow(row: Selectable<InvitationsTable>): InvitationRow {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    email: row.email,
    role: row.role as Role,
    tokenHash: row.token_hash,
    invitedBy: row.invited_by,
    createdAtUs: Number(row.created_at_us),
    expiresAtUs: Number(row.expires_at_us),
    acceptedAtUs: nullableNumber(row.accepted_at_us),
    revokedAtUs: nullableNumber(row.revoked_at_us),
    memberId: row.member_id,
  }
}

function toInvitationColumns(row: InvitationRow): Selectable<InvitationsTable> {
  return {
    id: row.id,
    merchant_id: row.merchantId,
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

export function nullableNumber(value: number | null): number | null {
  return value === null ? null : Number(value)
}
