import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../../app/context.ts'
import {
  type AuditPage,
  type AuditQuery,
  auditPageOf,
  openAuditExport,
} from '../../../app/dashboard/audit-view.ts'
import { sendCsvExport } from '../csv-export.tsx'
import { formatInstant, instantFromInput } from '../format.ts'
import type { Guard } from '../guard.tsx'
import { memberPage, type PageContext } from '../layout.tsx'
import { sendPage } from '../respond.ts'

type Query = Record<string, string | undefined>

const dayUs = 86_400_000_000

/** How far the zone is ahead of UTC at that instant, in microseconds. */
function zoneOffsetUs(atUs: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(Math.floor(atUs / 1000)))
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0)
  const local = Date.UTC(
    part('year'),
    part('month') - 1,
    part('day'),
    part('hour'),
    part('minute'),
    part('second'),
  )
  return (local - Math.floor(atUs / 1_000_000) * 1000) * 1000
}

/** A date (or date and time) the member typed, read in their own time zone. */
function instantInZone(text: string | undefined, timeZone: string): number | undefined {
  const asUtc = instantFromInput(text)
  return asUtc === undefined ? undefined : asUtc - zoneOffsetUs(asUtc, timeZone)
}

/** The filter of the query: `to` is inclusive of a whole day when only a date is given. */
function auditQueryOf(query: Query, timeZone: string): AuditQuery {
  const text = (name: string) => {
    const value = query[name]?.trim()
    return value ? value.slice(0, 200) : undefined
  }
  const to = text('to')
  const toUs = instantInZone(to, timeZone)
  const result: AuditQuery = {}
  const action = text('action')
  const actor = text('actor')
  const fromUs = instantInZone(text('from'), timeZone)
  if (action) result.action = action
  // Emails are stored in lower case; an api-key prefix keeps its case.
  if (actor) result.actor = actor.includes('@') ? actor.toLowerCase() : actor
  if (fromUs !== undefined) result.fromUs = fromUs
  if (toUs !== undefined) result.toUs = to?.includes('T') ? toUs : toUs + dayUs
  return result
}

/** The audit log: every role reads it, nobody changes it. */
export function auditRoutes(app: FastifyInstance, context: AppContext, guard: Guard): void {
  app.get('/dashboard/audit', async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'read')
    if (!signedIn) return reply
    const query = request.query as Query
    const { member } = signedIn.live
    const filter = auditQueryOf(query, member.timeZone)
    const page = await auditPageOf(context, member.merchantId, filter, query.after)
    return sendPage(reply, 200, auditPage(signedIn.page, query, page))
  })
  app.get('/dashboard/audit.csv', async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'read')
    if (!signedIn) return reply
    const { member } = signedIn.live
    const filter = auditQueryOf(request.query as Query, member.timeZone)
    return sendCsvExport(reply, signedIn.page, () => openAuditExport(context, member.merchantId, filter), {
      filename: 'audit-log.csv',
      header: ['at', 'actor_kind', 'actor', 'action', 'target', 'address', 'before', 'after', 'mode'],
      cells: (entry) => [
        new Date(Math.floor(entry.atUs / 1000)).toISOString(),
        entry.actorKind,
        entry.actorLabel,
        entry.action,
        entry.target,
        entry.address,
        entry.before,
        entry.after,
        entry.mode,
      ],
    })
  })
}

function auditPage(page: PageContext, query: Query, result: AuditPage): string {
  const { t } = page
  const kept = (['action', 'actor', 'from', 'to'] as const).flatMap((name) =>
    query[name] ? [[name, query[name] ?? '']] : [],
  )
  const search = new URLSearchParams(kept).toString()
  const nextSearch = result.after
    ? new URLSearchParams([...kept, ['after', result.after]]).toString()
    : undefined
  return memberPage(
    page,
    t.audit.title,
    <>
      <p class="muted">{t.audit.intro}</p>
      <AuditFilter page={page} query={query} />
      <p>
        <a href={`/dashboard/audit.csv${search ? `?${search}` : ''}`}>{t.common.downloadCsv}</a>
      </p>
      <AuditTable page={page} result={result} />
      <nav aria-label={t.audit.title} class="pages">
        {query.after && <a href={`/dashboard/audit${search ? `?${search}` : ''}`}>{t.common.first}</a>}{' '}
        {nextSearch && (
          <a href={`/dashboard/audit?${nextSearch}`} rel="next">
            {t.common.next}
          </a>
        )}
      </nav>
    </>,
  )
}

function AuditFilter({ page, query }: { page: PageContext; query: Query }) {
  const { t } = page
  return (
    <form method="get" action="/dashboard/audit" class="inline" aria-label={t.audit.filters}>
      <label for="audit-action">{t.audit.action}</label>
      <input id="audit-action" name="action" value={query.action ?? ''} />
      <label for="audit-actor">{t.audit.actor}</label>
      <input id="audit-actor" name="actor" value={query.actor ?? ''} />
      <label for="audit-from">{t.common.from}</label>
      <input id="audit-from" name="from" type="date" value={query.from ?? ''} />
      <label for="audit-to">{t.common.to}</label>
      <input id="audit-to" name="to" type="date" value={query.to ?? ''} />
      <button type="submit">{t.common.apply}</button>
    </form>
  )
}

function AuditTable({ page, result }: { page: PageContext; result: AuditPage }) {
  const { t } = page
  if (result.entries.length === 0) return <p class="muted">{t.audit.none}</p>
  const zone = page.member?.timeZone ?? 'UTC'
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">{t.common.when}</th>
          <th scope="col">{t.audit.who}</th>
          <th scope="col">{t.audit.what}</th>
          <th scope="col">{t.audit.target}</th>
          <th scope="col">{t.audit.address}</th>
          <th scope="col">{t.audit.before}</th>
          <th scope="col">{t.audit.after}</th>
        </tr>
      </thead>
      <tbody>
        {result.entries.map((entry) => (
          <tr key={entry.id} data-audit={entry.action}>
            <th scope="row">{formatInstant(entry.atUs, page.locale, zone)}</th>
            <td>{entry.actorLabel}</td>
            <td>{entry.action}</td>
            <td>{entry.target}</td>
            <td>{entry.address ?? ''}</td>
            <td>
              <code>{entry.before ?? ''}</code>
            </td>
            <td>
              <code>{entry.after ?? ''}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
