import type { Selectable, Updateable } from 'kysely'
import type { PlatformInvitationsTable, PlatformMembersTable, PlatformSessionsTable } from '../schema.ts'
import type { Executor } from './executor.ts'

/**
 * What the two kinds of account that sign in share in the store: a merchant's members (the
 * dashboard) and the platform's (the console) keep their accounts, invitations, recovery codes and
 * sessions in tables of their own, the platform's being the merchants' without `merchant_id`. The
 * statements on the columns both have, and the rows both read, are written here once.
 */

type AccountTable = 'members' | 'platform_members'
type InvitationTable = 'invitations' | 'platform_invitations'
type RecoveryCodeTable = 'member_recovery_codes' | 'platform_member_recovery_codes'
type SessionTable = 'dashboard_sessions' | 'platform_sessions'

/** An account's fields, whichever its kind; each kind adds its merchant and types its role. */
export interface AccountFields {
  id: string
  /** Lowercased. */
  email: string
  name: string
  role: string
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

export type AccountChanges = Partial<
  Pick<
    AccountFields,
    'name' | 'role' | 'passwordHash' | 'totpSealed' | 'totpLastStep' | 'timeZone' | 'removedAtUs'
  >
>

export interface InvitationFields {
  id: string
  email: string
  role: string
  tokenHash: string
  /** 'cli' or a member id. */
  invitedBy: string
  createdAtUs: number
  expiresAtUs: number
  acceptedAtUs: number | null
  revokedAtUs: number | null
  memberId: string | null
}

export interface SessionFields {
  id: string
  tokenHash: string
  memberId: string
  /** After the password, before the code; or during TOTP enrolment; or signed in. */
  stage: 'second-factor' | 'enrolment' | 'signed-in'
  createdAtUs: number
  lastSeenAtUs: number
  absoluteEndsAtUs: number
  endedAtUs: number | null
  endedReason: string | null
  address: string
  userAgent: string
}

export function nullableNumber(value: number | null): number | null {
  return value === null ? null : Number(value)
}

/** The statements on an account's own row that both kinds make. */
export function accountMethods(db: Executor, table: AccountTable) {
  return {
    async updateMember(memberId: string, changes: AccountChanges, nowUs: number) {
      await db
        .updateTable(table)
        .set({ ...toAccountChanges(changes), updated_at_us: nowUs })
        .where('id', '=', memberId)
        .execute()
    },
    async claimTotpStep(memberId: string, step: number) {
      const result = await db
        .updateTable(table)
        .set({ totp_last_step: step })
        .where('id', '=', memberId)
        .where('totp_last_step', '<', step)
        .executeTakeFirst()
      return result.numUpdatedRows > 0n
    },
  }
}

/** An invitation's acceptance, either kind's. */
export function invitationAcceptance(db: Executor, table: InvitationTable) {
  return {
    // The conditions are the statement's own, so of two acceptances racing only one changes the row.
    async markInvitationAccepted(id: string, memberId: string, nowUs: number) {
      const result = await db
        .updateTable(table)
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

export function recoveryCodeMethods(db: Executor, table: RecoveryCodeTable) {
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

/** The statements on a session that both kinds make. */
export function sessionMethods(db: Executor, table: SessionTable) {
  return {
    async touchSession(id: string, nowUs: number) {
      await db
        .updateTable(table)
        .set({ last_seen_at_us: nowUs })
        .where('id', '=', id)
        .where('last_seen_at_us', '<', nowUs)
        .execute()
    },
    async setStage(id: string, stage: SessionFields['stage']) {
      await db.updateTable(table).set({ stage }).where('id', '=', id).execute()
    },
    async endSession(id: string, reason: string, nowUs: number) {
      const result = await db
        .updateTable(table)
        .set({ ended_at_us: nowUs, ended_reason: reason })
        .where('id', '=', id)
        .where('ended_at_us', 'is', null)
        .executeTakeFirst()
      return result.numUpdatedRows > 0n
    },
    async endSessionsOfMember(memberId: string, reason: string, nowUs: number, exceptSessionId?: string) {
      let update = db
        .updateTable(table)
        .set({ ended_at_us: nowUs, ended_reason: reason })
        .where('member_id', '=', memberId)
        .where('ended_at_us', 'is', null)
      if (exceptSessionId !== undefined) update = update.where('id', '<>', exceptSessionId)
      const result = await update.executeTakeFirst()
      return Number(result.numUpdatedRows)
    },
  }
}

export function toAccountFields(row: Selectable<PlatformMembersTable>): AccountFields {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    passwordHash: row.password_hash,
    totpSealed: row.totp_sealed,
    totpLastStep: Number(row.totp_last_step),
    timeZone: row.time_zone,
    createdAtUs: Number(row.created_at_us),
    updatedAtUs: Number(row.updated_at_us),
    removedAtUs: nullableNumber(row.removed_at_us),
  }
}

export function toAccountColumns(row: AccountFields): Selectable<PlatformMembersTable> {
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

/** Only the fields given: undefined leaves a column as it is, null clears it. */
function toAccountChanges(changes: AccountChanges): Updateable<PlatformMembersTable> {
  const columns: Updateable<PlatformMembersTable> = {
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

export function toInvitationFields(row: Selectable<PlatformInvitationsTable>): InvitationFields {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    tokenHash: row.token_hash,
    invitedBy: row.invited_by,
    createdAtUs: Number(row.created_at_us),
    expiresAtUs: Number(row.expires_at_us),
    acceptedAtUs: nullableNumber(row.accepted_at_us),
    revokedAtUs: nullableNumber(row.revoked_at_us),
    memberId: row.member_id,
  }
}

export function toInvitationColumns(row: InvitationFields): Selectable<PlatformInvitationsTable> {
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

export function toSessionFields(row: Selectable<PlatformSessionsTable>): SessionFields {
  return {
    id: row.id,
    tokenHash: row.token_hash,
    memberId: row.member_id,
    stage: row.stage,
    createdAtUs: Number(row.created_at_us),
    lastSeenAtUs: Number(row.last_seen_at_us),
    absoluteEndsAtUs: Number(row.absolute_ends_at_us),
    endedAtUs: nullableNumber(row.ended_at_us),
    endedReason: row.ended_reason,
    address: row.address,
    userAgent: row.user_agent,
  }
}

export function toSessionColumns(row: SessionFields): Selectable<PlatformSessionsTable> {
  return {
    id: row.id,
    token_hash: row.tokenHash,
    member_id: row.memberId,
    stage: row.stage,
    created_at_us: row.createdAtUs,
    last_seen_at_us: row.lastSeenAtUs,
    absolute_ends_at_us: row.absoluteEndsAtUs,
    ended_at_us: row.endedAtUs,
    ended_reason: row.endedReason,
    address: row.address,
    user_agent: row.userAgent,
  }
}
