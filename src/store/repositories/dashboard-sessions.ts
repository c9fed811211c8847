import type { Selectable } from 'kysely'
import type { DashboardSessionsTable } from '../schema.ts'
import type { RepositoryScope } from './executor.ts'
import { type MemberRow, nullableNumber, toMemberRow } from './members.ts'

/** Dashboard sessions: the store keeps a hash of each cookie's token, never the token. */

export interface SessionRow {
  id: string
  tokenHash: string
  memberId: string
  merchantId: string
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

export interface DashboardSessionsRepository {
  insertSession(row: SessionRow): Promise<void>
  /**
   * The session with its member, when not ended and the member not removed. Whether it is idle
   * or past its absolute end is the caller's to judge, against its clock.
   */
  findLiveSession(tokenHash: string): Promise<{ session: SessionRow; member: MemberRow } | undefined>
  touchSession(id: string, nowUs: number): Promise<void>
  setStage(id: string, stage: SessionRow['stage']): Promise<void>
  /** False when unknown or already ended. */
  endSession(id: string, reason: string, nowUs: number): Promise<boolean>
  /** Ends the member's live sessions but `exceptSessionId`; returns how many it ended. */
  endSessionsOfMember(
    memberId: string,
    reason: string,
    nowUs: number,
    exceptSessionId?: string,
  ): Promise<number>
  /** Newest first. */
  listLiveSessions(merchantId: string, memberId?: string): Promise<SessionRow[]>
}

export function dashboardSessionsRepository({ db }: RepositoryScope): DashboardSessionsRepository {
  return {
    async insertSession(row) {
      await db.insertInto('dashboard_sessions').values(toSessionColumns(row)).execute()
    },
    async findLiveSession(tokenHash) {
      const session = await db
        .selectFrom('dashboard_sessions')
        .selectAll()
        .where('token_hash', '=', tokenHash)
        .where('ended_at_us', 'is', null)
        .executeTakeFirst()
      if (!session) return undefined
      const member = await db
        .selectFrom('members')
        .selectAll()
        .where('id', '=', session.member_id)
        .where('removed_at_us', 'is', null)
        .executeTakeFirst()
      return member && { session: toSessionRow(session), member: toMemberRow(member) }
    },
    async touchSession(id, nowUs) {
      await db
        .updateTable('dashboard_sessions')
        .set({ last_seen_at_us: nowUs })
        .where('id', '=', id)
        .where('last_seen_at_us', '<', nowUs)
        .execute()
    },
    async setStage(id, stage) {
      await db.updateTable('dashboard_sessions').set({ stage }).where('id', '=', id).execute()
    },
    async endSession(id, reason, nowUs) {
      const result = await db
        .updateTable('dashboard_sessions')
        .set({ ended_at_us: nowUs, ended_reason: reason })
        .where('id', '=', id)
        .where('ended_at_us', 'is', null)
        .executeTakeFirst()
      return result.numUpdatedRows > 0n
    },
    async endSessionsOfMember(memberId, reason, nowUs, exceptSessionId) {
      let update = db
        .updateTable('dashboard_sessions')
        .set({ ended_at_us: nowUs, ended_reason: reason })
        .where('member_id', '=', memberId)
        .where('ended_at_us', 'is', null)
      if (exceptSessionId !== undefined) update = update.where('id', '<>', exceptSessionId)
      const result = await update.executeTakeFirst()
      return Number(result.numUpdatedRows)
    },
    async listLiveSessions(merchantId, memberId) {
      let query = db
        .selectFrom('dashboard_sessions')
        .selectAll()
        .where('merchant_id', '=', merchantId)
        .where('ended_at_us', 'is', null)
      if (memberId !== undefined) query = query.where('member_id', '=', memberId)
      const rows = await query.orderBy('created_at_us', 'desc').orderBy('id', 'desc').execute()
      return rows.map(toSessionRow)
    },
  }
}

function toSessionRow(row: Selectable<DashboardSessionsTable>): SessionRow {
  return {
    id: row.id,
    tokenHash: row.token_hash,
    memberId: row.member_id,
    merchantId: row.merchant_id,
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

function toSessionColumns(row: SessionRow): Selectable<DashboardSessionsTable> {
  return {
    id: row.id,
    token_hash: row.tokenHash,
    member_id: row.memberId,
    merchant_id: row.merchantId,
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
