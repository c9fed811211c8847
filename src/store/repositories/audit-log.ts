import type { Selectable } from 'kysely'
import type { AuditLogTable } from '../schema.ts'
import type { RepositoryScope } from './executor.ts'

/** Who did what to a merchant's account: appended, never changed. */

export interface AuditEntry {
  id: string
  merchantId: string
  mode: 'sandbox' | 'live' | null
  actorKind: 'member' | 'cli' | 'api'
  actorId: string | null
  /** The member's email, 'cli', or the api-key prefix. */
  actorLabel: string
  /** E.g. 'member.invited', 'refund.created', 'callback.resent', 'api_key.rotated'. */
  action: string
  /** E.g. an operation token, a member email, an api-key prefix. */
  target: string
  /** JSON text, never a secret. */
  before: string | null
  after: string | null
  address: string | null
  atUs: number
}

export interface AuditLogFilter {
  action?: string
  /** An actor's id or label. */
  actor?: string
  fromUs?: number
  toUs?: number
  /** The last entry of the previous page. */
  before?: { atUs: number; id: string }
  limit: number
}

export interface AuditLogRepository {
  append(entry: AuditEntry): Promise<void>
  /** Newest first, keyset by (atUs, id) before `before`; filters optional. */
  list(merchantId: string, filter: AuditLogFilter): Promise<AuditEntry[]>
}

export function auditLogRepository({ db }: RepositoryScope): AuditLogRepository {
  return {
    async append(entry) {
      await db.insertInto('audit_log').values(toAuditColumns(entry)).execute()
    },
    async list(merchantId, filter) {
      let query = db.selectFrom('audit_log').selectAll().where('merchant_id', '=', merchantId)
      const { action, actor, fromUs, toUs, before } = filter
      if (action !== undefined) query = query.where('action', '=', action)
      if (actor !== undefined)
        query = query.where((eb) => eb.or([eb('actor_id', '=', actor), eb('actor_label', '=', actor)]))
      if (fromUs !== undefined) query = query.where('at_us', '>=', fromUs)
      if (toUs !== undefined) query = query.where('at_us', '<', toUs)
      if (before !== undefined)
        query = query.where((eb) => eb(eb.refTuple('at_us', 'id'), '<', eb.tuple(before.atUs, before.id)))
      const rows = await query.orderBy('at_us', 'desc').orderBy('id', 'desc').limit(filter.limit).execute()
      return rows.map(toAuditEntry)
    },
  }
}

function toAuditColumns(entry: AuditEntry): Selectable<AuditLogTable> {
  return {
    id: entry.id,
    merchant_id: entry.merchantId,
    mode: entry.mode,
    actor_kind: entry.actorKind,
    actor_id: entry.actorId,
    actor_label: entry.actorLabel,
    action: entry.action,
    target: entry.target,
    before_json: entry.before,
    after_json: entry.after,
    address: entry.address,
    at_us: entry.atUs,
  }
}

function toAuditEntry(row: Selectable<AuditLogTable>): AuditEntry {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    mode: row.mode,
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
