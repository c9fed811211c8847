import { randomBytes } from 'node:crypto'
import type { PlatformAuditEntry } from '../../store/repositories/platform-audit-log.ts'
import type { Repositories } from '../../store/store.ts'
import type { AppContext } from '../context.ts'
import { type AuditedChange, audit } from '../dashboard/audit.ts'

/**
 * Who changed something of the platform's own: a platform member in the console, or the CLI (with
 * the name its operator gave, as `sika reconcile resolve --by` takes one).
 */
export type PlatformActor =
  | { kind: 'member'; memberId: string; email: string; address: string }
  | { kind: 'cli'; label?: string }

export interface PlatformChange {
  /** E.g. 'platform_member.invited', 'platform_member.role_changed'. */
  action: string
  target: string
  before?: unknown
  after?: unknown
}

/**
 * The platform audit log's row of a change made in the console or by the CLI, written in the
 * change's own transaction when it has one. Every change of platform scope goes through here.
 */
export function recordPlatformChange(
  context: AppContext,
  actor: PlatformActor,
  change: PlatformChange,
  within: Pick<Repositories, 'platformAuditLog'> = context.store,
): Promise<void> {
  const entry: PlatformAuditEntry = {
    id: `pau_${randomBytes(12).toString('base64url')}`,
    actorKind: actor.kind,
    actorId: actor.kind === 'member' ? actor.memberId : null,
    actorLabel: actor.kind === 'member' ? actor.email : (actor.label ?? 'cli'),
    action: change.action,
    target: change.target,
    before: change.before === undefined ? null : JSON.stringify(change.before),
    after: change.after === undefined ? null : JSON.stringify(change.after),
    address: actor.kind === 'member' ? actor.address : null,
    atUs: context.clock.nowUs(),
  }
  return within.platformAuditLog.append(entry)
}

/**
 * A change the platform made to a merchant (the CLI's or the console's), written to the merchant's
 * audit log and to the platform's in the change's own transaction. The platform's row is action
 * `merchant.<platformAction>`, and its target names the merchant.
 */
export async function auditMerchantChange(
  context: AppContext,
  actor: PlatformActor,
  change: AuditedChange,
  platformAction: string,
  tx: Pick<Repositories, 'auditLog' | 'platformAuditLog'>,
): Promise<void> {
  await audit(context, actor, change, tx)
  const { merchantId, target, before, after } = change
  await recordPlatformChange(
    context,
    actor,
    {
      action: `merchant.${platformAction}`,
      target: target === merchantId ? merchantId : `${merchantId} ${target}`,
      before: before ?? undefined,
      after: after ?? undefined,
    },
    tx,
  )
}

/** A page of the platform audit log, newest first; `after` is the last entry's cursor of the page before. */
export async function platformAuditPage(
  context: AppContext,
  cursor: string | undefined,
  limit = 50,
): Promise<{ entries: PlatformAuditEntry[]; next?: string }> {
  const before = cursorOf(cursor)
  const rows = await context.store.platformAuditLog.list({ ...(before ? { before } : {}), limit: limit + 1 })
  const entries = rows.slice(0, limit)
  const last = entries.at(-1)
  return rows.length > limit && last ? { entries, next: `${last.atUs}.${last.id}` } : { entries }
}

function cursorOf(text: string | undefined): { atUs: number; id: string } | undefined {
  const found = /^([0-9]{1,17})\.(pau_[A-Za-z0-9_-]{1,40})$/.exec(text ?? '')
  return found ? { atUs: Number(found[1]), id: found[2] ?? '' } : undefined
}
