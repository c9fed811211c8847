import type { FastifyInstance, FastifyReply } from 'fastify'
import type { AppContext } from '../../../app/context.ts'
import {
  type AccountView,
  accountOf,
  changePassword,
  endOwnSession,
  regenerateRecoveryCodes,
  replaceAuthenticator,
  setTimeZone,
  timeZones,
} from '../../../app/dashboard/account.ts'
import { type DashboardRefusal, isRefusal } from '../../../app/dashboard/refusals.ts'
import { minimumPasswordLength } from '../../../app/sign-in/passwords.ts'
import { formatInstant } from '../format.ts'
import type { Guard, SignedIn } from '../guard.tsx'
import { CsrfField, memberPage, type PageContext } from '../layout.tsx'
import { RefusalNote } from '../refusal-text.tsx'
import { redirect, sendPage } from '../respond.ts'
import { sendLockedOut } from './sign-in.tsx'

interface Outcome {
  notice?: string
  error?: string
  refusal?: DashboardRefusal
  recoveryCodes?: string[]
}

type Form = Record<string, string | undefined>

/** The member's own account: every role has one. */
export function accountRoutes(app: FastifyInstance, context: AppContext, guard: Guard): void {
  const show = async (reply: FastifyReply, signedIn: SignedIn, outcome: Outcome) => {
    const view = await accountOf(context, signedIn.live)
    return sendPage(reply, statusOf(reply, outcome), accountPage(signedIn, view, outcome))
  }
  app.get('/dashboard/account', async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'read')
    return signedIn ? show(reply, signedIn, {}) : reply
  })
  app.post('/dashboard/account/password', async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'read')
    if (!signedIn) return reply
    const form = (request.body ?? {}) as Form
    const changed = await changePassword(context, signedIn.live, request.ip, {
      current: form.current ?? '',
      next: form.password ?? '',
    })
    if (isRefusal(changed) && changed.refused === 'account_locked')
      return sendLockedOut(guard, request, reply)
    return show(
      reply,
      signedIn,
      isRefusal(changed) ? { refusal: changed } : { notice: signedIn.page.t.account.passwordChanged },
    )
  })
  app.post('/dashboard/account/recovery-codes', async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'read')
    if (!signedIn) return reply
    const codes = await regenerateRecoveryCodes(
      context,
      signedIn.live,
      request.ip,
      ((request.body ?? {}) as Form).code ?? '',
    )
    if (isRefusal(codes) && codes.refused === 'account_locked') return sendLockedOut(guard, request, reply)
    return show(reply, signedIn, isRefusal(codes) ? { refusal: codes } : { recoveryCodes: codes })
  })
  app.post('/dashboard/account/authenticator', async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'read')
    if (!signedIn) return reply
    const code = ((request.body ?? {}) as Form).code ?? ''
    const replaced = await replaceAuthenticator(context, signedIn.live, request.ip, code)
    if (isRefusal(replaced) && replaced.refused === 'account_locked')
      return sendLockedOut(guard, request, reply)
    if (isRefusal(replaced)) return show(reply, signedIn, { refusal: replaced })
    return redirect(reply, '/dashboard/enrol?next=%2Fdashboard%2Faccount')
  })
  app.post('/dashboard/account/time-zone', async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'read')
    if (!signedIn) return reply
    const zone = ((request.body ?? {}) as Form).timeZone ?? ''
    const saved = await setTimeZone(context, signedIn.live, request.ip, zone)
    const { t } = signedIn.page
    if (saved !== true) return show(reply, signedIn, { error: t.account.timeZoneInvalid })
    if (signedIn.page.member) signedIn.page.member.timeZone = zone
    return show(reply, signedIn, { notice: t.account.timeZoneSaved })
  })
  app.post('/dashboard/account/sessions/end', async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'read')
    if (!signedIn) return reply
    const sessionId = ((request.body ?? {}) as Form).sessionId ?? ''
    const ended = await endOwnSession(context, signedIn.live, request.ip, sessionId)
    if (ended === true && sessionId === signedIn.live.session.id) {
      guard.clearSession(reply)
      return redirect(reply, '/dashboard/login')
    }
    return show(
      reply,
      signedIn,
      isRefusal(ended) ? { refusal: ended } : { notice: signedIn.page.t.account.sessionEnded },
    )
  })
}

/** A refused form is a 400; an address that failed too often a 429, no place to check a password a 503. */
function statusOf(reply: FastifyReply, outcome: Outcome): number {
  if (outcome.refusal?.refused === 'address_throttled') return 429
  if (outcome.refusal?.refused === 'password_checks_busy') {
    reply.header('retry-after', '1')
    return 503
  }
  return outcome.refusal !== undefined || outcome.error !== undefined ? 400 : 200
}

function accountPage(signedIn: SignedIn, view: AccountView, outcome: Outcome): string {
  const { page, live } = signedIn
  const { t } = page
  const { member } = live
  return memberPage(
    page,
    t.account.title,
    <>
      {outcome.refusal && <RefusalNote page={page} refusal={outcome.refusal} />}
      {outcome.error && (
        <p class="error" role="alert">
          {outcome.error}
        </p>
      )}
      {outcome.notice && (
        <p class="notice" role="status">
          {outcome.notice}
        </p>
      )}
      {outcome.recoveryCodes && <NewCodes page={page} codes={outcome.recoveryCodes} />}
      <section aria-labelledby="profile">
        <h2 id="profile">{t.account.profile}</h2>
        <dl class="record">
          <dt>{t.account.name}</dt>
          <dd>{member.name}</dd>
          <dt>{t.account.email}</dt>
          <dd>{member.email}</dd>
          <dt>{t.account.role}</dt>
          <dd>{t.roles[member.role]}</dd>
        </dl>
      </section>
      <PasswordForm page={page} />
      <AuthenticatorForm page={page} />
      <RecoveryForm page={page} left={view.unusedRecoveryCodes} />
      <TimeZoneForm page={page} />
      <OwnSessions page={page} view={view} currentId={live.session.id} />
    </>,
  )
}

function NewCodes({ page, codes }: { page: PageContext; codes: string[] }) {
  return (
    <div class="notice" role="status">
      <p>{page.t.account.recoveryShown}</p>
      <ol class="codes" data-recovery-codes>
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ol>
    </div>
  )
}

function PasswordForm({ page }: { page: PageContext }) {
  const { t } = page
  return (
    <section aria-labelledby="password">
      <h2 id="password">{t.account.password}</h2>
      <form method="post" action="/dashboard/account/password" class="stack" id="password-form">
        <CsrfField page={page} />
        <label for="current-password">{t.account.currentPassword}</label>
        <input
          id="current-password"
          name="current"
          type="password"
          autocomplete="current-password"
          required
        />
        <label for="new-password">{t.account.newPassword}</label>
        <input
          id="new-password"
          name="password"
          type="password"
          autocomplete="new-password"
          minLength={minimumPasswordLength}
          aria-describedby="new-password-hint"
          required
        />
        <p id="new-password-hint" class="muted">
          {t.account.passwordHint(minimumPasswordLength)}
        </p>
        <button type="submit">{t.account.passwordSubmit}</button>
      </form>
    </section>
  )
}

function AuthenticatorForm({ page }: { page: PageContext }) {
  const { t } = page
  return (
    <section aria-labelledby="authenticator">
      <h2 id="authenticator">{t.account.authenticator}</h2>
      <p>{t.account.authenticatorIntro}</p>
      <form method="post" action="/dashboard/account/authenticator" class="inline" id="authenticator-form">
        <CsrfField page={page} />
        <label for="authenticator-code">{t.account.recoveryCode}</label>
        <input
          id="authenticator-code"
          name="code"
          inputMode="numeric"
          autocomplete="one-time-code"
          pattern="[0-9]{6}"
          required
        />
        <button type="submit">{t.account.authenticatorSubmit}</button>
      </form>
    </section>
  )
}

function RecoveryForm({ page, left }: { page: PageContext; left: number }) {
  const { t } = page
  return (
    <section aria-labelledby="recovery">
      <h2 id="recovery">{t.account.recovery}</h2>
      <p>{t.account.recoveryLeft(left)}</p>
      <form method="post" action="/dashboard/account/recovery-codes" class="inline" id="recovery-form">
        <CsrfField page={page} />
        <label for="recovery-code">{t.account.recoveryCode}</label>
        <input
          id="recovery-code"
          name="code"
          inputMode="numeric"
          autocomplete="one-time-code"
          pattern="[0-9]{6}"
          required
        />
        <button type="submit">{t.account.recoverySubmit}</button>
      </form>
    </section>
  )
}

function TimeZoneForm({ page }: { page: PageContext }) {
  const { t } = page
  const current = page.member?.timeZone ?? 'UTC'
  return (
    <section aria-labelledby="time-zone">
      <h2 id="time-zone">{t.account.timeZone}</h2>
      <form method="post" action="/dashboard/account/time-zone" class="inline" id="time-zone-form">
        <CsrfField page={page} />
        <label for="time-zone-select">{t.account.timeZoneLabel}</label>
        <select id="time-zone-select" name="timeZone">
          {timeZones.map((zone) => (
            <option key={zone} value={zone} selected={zone === current}>
              {zone}
            </option>
          ))}
        </select>
        <button type="submit">{t.account.timeZoneSubmit}</button>
      </form>
    </section>
  )
}

function OwnSessions({ page, view, currentId }: { page: PageContext; view: AccountView; currentId: string }) {
  const { t } = page
  const at = (us: number) => formatInstant(us, page.locale, page.member?.timeZone ?? 'UTC')
  return (
    <section aria-labelledby="own-sessions">
      <h2 id="own-sessions">{t.account.sessions}</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">{t.team.started}</th>
            <th scope="col">{t.team.lastSeen}</th>
            <th scope="col">{t.team.address}</th>
            <th scope="col">{t.team.userAgent}</th>
            <th scope="col">{t.common.actions}</th>
          </tr>
        </thead>
        <tbody>
          {view.sessions.map((session) => (
            <tr key={session.id} data-session={session.id}>
              <th scope="row">
                {at(session.createdAtUs)}
                {session.id === currentId && ` (${t.account.current})`}
              </th>
              <td>{at(session.lastSeenAtUs)}</td>
              <td>{session.address}</td>
              <td>{session.userAgent}</td>
              <td>
                <form method="post" action="/dashboard/account/sessions/end">
                  <CsrfField page={page} />
                  <input type="hidden" name="sessionId" value={session.id} />
                  <button
                    type="submit"
                    class="secondary"
                    aria-label={t.account.endLabel(at(session.createdAtUs))}
                  >
                    {t.account.endButton}
                  </button>
                </form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}
