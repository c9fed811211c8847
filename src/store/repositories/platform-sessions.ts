import { type SessionFields, sessionMethods, toSessionColumns, toSessionFields } from './account-rows.ts'
import type { RepositoryScope } from './executor.ts'
import { type PlatformMemberRow, toPlatformMemberRow } from './platform-members.ts'

/** The console's sessions: a table apart from the dashboard's, so neither token opens the other's pages. */

export type PlatformSessionRow = SessionFields

export interface PlatformSessionsRepository {
  insertSession(row: PlatformSessionRow): Promise<void>
  /** The session with its member, when not ended and the member not removed. */
  findLiveSession(
    tokenHash: string,
  ): Promise<{ session: PlatformSessionRow; member: PlatformMemberRow } | undefined>
  touchSession(id: string, nowUs: number): Promise<void>
  setStage(id: string, stage: PlatformSessionRow['stage']): Promise<void>
  /** False when unknown or already ended. */
  endSession(id: string, reason: string, nowUs: number): Promise<boolean>
  /** Ends the member's live sessions but `exceptSessionId`; returns how many it ended. */
  endSessionsOfMember(
    memberId: string,
    reason: string,
    nowUs: number,
    exceptSessionId?: string,
  ): Promise<number>
  /** Signed in and not ended, newest first. */
  listLiveSessions(memberId?: string): Promise<PlatformSessionRow[]>
}

export function platformSessionsRepository({ db }: RepositoryScope): PlatformSessionsRepository {
  return {
    ...sessionMethods(db, 'platform_sessions'),
    async insertSession(row) {
      await db.insertInto('platform_sessions').values(toSessionColumns(row)).execute()
    },
    async findLiveSession(tokenHash) {
      const session = await db
        .selectFrom('platform_sessions')
        .selectAll()
        .where('token_hash', '=', tokenHash)
        .where('ended_at_us', 'is', null)
        .executeTakeFirst()
      if (!session) return undefined
      const member = await db
        .selectFrom('platform_members')
        .selectAll()
        .where('id', '=', session.member_id)
        .where('removed_at_us', 'is', null)
        .executeTakeFirst()
      return member && { session: toSessionFields(session), member: toPlatformMemberRow(member) }
    },
    async listLiveSessions(memberId) {
      let query = db
        .selectFrom('platform_sessions')
        .selectAll()
        .where('ended_at_us', 'is', null)
        .where('stage', '=', 'signed-in')
      if (memberId !== undefined) query = query.where('member_id', '=', memberId)
      const rows = await query.orderBy('created_at_us', 'desc').orderBy('id', 'desc').execute()
      return rows.map(toSessionFields)
    },
  }
}
