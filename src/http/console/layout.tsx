import type { ComponentChildren } from 'preact'
import { type PlatformPermission, type PlatformRole, platformMay } from '../../domain/platform-roles.ts'
import { documentOf, LanguageSwitch, type PageContext } from '../dashboard/layout.tsx'
import { consoleMessagesOf } from './messages/catalogue.ts'

/** A console page's context: the dashboard's, with a platform member. */
export type ConsolePage = PageContext<PlatformRole>

export function consoleAllows(page: ConsolePage, permission: PlatformPermission): boolean {
  return page.member !== undefined && platformMay(page.member.role, permission)
}

/** A page of a signed-in platform member: the top bar with the console's navigation, then the content. */
export function consolePage(page: ConsolePage, title: string, content: ComponentChildren): string {
  return documentOf(
    page,
    title,
    <>
      <ConsoleTopBar page={page} />
      <main id="content">
        <h1>{title}</h1>
        {content}
      </main>
    </>,
  )
}

/** Every area of the console, in the order of its navigation. */
export function consoleSections(page: ConsolePage): { href: string; text: string }[] {
  const { nav } = consoleMessagesOf(page.locale)
  return [
    { href: '/console', text: nav.overview },
    { href: '/console/merchants', text: nav.merchants },
    { href: '/console/operations', text: nav.operations },
    { href: '/console/operator-accounts', text: nav.operatorAccounts },
    { href: '/console/reconciliation', text: nav.reconciliation },
    { href: '/console/team', text: nav.team },
    { href: '/console/audit', text: nav.audit },
  ]
}

function ConsoleTopBar({ page }: { page: ConsolePage }) {
  const { t, member } = page
  const words = consoleMessagesOf(page.locale)
  const current = page.path.split('?')[0]
  return (
    <header class="top">
      <a class="brand" href="/console">
        {words.product}
      </a>
      <nav class="main" aria-label={words.nav.label}>
        <ul>
          {consoleSections(page).map(({ href, text }) => (
            <li key={href}>
              <a href={href} aria-current={current === href ? 'page' : undefined}>
                {text}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <LanguageSwitch page={page} />
      {member && <span class="who">{t.common.signedInAs(member.name, words.roles[member.role])}</span>}
      {member && (
        <a href="/console/account" aria-current={current === '/console/account' ? 'page' : undefined}>
          {words.nav.account}
        </a>
      )}
      {page.csrf && (
        <form method="post" action="/console/logout">
          <input type="hidden" name="csrf" value={page.csrf} />
          <button type="submit">{t.common.signOut}</button>
        </form>
      )}
    </header>
  )
}
