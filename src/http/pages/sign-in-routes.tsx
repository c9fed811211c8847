import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import QRCode from 'qrcode'
import type { AppContext } from '../../app/context.ts'
import { type DashboardRefusal, isRefusal, refusal } from '../../app/dashboard/refusals.ts'
import type { AccountRow, AccountSessionRow, LiveSessionOf } from '../../app/sign-in/account-book.ts'
import { minimumPasswordLength } from '../../app/sign-in/passwords.ts'
import type { OpenedSessionOf, SessionClient } from '../../app/sign-in/sessions.ts'
import type { Enrolment } from '../../app/sign-in/sign-in.ts'
import { type PageContext, plainPage } from '../dashboard/layout.tsx'
import { RefusalNote } from '../dashboard/refusal-text.tsx'
import { areaPath, redirect, sendPage } from '../dashboard/respond.ts'
import type { AreaGuard } from './session-guard.tsx'

type Live = LiveSessionOf<AccountRow, AccountSessionRow>
type Opened = OpenedSessionOf<AccountRow, AccountSessionRow>
// biome-ignore lint/suspicious/noExplicitAny: a guard of either area; the routes use what every guard has.
type AnyGuard = AreaGuard<any, any, any>

/**
 * What signing in to an area takes: its path, where a signed-in member lands, and its kind of
 * account's steps (the shared ones of app/sign-in/, bound to its book).
 */
export interface SignInFlow<L extends Live> {
  base: string
  home: string
  signInWithPassword(
    context: AppContext,
    input: { email: string; password: string },
    client: SessionClient,
  ): Promise<Opened | DashboardRefusal>
  signInWithCode(
    context: AppContext,
    live: L,
    code: string,
    client: SessionClient,
  ): Promise<Opened | DashboardRefusal>
  beginEnrolment(context: AppContext, live: L): Promise<Enrolment>
  confirmEnrolment(
    context: AppContext,
    live: L,
    code: string,
    client: SessionClient,
  ): Promise<{ opened: Opened; recoveryCodes: string[] } | DashboardRefusal>
  acceptInvitation(
    context: AppContext,
    token: string,
    input: { name: string; password: string },
    client: SessionClient,
  ): Promise<Opened | DashboardRefusal>
  /** The invitation page's first sentence, or undefined when the token opens no usable invitation. */
  invitationIntro(context: AppContext, page: PageContext<string>, token: string): Promise<string | undefined>
  endSession(context: AppContext, sessionId: string, reason: string): Promise<boolean>
}

type Form = Record<string, string | undefined>
const field = (request: FastifyRequest, name: string) =>
  String((request.body as Form | undefined)?.[name] ?? '')

/** Where to go after signing in: only a path of the area, on this origin. */
function nextPath(flow: { base: string; home: string }, text: string | undefined): string {
  return areaPath(flow.base, text, flow.home)
}

/**
 * The status of a refused secret: a wrong one is a 401; a lock, or an address that failed too
 * often, a 429; no place to check a password now, a 503 to send again in a moment.
 */
function refusedStatus(reply: FastifyReply, refused: DashboardRefusal): number {
  if (refused.refused === 'sign_in_failed' || refused.refused === 'code_wrong') return 401
  if (refused.refused !== 'password_checks_busy') return 429
  reply.header('retry-after', '1')
  return 503
}

/**
 * The answer to an attempt that found the member locked, wherever a secret was asked: the session
 * that made it has ended, and the sign-in page says why.
 */
export function sendLockedOutOf(
  guard: AnyGuard,
  request: FastifyRequest,
  reply: FastifyReply,
  next: string,
  base: string,
): FastifyReply {
  guard.clearSession(reply)
  const page = guard.pageOf(request)
  const locked = refusal('account_locked')
  return sendPage(reply, 429, passwordPage(page, base, guard.anonymousForm(reply), next, { refusal: locked }))
}

/** Signing in, out, accepting an invitation and enrolling the authenticator, in one area. */
export function signInPages<L extends Live>(
  app: FastifyInstance,
  context: AppContext,
  guard: AreaGuard<string, string, L>,
  flow: SignInFlow<L>,
): void {
  const { base } = flow
  app.get(`${base}/login`, async (request, reply) => {
    const query = request.query as Form
    const page = guard.pageOf(request)
    const notice =
      query.ended !== undefined
        ? page.t.signIn.sessionEnded
        : query.out !== undefined
          ? page.t.signIn.signedOut
          : undefined
    return sendPage(
      reply,
      200,
      passwordPage(page, base, guard.anonymousForm(reply), nextPath(flow, query.next), { notice }),
    )
  })

  app.post(`${base}/login`, async (request, reply) => {
    if (!guard.checkAnonymousForm(request, reply)) return reply
    const page = guard.pageOf(request)
    const next = nextPath(flow, field(request, 'next'))
    const outcome = await flow.signInWithPassword(
      context,
      { email: field(request, 'email'), password: field(request, 'password') },
      guard.clientOf(request),
    )
    if (isRefusal(outcome)) {
      const status = refusedStatus(reply, outcome)
      const form = guard.anonymousForm(reply)
      return sendPage(
        reply,
        status,
        passwordPage(page, base, form, next, { refusal: outcome, email: field(request, 'email') }),
      )
    }
    guard.setSession(reply, outcome.token)
    const step = outcome.session.stage === 'enrolment' ? `${base}/enrol` : `${base}/login/code`
    return redirect(reply, `${step}?next=${encodeURIComponent(next)}`)
  })

  app.post(`${base}/logout`, async (request, reply) => {
    const live = await guard.current(request)
    if (live) {
      if (!guard.checkForm(request, reply, live.session.id)) return reply
      await flow.endSession(context, live.session.id, 'signed out')
    }
    guard.clearSession(reply)
    return redirect(reply, `${base}/login?out`)
  })

  codeRoutes(app, context, guard, flow)
  invitationRoutes(app, context, guard, flow)
  enrolmentRoutes(app, context, guard, flow)
}

/** The second step: the authenticator's code or a recovery code. */
function codeRoutes<L extends Live>(
  app: FastifyInstance,
  context: AppContext,
  guard: AreaGuard<string, string, L>,
  flow: SignInFlow<L>,
): void {
  const { base } = flow
  app.get(`${base}/login/code`, async (request, reply) => {
    const live = await guard.partial(request, 'second-factor')
    if (!live) return redirect(reply, `${base}/login`)
    const page = guard.pageOf(request, { csrf: guard.csrfOf(live.session.id) })
    return sendPage(reply, 200, codePage(page, base, nextPath(flow, (request.query as Form).next)))
  })

  app.post(`${base}/login/code`, async (request, reply) => {
    const live = await guard.partial(request, 'second-factor')
    if (!live) return redirect(reply, `${base}/login?ended`)
    if (!guard.checkForm(request, reply, live.session.id)) return reply
    const next = nextPath(flow, field(request, 'next'))
    const outcome = await flow.signInWithCode(context, live, field(request, 'code'), guard.clientOf(request))
    if (isRefusal(outcome)) {
      if (outcome.refused === 'account_locked') return sendLockedOutOf(guard, request, reply, next, base)
      const page = guard.pageOf(request, { csrf: guard.csrfOf(live.session.id) })
      return sendPage(reply, refusedStatus(reply, outcome), codePage(page, base, next, outcome))
    }
    guard.setSession(reply, outcome.token)
    return redirect(reply, next)
  })
}

function invitationRoutes<L extends Live>(
  app: FastifyInstance,
  context: AppContext,
  guard: AreaGuard<string, string, L>,
  flow: SignInFlow<L>,
): void {
  const { base } = flow
  app.get(`${base}/invitations/:token`, async (request, reply) => {
    const { token } = request.params as { token: string }
    const page = guard.pageOf(request)
    const intro = await flow.invitationIntro(context, page, token)
    if (intro === undefined)
      return sendPage(
        reply,
        404,
        plainPage(page, page.t.invitation.title, <p class="error">{page.t.invitation.unusable}</p>),
      )
    return sendPage(reply, 200, invitationPage(page, base, guard.anonymousForm(reply), token, intro))
  })

  app.post(`${base}/invitations/:token`, async (request, reply) => {
    if (!guard.checkAnonymousForm(request, reply)) return reply
    const { token } = request.params as { token: string }
    const outcome = await flow.acceptInvitation(
      context,
      token,
      { name: field(request, 'name'), password: field(request, 'password') },
      guard.clientOf(request),
    )
    if (isRefusal(outcome)) {
      const page = guard.pageOf(request)
      const status =
        outcome.refused === 'invitation_unusable'
          ? 404
          : outcome.refused === 'password_checks_busy'
            ? refusedStatus(reply, outcome)
            : 422
      return sendPage(
        reply,
        status,
        invitationPage(page, base, guard.anonymousForm(reply), token, '', outcome),
      )
    }
    guard.setSession(reply, outcome.token)
    return redirect(reply, `${base}/enrol`)
  })
}

function enrolmentRoutes<L extends Live>(
  app: FastifyInstance,
  context: AppContext,
  guard: AreaGuard<string, string, L>,
  flow: SignInFlow<L>,
): void {
  const { base } = flow
  app.get(`${base}/enrol`, async (request, reply) => {
    const live = await guard.partial(request, 'enrolment')
    if (!live) return redirect(reply, `${base}/login`)
    const enrolment = await flow.beginEnrolment(context, live)
    const qr = await QRCode.toString(enrolment.uri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' })
    const page = guard.pageOf(request, { csrf: guard.csrfOf(live.session.id) })
    const qrDataUri = `data:image/svg+xml;base64,${Buffer.from(qr).toString('base64')}`
    const query = request.query as Form
    // Only the refusals a confirmation answers are named in the link.
    const refused = enrolmentRefusals.find((code) => code === query.refused)
    const shown = refused && refusal(refused, refused === 'address_throttled' ? { minutes: 15 } : undefined)
    const next = nextPath(flow, query.next)
    return sendPage(reply, 200, enrolPage(page, base, enrolment.secret, qrDataUri, next, shown))
  })

  app.post(`${base}/enrol`, async (request, reply) => {
    const live = await guard.partial(request, 'enrolment')
    if (!live) return redirect(reply, `${base}/login?ended`)
    if (!guard.checkForm(request, reply, live.session.id)) return reply
    const outcome = await flow.confirmEnrolment(
      context,
      live,
      field(request, 'code'),
      guard.clientOf(request),
    )
    const page = guard.pageOf(request, { csrf: guard.csrfOf(live.session.id) })
    if (isRefusal(outcome))
      return outcome.refused === 'account_locked'
        ? sendLockedOutOf(guard, request, reply, flow.home, base)
        : redirect(reply, `${base}/enrol?refused=${outcome.refused}`)
    guard.setSession(reply, outcome.opened.token)
    const next = nextPath(flow, field(request, 'next'))
    return sendPage(reply, 200, recoveryCodesPage(page, outcome.recoveryCodes, next))
  })
}

function Refused({ page, refusal }: { page: PageContext<string>; refusal?: DashboardRefusal | undefined }) {
  return refusal ? <RefusalNote page={page} refusal={refusal} /> : null
}

function passwordPage(
  page: PageContext<string>,
  base: string,
  csrf: string,
  next: string,
  shown: { notice?: string | undefined; refusal?: DashboardRefusal; email?: string },
): string {
  const { t } = page
  return plainPage(
    page,
    t.signIn.title,
    <>
      {shown.notice && <p class="notice">{shown.notice}</p>}
      <Refused page={page} refusal={shown.refusal} />
      <form class="stack" method="post" action={`${base}/login`}>
        <input type="hidden" name="csrf" value={csrf} />
        <input type="hidden" name="next" value={next} />
        <label>
          {t.signIn.email}
          <input type="email" name="email" autocomplete="username" required value={shown.email ?? ''} />
        </label>
        <label>
          {t.signIn.password}
          <input type="password" name="password" autocomplete="current-password" required />
        </label>
        <button type="submit">{t.signIn.submit}</button>
      </form>
    </>,
  )
}

function codePage(page: PageContext<string>, base: string, next: string, refusal?: DashboardRefusal): string {
  const { t } = page
  return plainPage(
    page,
    t.signIn.codeTitle,
    <>
      <Refused page={page} refusal={refusal} />
      <p>{t.signIn.codeIntro}</p>
      <form class="stack" method="post" action={`${base}/login/code`}>
        <input type="hidden" name="csrf" value={page.csrf ?? ''} />
        <input type="hidden" name="next" value={next} />
        <label>
          {t.signIn.code}
          <input
            type="text"
            name="code"
            inputmode="text"
            autocomplete="one-time-code"
            required
            maxLength={9}
          />
        </label>
        <button type="submit">{t.signIn.codeSubmit}</button>
      </form>
    </>,
  )
}

function invitationPage(
  page: PageContext<string>,
  base: string,
  csrf: string,
  token: string,
  intro: string,
  refusal?: DashboardRefusal,
) {
  const { t } = page
  return plainPage(
    page,
    t.invitation.title,
    <>
      <Refused page={page} refusal={refusal} />
      {intro && <p>{intro}</p>}
      <form class="stack" method="post" action={`${base}/invitations/${token}`}>
        <input type="hidden" name="csrf" value={csrf} />
        <label>
          {t.invitation.name}
          <input type="text" name="name" autocomplete="name" required maxLength={100} />
        </label>
        <label>
          {t.invitation.password}
          <input
            type="password"
            name="password"
            autocomplete="new-password"
            required
            minLength={minimumPasswordLength}
            aria-describedby="password-hint"
          />
        </label>
        <p id="password-hint" class="muted">
          {t.invitation.passwordHint(minimumPasswordLength)}
        </p>
        <button type="submit">{t.invitation.submit}</button>
      </form>
    </>,
  )
}

const enrolmentRefusals = ['code_wrong', 'address_throttled'] as const

function enrolPage(
  page: PageContext<string>,
  base: string,
  secret: string,
  qrDataUri: string,
  next: string,
  refused: DashboardRefusal | undefined,
): string {
  const { t } = page
  return plainPage(
    page,
    t.enrol.title,
    <>
      <Refused page={page} refusal={refused} />
      <p>{t.enrol.intro}</p>
      <img src={qrDataUri} alt={t.enrol.qrAlt} width={200} height={200} />
      <p>
        {t.enrol.setupKey}:{' '}
        <code class="secret" data-setup-key>
          {secret}
        </code>
      </p>
      <form class="stack" method="post" action={`${base}/enrol`}>
        <input type="hidden" name="csrf" value={page.csrf ?? ''} />
        <input type="hidden" name="next" value={next} />
        <label>
          {t.enrol.code}
          <input
            type="text"
            name="code"
            inputmode="numeric"
            autocomplete="one-time-code"
            required
            pattern="[0-9]{6}"
            maxLength={6}
          />
        </label>
        <button type="submit">{t.enrol.submit}</button>
      </form>
    </>,
  )
}

function recoveryCodesPage(page: PageContext<string>, codes: string[], next: string): string {
  const { t } = page
  return plainPage(
    page,
    t.enrol.recoveryTitle,
    <>
      <p>{t.enrol.recoveryIntro}</p>
      <ol class="codes" data-recovery-codes>
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ol>
      <p>
        <a class="button" href={next}>
          {t.enrol.continue}
        </a>
      </p>
    </>,
  )
}
