import type { FastifyReply } from 'fastify'

/**
 * The headers of every dashboard page: no script at all, styles and images only from Sika itself
 * (the QR code is a data: image), forms only to this origin, never framed.
 */
export const dashboardHeaders: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
}

export function sendPage(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply.code(status).headers(dashboardHeaders).send(html)
}

/**
 * A path of an area of pages (`/dashboard`, `/console`) that a link asks to go to (`next=`,
 * `back=`), or `fallback`: only `base` and the paths under it, in the printable ASCII a Location
 * header carries (a browser sends the rest percent-encoded), never another origin.
 */
export function areaPath(base: string, text: string | undefined, fallback: string): string {
  if (text === undefined || text.includes('\\') || !text.startsWith(base)) return fallback
  return /^(?:[/?][\x21-\x7e]*)?$/.test(text.slice(base.length)) ? text : fallback
}

export function redirect(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header('location', location).send()
}
