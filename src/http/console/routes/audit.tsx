import type { FastifyInstance } from 'fastify'
import { platformAuditPage } from '../../../app/console/platform-audit.ts'
import type { AppContext } from '../../../app/context.ts'
import type { PlatformAuditEntry } from '../../../store/repositories/platform-audit-log.ts'
import { formatInstant } from '../../dashboard/format.ts'
import { sendPage } from '../../dashboard/respond.ts'
import type { ConsoleGuard } from '../guard.ts'
import { type ConsolePage, consolePage } from '../layout.tsx'
import { consoleMessagesOf } from '../messages/catalogue.ts'

/** The platform audit log: every role reads it, a page at a time, newest first; nobody changes it. */
export function consoleAuditRoutes(app: FastifyInstance, context: AppContext, guard: ConsoleGuard): void {
  app.get('/console/audit', async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'read')
    if (!signedIn) return reply
    const { after } = request.query as { after?: string }
    const shown = await platformAuditPage(context, after)
    return sendPage(reply, 200, auditPage(signedIn.page, shown, after !== undefined))
  })
}

function auditPage(
  page: ConsolePage,
  shown: { entries: PlatformAuditEntry[]; next?: string },
  paged: boolean,
): string {
  const words = consoleMessagesOf(page.locale)
  const zone = page.member?.timeZone ?? 'UTC'
  return consolePage(
    page,
    words.audit.title,
    <>
      {shown.entries.length === 0 ? (
        <p>{words.audit.none}</p>
      ) : (
        <table>
          <caption>{words.audit.caption}</caption>
          <thead>
            <tr>
              <th scope="col">{words.audit.when}</th>
              <th scope="col">{words.audit.who}</th>
              <th scope="col">{words.audit.action}</th>
              <th scope="col">{words.audit.target}</th>
              <th scope="col">{words.audit.before}</th>
              <th scope="col">{words.audit.after}</th>
              <th scope="col">{words.audit.address}</th>
            </tr>
          </thead>
          <tbody>
            {shown.entries.map((entry) => (
              <tr key={entry.id}>
                <td>{formatInstant(entry.atUs, page.locale, zone)}</td>
                <td>{entry.actorLabel}</td>
                <td>
                  <code>{entry.action}</code>
                </td>
                <td>{entry.target}</td>
                <td>{entry.before && <code>{entry.before}</code>}</td>
                <td>{entry.after && <code>{entry.after}</code>}</td>
                <td>{entry.address ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {(shown.next || paged) && (
        <nav aria-label={words.audit.pages}>
          <ul class="pages">
            {paged && (
              <li>
                <a href="/console/audit">{words.audit.first}</a>
              </li>
            )}
            {shown.next && (
              <li>
                <a href={`/console/audit?after=${encodeURIComponent(shown.next)}`}>{words.audit.next}</a>
              </li>
            )}
          </ul>
        </nav>
      )}
    </>,
  )
}
