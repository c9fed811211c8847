import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ApiError } from '../../errors.ts'
import { type PageContext, plainPage } from '../dashboard/layout.tsx'
import type { Locale } from '../dashboard/messages/catalogue.ts'
import { areaPath, redirect, sendPage } from '../dashboard/respond.ts'
import { bodyIsSmall } from './session-guard.tsx'

/** What an area's setup needs of its guard: its pages' context and its language cookie. */
interface AreaPages {
  pageOf(request: FastifyRequest): PageContext<string>
  languageCookie(locale: Locale): string
}

/**
 * An area of pages behind a sign-in (the dashboard, the console), in its own Fastify scope: out
 * of the OpenAPI document, forms parsed up to 64 KiB, every error a page of the area in its
 * language, the language switch at `<base>/language`; then the area's own pages (`pages`); and,
 * declared last, any other path under `base` a page that says nothing is there.
 */
export function registerPageArea(
  app: FastifyInstance,
  area: { base: string; name: string; guard: AreaPages },
  pages: () => void,
): void {
  const { base, name, guard } = area
  // Pages for people, not the API: none of them is part of the OpenAPI document.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true }
  })
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 64 * 1024 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  )
  app.setErrorHandler((error, request, reply) => {
    const status =
      error instanceof ApiError ? error.status : ((error as { statusCode?: number }).statusCode ?? 500)
    if (status >= 500) request.log.error({ err: error }, `${name} page failed`)
    // A large body refused unread (415: no form here takes it; 413): the connection ends with the
    // answer rather than read it all to reach the next request; a small one is drained.
    if ((status === 413 || status === 415) && !bodyIsSmall(request)) reply.header('connection', 'close')
    const page = guard.pageOf(request)
    const [title, text] =
      status === 404
        ? [page.t.errors.notFoundTitle, page.t.errors.notFound]
        : [page.t.errors.failedTitle, page.t.errors.failed]
    return sendPage(reply, status >= 400 ? status : 500, plainPage(page, title, <p class="error">{text}</p>))
  })
  app.get(`${base}/language`, async (request, reply) => {
    const { lang, back } = request.query as { lang?: string; back?: string }
    reply.header('set-cookie', guard.languageCookie(lang === 'fr' ? 'fr' : 'en'))
    return redirect(reply, areaPath(base, back, base))
  })
  pages()
  app.all(`${base}/*`, async (request, reply) => {
    const page = guard.pageOf(request)
    return sendPage(
      reply,
      404,
      plainPage(page, page.t.errors.notFoundTitle, <p class="error">{page.t.errors.notFound}</p>),
    )
  })
}
