import assert from 'node:assert/strict'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { invitePlatformMember } from '../../src/app/console/platform-team.ts'
import { isRefusal } from '../../src/app/dashboard/refusals.ts'
import type { PlatformRole } from '../../src/domain/platform-roles.ts'
import type { TestApp } from './app.ts'
import { csrfIn, DashboardBrowser, totpCode } from './dashboard.ts'

export interface SignedInPlatformMember {
  /** The same HTTP client as the dashboard's tests: a cookie jar, no redirect followed. */
  browser: DashboardBrowser
  id: string
  email: string
  password: string
  totpSecret: string
  recoveryCodes: string[]
  /** A CSRF token of this session, read from a page. */
  csrf: string
}

let members = 0

/** Accepts an invitation to the console, enrols an authenticator and lands signed in, through the console's pages. */
export async function acceptConsoleInvitation(
  app: TestApp,
  invitationUrl: string,
  options: { password?: string; name?: string; from?: string } = {},
): Promise<Omit<SignedInPlatformMember, 'id' | 'email'>> {
  const password = options.password ?? 'correct horse battery staple'
  const browser = new DashboardBrowser(app, options.from)
  const path = new URL(invitationUrl).pathname
  const form = await browser.get(path)
  if (form.status !== 200) throw new Error(`the invitation answered ${form.status}: ${form.text}`)
  const accepted = await browser.post(path, {
    csrf: csrfIn(form.text),
    name: options.name ?? 'Ama Owusu',
    password,
  })
  if (accepted.status !== 303) throw new Error(`accepting answered ${accepted.status}: ${accepted.text}`)
  const enrolment = await browser.get('/console/enrol')
  const totpSecret = /data-setup-key[^>]*>([A-Z2-7]+)</.exec(enrolment.text)?.[1]
  if (!totpSecret) throw new Error(`no setup key on the enrolment page: ${enrolment.status}`)
  const confirmed = await browser.post('/console/enrol', {
    csrf: csrfIn(enrolment.text),
    code: await totpCode(totpSecret),
  })
  if (confirmed.status !== 200) throw new Error(`enrolment answered ${confirmed.status}: ${confirmed.text}`)
  const recoveryCodes = [...confirmed.text.matchAll(/<li>([0-9a-z]{4}-[0-9a-z]{4})<\/li>/g)].map(
    (match) => match[1] ?? '',
  )
  const home = await browser.get('/console')
  if (home.status !== 200) throw new Error(`the console's home answered ${home.status}`)
  return { browser, password, totpSecret, recoveryCodes, csrf: csrfIn(home.text) }
}

/** A platform member invited as the CLI invites, signed in to the console through its own pages. */
export async function signedInPlatformMember(
  app: TestApp,
  options: { role: PlatformRole; email?: string; from?: string },
): Promise<SignedInPlatformMember> {
  members += 1
  const email = options.email ?? `staff${members}.${process.pid}@platform.example`
  const invitation = await invitePlatformMember(app.context, { kind: 'cli' }, { email, role: options.role })
  if (isRefusal(invitation)) throw new Error(`invitation refused: ${invitation.refused}`)
  const signedIn = await acceptConsoleInvitation(app, invitation.invitationUrl, options)
  const member = await app.context.store.platformMembers.findActiveMemberByEmail(email)
  return { ...signedIn, id: member?.id ?? '', email }
}

/**
 * A page in Chromium signed in as the platform member (their console session cookie moved into a
 * browser context of its own), in the language given; its context joins `contexts` for the test's
 * after hook to close. A script error on any page fails the test: the console's pages run none.
 */
export async function openConsolePage(
  browser: Browser,
  appUrl: string,
  member: SignedInPlatformMember,
  lang: 'en' | 'fr',
  contexts: BrowserContext[],
): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    bypassCSP: true,
    locale: lang === 'fr' ? 'fr-FR' : 'en-US',
  })
  contexts.push(context)
  const url = `${appUrl}/console`
  await context.addCookies([
    { name: 'sika_console_session', value: member.browser.cookies.get('sika_console_session') ?? '', url },
    { name: 'sika_console_lang', value: lang, url },
  ])
  const page = await context.newPage()
  page.on('pageerror', (error) => assert.fail(`a script ran and failed: ${error.message}`))
  return page
}

/** The console's password step over HTTP, from a fresh cookie jar: 303 to the code step when right. */
export async function consolePasswordStep(app: TestApp, email: string, password: string, from?: string) {
  const browser = new DashboardBrowser(app, from)
  const form = await browser.get('/console/login')
  const answer = await browser.post('/console/login', { csrf: csrfIn(form.text), email, password })
  return { browser, answer }
}

/** Both steps of the console's sign-in over HTTP; the code is the authenticator's or a recovery code. */
export async function consoleSignIn(app: TestApp, email: string, password: string, code: string) {
  const { browser, answer } = await consolePasswordStep(app, email, password)
  if (answer.status !== 303) return { browser, answer }
  const codeForm = await browser.get(answer.location ?? '/console/login/code')
  return { browser, answer: await browser.post('/console/login/code', { csrf: csrfIn(codeForm.text), code }) }
}
