import type { Selectable } from 'kysely'
import type { PlatformAuditLogTable } from '../schema.ts'
import type { RepositoryScope } from './executor.ts'

/** Who changed what of the platform's own, from the console or the CLI: appended, never changed. */

export interface PlatformAuditEntry {
  id: string
  actorKind: 'member' | 'cli'
  actorId: string | null
  /** The platform member's email, or 'cli'. */
  actorLabel: string
  /** E.g. 'platform_member.invited', 'platform_member.role_changed'. */
  action: string
  target: string
  /** JSON text, never a secret. */
  before: string | null
  after: string | null
  address: string | null
  atUs: number
}

export interface PlatformAuditLogRepository {
  append(entry: PlatformAuditEntry): Promise<void>
  /** Newest first, keyset by (atUs, id) before `before`. */
  list(filter: { before?: { atUs: number; id: string }; limit: number }): Promise<PlatformAuditEntry[]>
}

export function platformAuditLogRepository({ db }: RepositoryScope): PlatformAuditLogRepository {
  return {
    async append(entry) {
      await db
        .insertInto('platform_audit_log')
        .values({
          id: entry.id,
          actor_kind: entry.actorKind,
          actor_id: entry.actorId,
          actor_label: entry.actorLabel,
          action: entry.action,
          target: entry.target,
          before_json: entry.before,
          after_json: entry.after,
          address: entry.address,
          at_us: entry.atUs,
        })
        .execute()
    },
    async list({ before, limit }) {
      let query = db.selectFrom('platform_audit_log').selectAll()
      if (before !== undefined)
        query = query.where((eb) => eb(eb.refTuple('at_us', 'id'), '<', eb.tuple(before.atUs, before.id)))
      const rows = await query.orderBy('at_us', 'desc').orderBy('id', 'desc').limit(limit).execute()
      return rows.map(toEntry)
    },
  }
}

function toEntry(row: Selectable<PlatformAuditLogTable>): PlatformAuditEntry {
  return {
    id: row.id,
    actorKind: row.actor_kind,
    actorId: row.actor_id,
    actorLabel: row.actor_label,
    action: row.action,
    target: row.target,
    before: row.before_json,
    after: row.after_json,
    address: row.address,
    atUs: Number(row.at_us),
  }
}
