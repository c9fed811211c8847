/**
 * The merchant's URLs (callbackUrl and the outcome URLs) are read by the WHATWG URL parser, the
 * one callback delivery and the checkout's redirects use, so a URL accepted at initiation is one
 * they can use: an RFC 3986 URI such as `http://256.0.0.1/` or `http://[v1.x]/` is not one.
 */
export function parseHttpUrl(text: string): URL | undefined {
  if (!URL.canParse(text)) return undefined
  const url = new URL(text)
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined
}

/**
 * A CSP host-source (CSP Level 3, `host-char` is a letter, a digit or a hyphen): a WHATWG host
 * may also hold `;`, `*`, `'` and the like, which a policy would read as its own syntax.
 */
const cspHost = /^[a-z0-9-]+(\.[a-z0-9-]+)*$/

/**
 * The URL's origin as a CSP source expression (`https://shop.example:8443`), built from its parsed
 * parts; undefined when its host cannot be written as one (an IPv6 literal, a name holding
 * characters a policy would read as syntax), so nothing a merchant sends can add a directive.
 */
export function cspSourceOf(text: string): string | undefined {
  const url = parseHttpUrl(text)
  if (!url || !cspHost.test(url.hostname)) return undefined
  return `${url.protocol}//${url.hostname}${url.port === '' ? '' : `:${url.port}`}`
}
