import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { homeLinks, homeStyleHash, homeSummary, renderHomePage } from '../pages/home-page.ts'
import { pageHeaders } from '../pages/html.ts'

/**
 * GET /: where a person who opened Sika's address in a browser goes next (a small page), or, for
 * a client that asks for JSON, the same pointers as JSON.
 */
export function homeRoutes(app: FastifyInstance): void {
  const page = renderHomePage()
  const json = {
    name: 'Sika',
    description: homeSummary,
    links: Object.fromEntries(homeLinks.map(({ name, path }) => [name, path])),
  }
  app.get('/', { schema: { hide: true } }, async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('vary', 'accept')
    if (prefersJson(request.headers.accept))
      return reply.header('x-content-type-options', 'nosniff').header('cache-control', 'no-store').send(json)
    return reply.headers(pageHeaders(homeStyleHash)).send(page)
  })
}

/**
 * Whether the Accept header ranks JSON above HTML. At equal quality the type named more exactly
 * wins ("application/json, text/plain, any type" asks for JSON); a full tie, as no header or any
 * type alone, is the page.
 */
export function prefersJson(accept: string | undefined): boolean {
  if (!accept) return false
  const ranges = accept.split(',').map((part) => {
    const [range = '', ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase())
    const quality = parameters.find((parameter) => parameter.startsWith('q='))
    const q = quality === undefined ? 1 : Number(quality.slice(2))
    return { range, q: Number.isFinite(q) ? q : 0 }
  })
  const json = qualityOf('application/json', ranges)
  const html = qualityOf('text/html', ranges)
  return json.q > html.q || (json.q === html.q && json.q > 0 && json.exactness > html.exactness)
}

/** The quality given by the most exact range that matches the type: type/subtype, then type/*, then any. */
function qualityOf(mediaType: string, ranges: { range: string; q: number }[]) {
  const [type] = mediaType.split('/')
  const candidates = [mediaType, `${type}/*`, '*/*']
  for (const [index, candidate] of candidates.entries()) {
    const found = ranges.find(({ range }) => range === candidate)
    if (found) return { q: found.q, exactness: candidates.length - index }
  }
  return { q: 0, exactness: 0 }
}
