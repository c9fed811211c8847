import type { ComponentChildren } from 'preact'
import type { DashboardRefusal } from '../../app/dashboard/refusals.ts'
import { type AccountViewOf, timeZones } from '../../app/sign-in/account.ts'
import type { AccountSessionRow } from '../../app/sign-in/account-book.ts'
import { minimumPasswordLength } from '../../app/sign-in/passwords.ts'
import { CsrfField, type PageContext } from '../dashboard/layout.tsx'
import { RefusalNote } from '../dashboard/refusal-text.tsx'
import { formatInstant } from './kit/format.ts'

/**
 * A member's own account page, the same in the dashboard and the console: who they are, then a
 * form each for the password, the authenticator, the recovery codes and the time zone, and their
 * sessions. Each area gives its frame, its path and the name of the member's role.
 */
export interface AccountOutcome {
  notice?: string
  error?: string
  refusal?: DashboardRefusal
  recoveryCodes?: string[]
}

export interface AccountPageParts {
  /** '/dashboard' or '/console': the forms post under `<base>/account`. */
  base: string
  member: { name: string; email: string; role: string }
  currentSessionId: string
  view: AccountViewOf<AccountSessionRow>
  outcome: AccountOutcome
  /** The area's own first words on the page, if any. */
  intro?: string | undefined
}

export function AccountSections({ page, parts }: { page: PageContext<string>; parts: AccountPageParts }) {
  const { t } = page
  const { outcome, member } = parts
  const action = `${parts.base}/account`
  return (
    <>
      {parts.intro && <p>{parts.intro}</p>}
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
          <dd>{member.role}</dd>
        </dl>
      </section>
      <PasswordForm page={page} action={action} />
      <CodeForm
        page={page}
        action={`${action}/authenticator`}
        id="authenticator"
        intro={t.account.authenticatorIntro}
      />
      <CodeForm
        page={page}
        action={`${action}/recovery-codes`}
        id="recovery"
        intro={t.account.recoveryLeft(parts.view.unusedRecoveryCodes)}
      />
      <TimeZoneForm page={page} action={action} />
      <OwnSessions
        page={page}
        action={action}
        sessions={parts.view.sessions}
        currentId={parts.currentSessionId}
      />
    </>
  )
}

function NewCodes({ page, codes }: { page: PageContext<string>; codes: string[] }) {
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

function PasswordForm({ page, action }: { page: PageContext<string>; action: string }) {
  const { t } = page
  return (
    <section aria-labelledby="password">
      <h2 id="password">{t.account.password}</h2>
      <form method="post" action={`${action}/password`} class="stack" id="password-form">
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

/** A form that asks a fresh code of the authenticator: a new authenticator, or new recovery codes. */
function CodeForm(props: {
  page: PageContext<string>
  action: string
  id: 'authenticator' | 'recovery'
  intro: ComponentChildren
}) {
  const { t } = props.page
  const { id } = props
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{id === 'authenticator' ? t.account.authenticator : t.account.recovery}</h2>
      <p>{props.intro}</p>
      <form method="post" action={props.action} class="inline" id={`${id}-form`}>
        <CsrfField page={props.page} />
        <label for={`${id}-code`}>{t.account.recoveryCode}</label>
        <input
          id={`${id}-code`}
          name="code"
          inputMode="numeric"
          autocomplete="one-time-code"
          pattern="[0-9]{6}"
          required
        />
        <button type="submit">
          {id === 'authenticator' ? t.account.authenticatorSubmit : t.account.recoverySubmit}
        </button>
      </form>
    </section>
  )
}

function TimeZoneForm({ page, action }: { page: PageContext<string>; action: string }) {
  const { t } = page
  const current = page.member?.timeZone ?? 'UTC'
  return (
    <section aria-labelledby="time-zone">
      <h2 id="time-zone">{t.account.timeZone}</h2>
      <form method="post" action={`${action}/time-zone`} class="inline" id="time-zone-form">
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

function OwnSessions(props: {
  page: PageContext<string>
  action: string
  sessions: AccountSessionRow[]
  currentId: string
}) {
  const { page } = props
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
          {props.sessions.map((session) => (
            <tr key={session.id} data-session={session.id}>
              <th scope="row">
                {at(session.createdAtUs)}
                {session.id === props.currentId && ` (${t.account.current})`}
              </th>
              <td>{at(session.lastSeenAtUs)}</td>
              <td>{session.address}</td>
              <td>{session.userAgent}</td>
              <td>
                <form method="post" action={`${props.action}/sessions/end`}>
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
