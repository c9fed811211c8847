import type { AuditEntry, AuditLogFilter } from '../../store/repositories/audit-log.ts'
import type { AppContext } from '../context.ts'
import { type LongExport, openLongExport } from '../mechanisms/long-exports.ts'

/** The audit page's filter, as a member typed it; times already as microseconds. */
export interface AuditQuery {
  action?: string
  actor?: string
  fromUs?: number
  toUs?: number
}

export interface AuditPage {
  entries: AuditEntry[]
  /** The keyset of the next page, when there is one: the last entry shown. */
  after?: string
}

const pageSize = 50
/**
 * A CSV export reads the log in pages of this many rows, newest first, until the filter is
 * exhausted, each page a turn of the process's long work.
 */
const exportPageSize = 250

/** `atUs.id` of an entry: where the next page starts. */
function cursorOf(entry: AuditEntry): string {
  return `${entry.atUs}.${entry.id}`
}

function parseCursor(text: string | undefined): AuditLogFilter['before'] {
  const match = text === undefined ? null : /^(\d{1,17})\.(aud_[A-Za-z0-9_-]{1,40})$/.exec(text)
  return match ? { atUs: Number(match[1]), id: match[2] ?? '' } : undefined
}

/** One page of the merchant's audit rows, newest first, after the given keyset. */
export async function auditPageOf(
  context: AppContext,
  merchantId: string,
  query: AuditQuery,
  after?: string,
): Promise<AuditPage> {
  const before = parseCursor(after)
  const rows = await context.store.auditLog.list(merchantId, {
    ...query,
    ...(before ? { before } : {}),
    limit: pageSize + 1,
  })
  const entries = rows.slice(0, pageSize)
  const last = entries.at(-1)
  return rows.length > pageSize && last ? { entries, after: cursorOf(last) } : { entries }
}

/**
 * The audit log's CSV of a filter, streamed in turns with the other long work and holding one of
 * the merchant's export slots (`openLongExport`: 429 when they are all taken). The log is the
 * merchant's, both modes together: it counts under live.
 */
export function openAuditExport(
  context: AppContext,
  merchantId: string,
  query: AuditQuery,
): LongExport<AuditEntry> {
  return openLongExport(context, { merchantId, mode: 'live' }, () => auditPagesOf(context, merchantId, query))
}

/** Every row the filter shows, a page at a time. */
async function* auditPagesOf(
  context: AppContext,
  merchantId: string,
  query: AuditQuery,
): AsyncGenerator<AuditEntry[]> {
  let before: AuditLogFilter['before']
  for (;;) {
    const rows = await context.store.auditLog.list(merchantId, {
      ...query,
      ...(before ? { before } : {}),
      limit: exportPageSize,
    })
    if (rows.length > 0) yield rows
    const last = rows.at(-1)
    if (rows.length < exportPageSize || !last) return
    before = { atUs: last.atUs, id: last.id }
  }
}
