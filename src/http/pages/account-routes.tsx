import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ComponentChildren } from 'preact'
import type { AppContext } from '../../app/context.ts'
import { isRefusal } from '../../app/dashboard/refusals.ts'
import {
  type AccountHolder,
  accountViewOf,
  changeOwnPassword,
  endOwnSessionOf,
  renewOwnRecoveryCodes,
  replaceOwnAuthenticator,
  setOwnTimeZone,
} from '../../app/sign-in/account.ts'
import type { AccountRow, AccountSessionRow, LiveSessionOf } from '../../app/sign-in/account-book.ts'
import type { AnyAccountBook } from '../../app/sign-in/secrets.ts'
import type { PageContext } from '../dashboard/layout.tsx'
import { redirect, sendPage } from '../dashboard/respond.ts'
import { type AccountOutcome, AccountSections } from './account-page.tsx'
import type { AreaGuard, SignedInOf } from './session-guard.tsx'
import { sendLockedOutOf } from './sign-in-routes.tsx'

type Live<R extends string> = LiveSessionOf<AccountRow & { role: R }, AccountSessionRow>
type Form = Record<string, string | undefined>

/**
 * Where a member's own account page lives: the area's path and guard, its kind of account's book,
 * its page frame and its words for the member's role. Every role of the area has the page.
 */
export interface AccountArea<R extends string, P extends string> {
  base: string
  /** Where the sign-in page sends a member locked out here once they sign in again. */
  home: string
  guard: AreaGuard<R, P, Live<R>>
  /** A permission every role of the area holds. */
  permission: P
  book: AnyAccountBook
  frame(page: PageContext<R>, title: string, content: ComponentChildren): string
  roleName(page: PageContext<R>, role: R): string
  intro?(page: PageContext<R>): string
}

/** `<base>/account` and its forms, each behind the area's guard and CSRF check. */
export function accountRoutesOf<R extends string, P extends string>(
  app: FastifyInstance,
  context: AppContext,
  area: AccountArea<R, P>,
): void {
  const { guard } = area
  const path = `${area.base}/account`
  const show = accountShower(context, area)
  const lockedOut = (request: FastifyRequest, reply: FastifyReply) =>
    sendLockedOutOf(guard, request, reply, area.home, area.base)
  /** A form of the page: the member it serves, the address it comes from, and its fields. */
  const post = (
    action: string,
    work: (
      request: FastifyRequest,
      reply: FastifyReply,
      signedIn: SignedInOf<R, Live<R>>,
      holder: AccountHolder<AccountRow, AccountSessionRow>,
      form: Form,
    ) => Promise<FastifyReply>,
  ) =>
    app.post(`${path}/${action}`, async (request, reply) => {
      const signedIn = await guard.member(request, reply, area.permission)
      if (!signedIn) return reply
      const holder = { live: signedIn.live, address: request.ip }
      return work(request, reply, signedIn, holder, (request.body ?? {}) as Form)
    })

  app.get(path, async (request, reply) => {
    const signedIn = await guard.member(request, reply, area.permission)
    return signedIn ? show(reply, signedIn, {}) : reply
  })
  post('password', async (request, reply, signedIn, holder, form) => {
    const input = { current: form.current ?? '', next: form.password ?? '' }
    const changed = await changeOwnPassword(context, area.book, holder, input)
    if (isRefusal(changed) && changed.refused === 'account_locked') return lockedOut(request, reply)
    const { t } = signedIn.page
    return show(
      reply,
      signedIn,
      isRefusal(changed) ? { refusal: changed } : { notice: t.account.passwordChanged },
    )
  })
  post('recovery-codes', async (request, reply, signedIn, holder, form) => {
    const codes = await renewOwnRecoveryCodes(context, area.book, holder, form.code ?? '')
    if (isRefusal(codes) && codes.refused === 'account_locked') return lockedOut(request, reply)
    return show(reply, signedIn, isRefusal(codes) ? { refusal: codes } : { recoveryCodes: codes })
  })
  post('authenticator', async (request, reply, signedIn, holder, form) => {
    const replaced = await replaceOwnAuthenticator(context, area.book, holder, form.code ?? '')
    if (isRefusal(replaced) && replaced.refused === 'account_locked') return lockedOut(request, reply)
    if (isRefusal(replaced)) return show(reply, signedIn, { refusal: replaced })
    return redirect(reply, `${area.base}/enrol?next=${encodeURIComponent(path)}`)
  })
  post('time-zone', async (_request, reply, signedIn, holder, form) => {
    const zone = form.timeZone ?? ''
    const { t } = signedIn.page
    if ((await setOwnTimeZone(context, area.book, holder, zone)) !== true)
      return show(reply, signedIn, { error: t.account.timeZoneInvalid })
    if (signedIn.page.member) signedIn.page.member.timeZone = zone
    return show(reply, signedIn, { notice: t.account.timeZoneSaved })
  })
  post('sessions/end', async (_request, reply, signedIn, holder, form) => {
    const sessionId = form.sessionId ?? ''
    const ended = await endOwnSessionOf(context, area.book, holder, sessionId)
    if (ended === true && sessionId === signedIn.live.session.id) {
      guard.clearSession(reply)
      return redirect(reply, `${area.base}/login`)
    }
    const { t } = signedIn.page
    return show(reply, signedIn, isRefusal(ended) ? { refusal: ended } : { notice: t.account.sessionEnded })
  })
}

/** The page, with what the last form did. */
function accountShower<R extends string, P extends string>(context: AppContext, area: AccountArea<R, P>) {
  return async (reply: FastifyReply, signedIn: SignedInOf<R, Live<R>>, outcome: AccountOutcome) => {
    const view = await accountViewOf(context, area.book, signedIn.live)
    const { page, live } = signedIn
    const { member } = live
    const parts = {
      base: area.base,
      member: { name: member.name, email: member.email, role: area.roleName(page, member.role) },
      currentSessionId: live.session.id,
      view,
      outcome,
      intro: area.intro?.(page),
    }
    const body = <AccountSections page={page} parts={parts} />
    return sendPage(reply, statusOf(reply, outcome), area.frame(page, page.t.account.title, body))
  }
}

/** A refused form is a 400; an address that failed too often a 429, no place to check a password a 503. */
function statusOf(reply: FastifyReply, outcome: AccountOutcome): number {
  if (outcome.refusal?.refused === 'address_throttled') return 429
  if (outcome.refusal?.refused === 'password_checks_busy') {
    reply.header('retry-after', '1')
    return 503
  }
  return outcome.refusal !== undefined || outcome.error !== undefined ? 400 : 200
}
