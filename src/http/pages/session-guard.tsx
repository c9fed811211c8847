import { createHmac, randomBytes } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../../app/context.ts'
import type { AccountRow, AccountSessionRow, LiveSessionOf } from '../../app/sign-in/account-book.ts'
import type { SessionClient } from '../../app/sign-in/sessions.ts'
import type { Mode } from '../../domain/kinds.ts'
import { type PageContext, plainPage } from '../dashboard/layout.tsx'
import { type Locale, localeOf, type Messages } from '../dashboard/messages/catalogue.ts'
import { sendPage } from '../dashboard/respond.ts'
import { readCookie, sameText } from './cookies.ts'

/**
 * An area of pages behind a sign-in: the dashboard (a merchant's members) or the console (the
 * platform's). Each has its own path, cookies, CSRF key, sessions and roles, so a session of one
 * is nothing to the other: its cookie is not sent there, and its token names no session there.
 */
/** A live session whose member holds a role of the area. */
type LiveIn<R extends string> = LiveSessionOf<AccountRow & { role: R }, AccountSessionRow>

export interface SignInArea<R extends string, P extends string, L extends LiveIn<R>> {
  /** '/dashboard' or '/console': every cookie of the area is scoped to it. */
  base: string
  sessionCookie: string
  /** The nonce behind the forms shown before a session exists (sign-in, an invitation). */
  formCookie: string
  languageCookie: string
  /** The name the CSRF key is derived under from the secrets key. */
  csrfKeyName: string
  resolve(context: AppContext, token: string): Promise<L | undefined>
  may(role: R, permission: P): boolean
  messages(locale: Locale): Messages
}

/** What a guarded route has: the live session, and the page context built from it. */
export interface SignedInOf<R extends string, L> {
  live: L
  page: PageContext<R>
}

export interface AreaGuard<
  R extends string,
  P extends string,
  L extends LiveSessionOf<AccountRow, AccountSessionRow>,
> {
  /** The signed-in member allowed `permission`, or undefined once the reply is sent (sign-in page, 403). */
  member(
    request: FastifyRequest,
    reply: FastifyReply,
    permission: P,
    mode?: Mode,
  ): Promise<SignedInOf<R, L> | undefined>
  /**
   * Before a POST's body is read (a file upload): the signed-in member allowed `permission`, on a
   * request from this origin, or undefined once the reply is sent (sign-in page, 403) with the
   * connection closed, so that the body is never read. Its CSRF token is still to be checked.
   */
  memberBeforeBody(
    request: FastifyRequest,
    reply: FastifyReply,
    permission: P,
    mode?: Mode,
  ): Promise<SignedInOf<R, L> | undefined>
  /** A session part way through signing in (the code step, the enrolment). */
  partial(request: FastifyRequest, stage: 'second-factor' | 'enrolment'): Promise<L | undefined>
  /** The session the cookie names, whatever its stage (signing out). */
  current(request: FastifyRequest): Promise<L | undefined>
  /**
   * True when a POST carries this session's CSRF token (its form's `csrf`, or `given`, read before
   * the body) and comes from this origin; sends the 403 otherwise.
   */
  checkForm(request: FastifyRequest, reply: FastifyReply, sessionId: string, given?: string): boolean
  /** True when a POST comes from this origin (or says nothing of it); sends the 403 otherwise. */
  checkOrigin(request: FastifyRequest, reply: FastifyReply): boolean
  /** A form shown with no session: its token, with the cookie it is checked against. */
  anonymousForm(reply: FastifyReply): string
  checkAnonymousForm(request: FastifyRequest, reply: FastifyReply): boolean
  csrfOf(sessionId: string): string
  setSession(reply: FastifyReply, token: string): void
  clearSession(reply: FastifyReply): void
  pageOf(request: FastifyRequest, extra?: Partial<PageContext<R>>): PageContext<R>
  clientOf(request: FastifyRequest): SessionClient
  /** The area's language cookie, as the language switch sets it. */
  languageCookie(locale: Locale): string
}

export function createAreaGuard<R extends string, P extends string, L extends LiveIn<R>>(
  context: AppContext,
  area: SignInArea<R, P, L>,
): AreaGuard<R, P, L> {
  const csrfKey = context.secrets.derive(area.csrfKeyName)
  const secure = context.config.publicBaseUrl.startsWith('https:')
  const ownOrigin = new URL(context.config.publicBaseUrl).origin
  const cookie = (name: string, value: string, maxAgeSeconds: number) =>
    `${name}=${value}; Path=${area.base}; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`
  const csrfOf = (sessionId: string) => createHmac('sha256', csrfKey).update(sessionId).digest('base64url')

  const pageOf = (request: FastifyRequest, extra: Partial<PageContext<R>> = {}): PageContext<R> => {
    const locale = localeOf(
      readCookie(request.headers.cookie, area.languageCookie),
      request.headers['accept-language'],
    )
    const base = area.base === '/dashboard' ? {} : { base: area.base }
    return { locale, t: area.messages(locale), path: request.url, ...base, ...extra }
  }

  const fromThisOrigin = (request: FastifyRequest) => {
    const origin = request.headers.origin
    if (origin === undefined) return true
    return origin === ownOrigin || origin === `${request.protocol}://${request.headers.host}`
  }

  const refuseForm = (request: FastifyRequest, reply: FastifyReply) => {
    const page = pageOf(request)
    sendPage(reply, 403, plainPage(page, page.t.errors.csrfTitle, <p class="error">{page.t.errors.csrf}</p>))
    return false
  }

  const sessionToken = (request: FastifyRequest) =>
    readCookie(request.headers.cookie, area.sessionCookie) ?? ''

  const guard: AreaGuard<R, P, L> = {
    member(request, reply, permission, mode) {
      return signedInMember(guard, area, { context, request, reply, permission, mode, beforeBody: false })
    },
    memberBeforeBody(request, reply, permission, mode) {
      // A refusal here ends the connection when the body it announced is large: that body is never
      // read. A small one is drained, so the client hears the answer rather than a reset.
      if (!bodyIsSmall(request)) reply.header('connection', 'close')
      return signedInMember(guard, area, { context, request, reply, permission, mode, beforeBody: true })
    },
    async partial(request, stage) {
      const live = await area.resolve(context, sessionToken(request))
      return live?.session.stage === stage ? live : undefined
    },
    current: (request) => area.resolve(context, sessionToken(request)),
    checkForm(request, reply, sessionId, given = (request.body as Record<string, string> | undefined)?.csrf) {
      if (fromThisOrigin(request) && sameText(given ?? '', csrfOf(sessionId))) return true
      return refuseForm(request, reply)
    },
    checkOrigin(request, reply) {
      return fromThisOrigin(request) || refuseForm(request, reply)
    },
    anonymousForm(reply) {
      const nonce = randomBytes(16).toString('base64url')
      reply.header('set-cookie', cookie(area.formCookie, nonce, 3600))
      return csrfOf(`form:${nonce}`)
    },
    checkAnonymousForm(request, reply) {
      const nonce = readCookie(request.headers.cookie, area.formCookie)
      const given = (request.body as Record<string, string> | undefined)?.csrf ?? ''
      if (nonce && fromThisOrigin(request) && sameText(given, csrfOf(`form:${nonce}`))) return true
      return refuseForm(request, reply)
    },
    csrfOf,
    setSession(reply, token) {
      reply.header('set-cookie', cookie(area.sessionCookie, token, 12 * 3600))
    },
    clearSession(reply) {
      reply.header('set-cookie', cookie(area.sessionCookie, '', 0))
    },
    pageOf,
    clientOf(request) {
      return { address: request.ip, userAgent: String(request.headers['user-agent'] ?? '') }
    },
    languageCookie: (locale) =>
      `${area.languageCookie}=${locale}; Path=${area.base}; SameSite=Lax; Max-Age=31536000`,
  }
  return guard
}

/** The member a guarded route serves, or the reply that says why not (sign-in page, 403). */
async function signedInMember<R extends string, P extends string, L extends LiveIn<R>>(
  guard: AreaGuard<R, P, L>,
  area: SignInArea<R, P, L>,
  asked: {
    context: AppContext
    request: FastifyRequest
    reply: FastifyReply
    permission: P
    mode: Mode | undefined
    /** Before the body is read: the CSRF token is checked later, the origin now. */
    beforeBody: boolean
  },
): Promise<SignedInOf<R, L> | undefined> {
  const { context, request, reply, permission, mode, beforeBody } = asked
  const live = await area.resolve(context, readCookie(request.headers.cookie, area.sessionCookie) ?? '')
  if (live?.session.stage !== 'signed-in' || !live) {
    const next = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : ''
    reply.code(303).header('location', `${area.base}/login${next}`).send()
    return undefined
  }
  const { member } = live
  const page = guard.pageOf(request, {
    member: { name: member.name, email: member.email, role: member.role, timeZone: member.timeZone },
    csrf: guard.csrfOf(live.session.id),
    ...(mode ? { mode } : {}),
  })
  if (!area.may(member.role, permission)) {
    const { t } = page
    sendPage(reply, 403, plainPage(page, t.errors.forbiddenTitle, <p class="error">{t.errors.forbidden}</p>))
    return undefined
  }
  if (request.method !== 'POST') return { live, page }
  // Before the body only the origin can be checked; its token is checked as the body is read.
  const checked = beforeBody
    ? guard.checkOrigin(request, reply)
    : guard.checkForm(request, reply, live.session.id)
  return checked ? { live, page } : undefined
}

/** Bodies this small are read to their end after a refusal, so that the connection can answer it. */
const drainedBodyLimitBytes = 64 * 1024

/** Whether the request announced a body small enough to drain (a length, not a stream). */
export function bodyIsSmall(request: FastifyRequest): boolean {
  const length = Number(request.headers['content-length'])
  return Number.isSafeInteger(length) && length <= drainedBodyLimitBytes
}
