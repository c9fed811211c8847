import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../../app/context.ts'
import { sendPage } from '../../dashboard/respond.ts'
import type { ConsoleGuard } from '../guard.ts'
import { consolePage, consoleSections } from '../layout.tsx'
import { consoleMessagesOf } from '../messages/catalogue.ts'

/** The console's home: the overview, which lists every area of the console until its figures are shown. */
export function consoleHomeRoutes(app: FastifyInstance, _context: AppContext, guard: ConsoleGuard): void {
  app.get('/console', async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'read')
    if (!signedIn) return reply
    const { page } = signedIn
    const words = consoleMessagesOf(page.locale)
    return sendPage(
      reply,
      200,
      consolePage(
        page,
        words.overview.title,
        <>
          <p>{words.overview.intro}</p>
          <ul class="sections">
            {consoleSections(page)
              .slice(1)
              .map(({ href, text }) => (
                <li key={href}>
                  <a href={href}>{text}</a>
                </li>
              ))}
          </ul>
        </>,
      ),
    )
  })
}
