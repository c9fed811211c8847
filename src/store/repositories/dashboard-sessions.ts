import type { Selectable } from 'kysely'
import type { DashboardSessionsTable } from '../schema.ts'
import { type SessionFields, sessionMethods, toSessionColumns, toSessionFields } from './account-rows.ts'
import type { RepositoryScope } from './executor.ts'
import { type MemberRow, toMemberRow } from './members.ts'

/** Dashboard sessions: the store keeps a hash of each cookie's token, never the token. */

export type SessionRow = SessionFields & { merchantId: string }

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
    ...sessionMethods(db, 'dashboard_sessions'),
    async insertSession(row) {
      await db
        .insertInto('dashboard_sessions')
        .values({ ...toSessionColumns(row), merchant_id: row.merchantId })
        .execute()
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
  return { ...toSessionFields(row), merchantId: row.merchant_id }
}
