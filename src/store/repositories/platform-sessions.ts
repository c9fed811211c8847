import type { Selectable } from 'kysely'
import type { PlatformSessionsTable } from '../schema.ts'
import type { SessionRow } from './dashboard-sessions.ts'
import type { RepositoryScope } from './executor.ts'
import { nullableNumber } from './members.ts'
import { type PlatformMemberRow, toPlatformMemberRow } from './platform-members.ts'

/** The console's sessions: a table apart from the dashboard's, so neither token opens the other's pages. */

export type PlatformSessionRow = Omit<SessionRow, 'merchantId'>

export interface PlatformSessionsRepository {
  insertSession(row: PlatformSessionRow): Promise<void>
  /** The session with its member, when not ended and the member not removed. */
  findLiveSession(
    tokenHash: string,
  ): Promise<{ session: PlatformSessionRow; member: PlatformMemberRow } | undefined>
  touchSession(id: string, nowUs: number): Promise<void>
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
      return member && { session: toSessionRow(session), member: toPlatformMemberRow(member) }
    },
    async touchSession(id, nowUs) {
      await db
        .updateTable('platform_sessions')
        .set({ last_seen_at_us: nowUs })
        .where('id', '=', id)
        .where('last_seen_at_us', '<', nowUs)
        .execute()
    },
    async endSession(id, reason, nowUs) {
      const result = await db
        .updateTable('platform_sessions')
        .set({ ended_at_us: nowUs, ended_reason: reason })
        .where('id', '=', id)
        .where('ended_at_us', 'is', null)
        .executeTakeFirst()
      return result.numUpdatedRows > 0n
    },
    async endSessionsOfMember(memberId, reason, nowUs, exceptSessionId) {
      let update = db
        .updateTable('platform_sessions')
        .set({ ended_at_us: nowUs, ended_reason: reason })
        .where('member_id', '=', memberId)
        .where('ended_at_us', 'is', null)
      if (exceptSessionId !== undefined) update = update.where('id', '<>', exceptSessionId)
      const result = await update.executeTakeFirst()
      return Number(result.numUpdatedRows)
    },
    async listLiveSessions(memberId) {
      let query = db
        .selectFrom('platform_sessions')
        .selectAll()
        .where('ended_at_us', 'is', null)
        .where('stage', '=', 'signed-in')
      if (memberId !== undefined) query = query.where('member_id', '=', memberId)
      const rows = await query.orderBy('created_at_us', 'desc').orderBy('id', 'desc').execute()
      return rows.map(toSessionRow)
    },
  }
}

function toSessionRow(row: Selectable<PlatformSessionsTable>): PlatformSessionRow {
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

function toSessionColumns(row: PlatformSessionRow): Selectable<PlatformSessionsTable> {
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
