import { escapeHtml, styleHashOf } from './html.ts'

/** What GET / points a person or a program to: one list, rendered as HTML or as JSON. */
export const homeLinks = [
  { name: 'docs', path: '/docs', text: 'the interactive API reference: try requests with your sandbox keys' },
  {
    name: 'dashboard',
    path: '/dashboard',
    text: "the merchants' dashboard: your team's operations, refunds, keys and audit log",
  },
  { name: 'openapi', path: '/openapi.json', text: 'the OpenAPI 3.1 document of every endpoint' },
  { name: 'health', path: '/health', text: 'liveness: answers while the process runs' },
  { name: 'ready', path: '/ready', text: 'readiness: answers 200 only while the database answers' },
] as const

export const homeSummary =
  'Sika is a payment operations API: your server calls it under /api/v1 with the api-key and secret-key headers to collect, pay out, withdraw, recharge, transfer and refund mobile money.'

const css = `
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f4f6;color:#111827}
main{max-width:40rem;margin:0 auto;padding:2rem 1rem}
.card{background:#fff;border-radius:1rem;padding:1.5rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{margin:0 0 .5rem;font-size:2rem}ul{padding-left:1.25rem}li{margin:.4rem 0}
a{color:#1d4ed8;font-weight:600}code{font-size:.95em}
`

/** The CSP allows this one stylesheet by its hash, and no script at all. */
export const homeStyleHash = styleHashOf(css)

export function renderHomePage(): string {
  const links = homeLinks
    .map(
      ({ path, text }) =>
        `<li><a href="${escapeHtml(path)}"><code>${escapeHtml(path)}</code></a>: ${escapeHtml(text)}</li>`,
    )
    .join('\n      ')
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Sika</title>
<style>${css}</style>
</head>
<body>
<main>
  <div class="card">
    <h1>Sika</h1>
    <p>${escapeHtml(homeSummary)}</p>
    <ul>
      ${links}
    </ul>
  </div>
</main>
</body>
</html>`
}
