import { createHash } from 'node:crypto'

/** Text as HTML: every value a page shows goes through this, whoever supplied it. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`)
}

/** The hash by which a page's Content-Security-Policy allows its one inline stylesheet. */
export function styleHashOf(css: string): string {
  return `sha256-${createHash('sha256').update(css).digest('base64')}`
}

/**
 * The headers of every page for people: no script at all, no outside origin, one stylesheet by
 * its hash, forms only to this origin (and the origins given), never framed, no referrer.
 */
export function pageHeaders(styleHash: string, formTargets: readonly string[] = []): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': `default-src 'none'; style-src '${styleHash}'; form-action 'self'${formTargets.map((target) => ` ${target}`).join('')}; frame-ancestors 'none'; base-uri 'none'`,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  }
}
