import { randomBytes } from 'node:crypto'
import type { Mode } from '../../domain/kinds.ts'
import type { AuditEntry } from '../../store/repositories/audit-log.ts'
import type { Repositories } from '../../store/store.ts'
import type { AppContext } from '../context.ts'

/** Who made a change: a member in the dashboard, the CLI, or an API client managing its keys. */
export type Actor =
  | { kind: 'member'; memberId: string; email: string; address: string }
  | { kind: 'cli' }
  | { kind: 'api'; apiKeyPrefix: string; address: string }

export interface AuditedChange {
  merchantId: string
  mode?: Mode
  action: string
  target: string
  before?: unknown
  after?: unknown
}

/** The audit row of a change, written in the change's own transaction when it has one. */
export function audit(
  context: AppContext,
  actor: Actor,
  change: AuditedChange,
  within: Pick<Repositories, 'auditLog'> = context.store,
): Promise<void> {
  return within.auditLog.append(auditEntry(actor, change, context.clock.nowUs()))
}

export function auditEntry(actor: Actor, change: AuditedChange, atUs: number): AuditEntry {
  return {
    id: `aud_${randomBytes(12).toString('base64url')}`,
    merchantId: change.merchantId,
    mode: change.mode ?? null,
    actorKind: actor.kind,
    actorId: actor.kind === 'member' ? actor.memberId : actor.kind === 'api' ? actor.apiKeyPrefix : null,
    actorLabel: actor.kind === 'member' ? actor.email : actor.kind === 'api' ? actor.apiKeyPrefix : 'cli',
    action: change.action,
    target: change.target,
    before: change.before === undefined ? null : JSON.stringify(change.before),
    after: change.after === undefined ? null : JSON.stringify(change.after),
    address: actor.kind === 'cli' ? null : actor.address,
    atUs,
  }
}
