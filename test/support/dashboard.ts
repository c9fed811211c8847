import { generate } from 'otplib'
import { Agent, type Dispatcher, FormData, fetch } from 'undici'
import { inviteMember } from '../../src/app/dashboard/invitations.ts'
import { isRefusal } from '../../src/app/dashboard/refusals.ts'
import type { Role } from '../../src/domain/roles.ts'
import type { TestApp } from './app.ts'

/** A page as a browser would get it: status, headers, text, and the cookies it set. */
export interface DashboardAnswer {
  status: number
  headers: Headers
  text: string
  location: string | null
}

const agents = new Map<string, Agent>()

/** Requests from a loopback address of their own (127.0.0.0/8): the server sees another client. */
function agentFrom(address: string): Agent {
  let agent = agents.get(address)
  if (!agent) {
    agent = new Agent({ localAddress: address })
    agents.set(address, agent)
  }
  return agent
}

/**
 * A person using the dashboard over real HTTP: a cookie jar, no redirect followed on their behalf;
 * from 127.0.0.1, or from the loopback address given (per-address limits then count it apart).
 */
export class DashboardBrowser {
  readonly cookies = new Map<string, string>()
  private readonly dispatcher: Dispatcher | undefined
  constructor(
    readonly app: TestApp,
    from?: string,
  ) {
    this.dispatcher = from === undefined ? undefined : agentFrom(from)
  }

  get cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<DashboardAnswer> {
    return this.send('GET', path, undefined, headers)
  }

  /** A form POST; `csrf` is added from the last page unless the form gives one. */
  async post(
    path: string,
    form: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<DashboardAnswer> {
    return this.send('POST', path, new URLSearchParams(form).toString(), {
      'content-type': 'application/x-www-form-urlencoded',
      ...headers,
    })
  }

  /** A multipart form POST, as a form with a file input sends it; `files` maps a field to a file's name and text. */
  async postMultipart(
    path: string,
    fields: Record<string, string>,
    files: Record<string, { name: string; text: string }> = {},
  ): Promise<DashboardAnswer> {
    const form = new FormData()
    for (const [name, value] of Object.entries(fields)) form.set(name, value)
    for (const [name, file] of Object.entries(files))
      form.set(name, new Blob([file.text], { type: 'text/csv' }), file.name)
    return this.send('POST', path, form, {})
  }

  private async send(
    method: string,
    path: string,
    body: string | FormData | undefined,
    headers: Record<string, string>,
  ) {
    const response = await fetch(`${this.app.url}${path}`, {
      method,
      body,
      redirect: 'manual',
      headers: { ...(this.cookies.size > 0 ? { cookie: this.cookieHeader } : {}), ...headers },
      ...(this.dispatcher ? { dispatcher: this.dispatcher } : {}),
    })
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const [name = '', ...value] = pair.split('=')
      if (/Max-Age=0\b/.test(line)) this.cookies.delete(name)
      else this.cookies.set(name, value.join('='))
    }
    return {
      status: response.status,
      headers: response.headers,
      text: await response.text(),
      location: response.headers.get('location'),
    }
  }
}

/** The value of the hidden `csrf` field of a page's first form (or the form whose action is given). */
export function csrfIn(html: string, action?: string): string {
  const form = action ? html.slice(html.indexOf(`action="${action}"`)) : html
  const found = /name="csrf" value="([^"]*)"/.exec(form)
  if (!found?.[1]) throw new Error(`no CSRF field in the page${action ? ` for ${action}` : ''}`)
  return found[1]
}

export interface SignedInMember {
  browser: DashboardBrowser
  email: string
  password: string
  /** The authenticator's secret, to compute codes as the member's phone would. */
  totpSecret: string
  recoveryCodes: string[]
  merchantId: string
  /** A CSRF token of this session, read from a page. */
  csrf: string
}

let members = 0

/** A TOTP code for the secret, at the real time or at `atMs`. */
export function totpCode(secret: string, atMs = Date.now()): Promise<string> {
  return generate({ secret, epoch: Math.floor(atMs / 1000) })
}

/** A code of the next 30-second step: a member who just used the current one waits for it. */
export function nextTotpCode(secret: string): Promise<string> {
  return totpCode(secret, Date.now() + 30_000)
}

/**
 * A member invited as the CLI invites, who accepts the invitation, enrols an authenticator and
 * lands signed in, all through the dashboard's own pages.
 */
export async function signedInMember(
  app: TestApp,
  options: { role: Role; merchantId?: string; email?: string; password?: string; name?: string },
): Promise<SignedInMember> {
  const merchantId = options.merchantId ?? (await app.createMerchant('Dashboard merchant')).id
  members += 1
  const email = options.email ?? `member${members}.${process.pid}@merchant.example`
  const password = options.password ?? 'correct horse battery staple'
  const invitation = await inviteMember(app.context, { kind: 'cli' }, merchantId, {
    email,
    role: options.role,
  })
  if (isRefusal(invitation)) throw new Error(`invitation refused: ${invitation.refused}`)
  const browser = new DashboardBrowser(app)
  const path = new URL(invitation.invitationUrl).pathname
  const form = await browser.get(path)
  const accepted = await browser.post(path, {
    csrf: csrfIn(form.text),
    name: options.name ?? 'Awa Diop',
    password,
  })
  if (accepted.status !== 303) throw new Error(`accepting answered ${accepted.status}: ${accepted.text}`)
  const enrolment = await browser.get('/dashboard/enrol')
  const totpSecret = /data-setup-key[^>]*>([A-Z2-7]+)</.exec(enrolment.text)?.[1]
  if (!totpSecret) throw new Error('no setup key on the enrolment page')
  const confirmed = await browser.post('/dashboard/enrol', {
    csrf: csrfIn(enrolment.text),
    code: await totpCode(totpSecret),
  })
  if (confirmed.status !== 200) throw new Error(`enrolment answered ${confirmed.status}: ${confirmed.text}`)
  const recoveryCodes = [...confirmed.text.matchAll(/<li>([0-9a-z]{4}-[0-9a-z]{4})<\/li>/g)].map(
    (match) => match[1] ?? '',
  )
  const home = await browser.get('/dashboard/sandbox')
  return { browser, email, password, totpSecret, recoveryCodes, merchantId, csrf: csrfIn(home.text) }
}
