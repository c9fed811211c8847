import type { ComponentChildren } from 'preact'
import { render } from 'preact-render-to-string'
import type { Mode } from '../../domain/kinds.ts'
import { may, type Permission, type Role } from '../../domain/roles.ts'
import type { Locale, Messages } from './messages/catalogue.ts'

/**
 * What every page knows of the request: the language, and the member when one is signed in (of a
 * merchant by default; the console's pages name the platform's roles).
 */
export interface PageContext<R extends string = Role> {
  locale: Locale
  t: Messages
  /** The path asked for, with its query: the language switch comes back to it. */
  path: string
  /** The area the page is in, '/dashboard' when absent: its language switch and sign-out are its own. */
  base?: string
  member?: { name: string; email: string; role: R; timeZone: string }
  /** The place a merchant page is in; absent on pages of neither (team, account, audit, sign-in). */
  mode?: Mode
  /** The current session's CSRF token, for every form that changes anything. */
  csrf?: string
}

export function allows(page: PageContext, permission: Permission): boolean {
  return page.member !== undefined && may(page.member.role, permission)
}

/** A whole HTML document: one stylesheet, no script. */
export function documentOf(page: PageContext<string>, title: string, body: ComponentChildren): string {
  return `<!doctype html>${render(
    <html lang={page.locale}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · ${page.t.common.product}`}</title>
        <link rel="stylesheet" href="/dashboard/assets/dashboard.css" />
      </head>
      <body>
        <a class="skip" href="#content">
          {page.t.common.skipToContent}
        </a>
        {body}
      </body>
    </html>,
  )}`
}

/** A page of a signed-in member: the top bar, the banner of its place, the navigation, then the content. */
export function memberPage(page: PageContext, title: string, content: ComponentChildren): string {
  return documentOf(
    page,
    title,
    <>
      <TopBar page={page} />
      {page.mode && <ModeBanner page={page} mode={page.mode} />}
      <main id="content">
        <h1>{title}</h1>
        {content}
      </main>
    </>,
  )
}

/** A page before sign-in (or of an error): the product's name, the language switch, the content. */
export function plainPage(page: PageContext<string>, title: string, content: ComponentChildren): string {
  return documentOf(
    page,
    title,
    <>
      <header class="top">
        <span class="brand">{page.t.common.product}</span>
        <LanguageSwitch page={page} />
      </header>
      <main id="content" class="narrow">
        <h1>{title}</h1>
        {content}
      </main>
    </>,
  )
}

function TopBar({ page }: { page: PageContext }) {
  const { t, member } = page
  const mode = page.mode ?? 'sandbox'
  const link = (href: string, text: string) => (
    <li>
      <a href={href} aria-current={page.path.split('?')[0] === href ? 'page' : undefined}>
        {text}
      </a>
    </li>
  )
  return (
    <header class="top">
      <a class="brand" href={`/dashboard/${mode}`}>
        {t.common.product}
      </a>
      <nav class="main" aria-label={t.nav.label}>
        <ul>
          {link(`/dashboard/${mode}`, t.nav.home)}
          {link(`/dashboard/${mode}/operations`, t.nav.operations)}
          {link(`/dashboard/${mode}/balance`, t.nav.balance)}
          {link(`/dashboard/${mode}/payout-batches`, t.nav.payoutBatches)}
          {link(`/dashboard/${mode}/payment-links`, t.nav.paymentLinks)}
          {allows(page, 'keys') && link(`/dashboard/${mode}/developers`, t.nav.developers)}
          {link('/dashboard/team', t.nav.team)}
          {link('/dashboard/audit', t.nav.audit)}
          {allows(page, 'settings') && link('/dashboard/settings', t.nav.settings)}
          {link('/dashboard/account', t.nav.account)}
        </ul>
      </nav>
      {page.mode && (
        <a href={switchedPath(page.path, page.mode)}>
          {t.common.switchTo(page.mode === 'sandbox' ? t.common.live : t.common.sandbox)}
        </a>
      )}
      <LanguageSwitch page={page} />
      {member && <span class="who">{t.common.signedInAs(member.name, t.roles[member.role])}</span>}
      {page.csrf && (
        <form method="post" action="/dashboard/logout">
          <input type="hidden" name="csrf" value={page.csrf} />
          <button type="submit">{t.common.signOut}</button>
        </form>
      )}
    </header>
  )
}

/** In a landmark of its own, so a screen reader's list of regions reaches it (axe's "region" rule). */
function ModeBanner({ page, mode }: { page: PageContext; mode: Mode }) {
  return (
    <aside aria-label={page.t.common.mode}>
      {mode === 'sandbox' ? (
        <p class="banner banner-sandbox" role="note">
          {page.t.common.sandboxBanner}
        </p>
      ) : (
        <p class="banner banner-live" role="note">
          {page.t.common.liveBanner}
        </p>
      )}
    </aside>
  )
}

export function LanguageSwitch({ page }: { page: PageContext<string> }) {
  const { t } = page
  const back = encodeURIComponent(page.path)
  return (
    <a
      class="lang"
      href={`${page.base ?? '/dashboard'}/language?lang=${t.language.otherCode}&back=${back}`}
      lang={t.language.otherCode}
    >
      {t.language.other}
    </a>
  )
}

/** The same page in the other place: a token of one mode names nothing in the other, so lists go to the home. */
function switchedPath(path: string, mode: Mode): string {
  const other = mode === 'sandbox' ? 'live' : 'sandbox'
  const [, , , section] = path.split('?')[0]?.split('/') ?? []
  const keeps = ['operations', 'balance', 'developers', 'payout-batches', 'payment-links'].includes(
    section ?? '',
  )
  return keeps && path.split('/').length === 4 ? `/dashboard/${other}/${section}` : `/dashboard/${other}`
}

export function StatusBadge({ page, status }: { page: PageContext<string>; status: string }) {
  const words = page.t.statuses as Record<string, string>
  return <span class={`status status-${status}`}>{words[status] ?? status}</span>
}

/** The hidden CSRF field every form that changes anything carries. */
export function CsrfField({ page }: { page: PageContext<string> }) {
  return <input type="hidden" name="csrf" value={page.csrf ?? ''} />
}
