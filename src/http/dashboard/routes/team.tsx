import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../../../app/context.ts'
import type { IssuedInvitation } from '../../../app/dashboard/invitations.ts'
import { type DashboardRefusal, isRefusal } from '../../../app/dashboard/refusals.ts'
import {
  changeRole,
  endTeamSession,
  inviteToTeam,
  memberChanger,
  removeMember,
  revokeTeamInvitation,
  type TeamView,
  teamOf,
} from '../../../app/dashboard/team.ts'
import { type Role, roles } from '../../../domain/roles.ts'
import { formatInstant } from '../format.ts'
import type { Guard, SignedIn } from '../guard.tsx'
import { allows, CsrfField, memberPage, type PageContext } from '../layout.tsx'
import { RefusalNote } from '../refusal-text.tsx'
import { sendPage } from '../respond.ts'

/** What a change leaves on the page it answers: a sentence, the one-time invitation, or a refusal. */
interface Outcome {
  notice?: string
  invitation?: IssuedInvitation
  refusal?: DashboardRefusal
}

type Form = Record<string, string | undefined>

/** The team page: every role reads it; admins and owners (permission 'team') change it. */
export function teamRoutes(app: FastifyInstance, context: AppContext, guard: Guard): void {
  app.get('/dashboard/team', async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'read')
    if (!signedIn) return reply
    return sendTeamPage(context, reply, signedIn, {})
  })
  const change = (
    path: string,
    work: (signedIn: SignedIn, form: Form, address: string) => Promise<Outcome>,
  ) =>
    app.post(`/dashboard/team/${path}`, async (request: FastifyRequest, reply: FastifyReply) => {
      const signedIn = await guard.member(request, reply, 'team')
      if (!signedIn) return reply
      const outcome = await work(signedIn, (request.body ?? {}) as Form, request.ip)
      return sendTeamPage(context, reply, signedIn, outcome)
    })
  const by = (signedIn: SignedIn, address: string) => memberChanger(signedIn.live.member, address)

  change('invite', async (signedIn, form, address) => {
    const issued = await inviteToTeam(context, by(signedIn, address), {
      email: form.email ?? '',
      role: form.role ?? '',
    })
    return isRefusal(issued) ? { refusal: issued } : { invitation: issued }
  })
  change('role', async (signedIn, form, address) => {
    const changed = await changeRole(context, by(signedIn, address), form.memberId ?? '', form.role ?? '')
    if (isRefusal(changed)) return { refusal: changed }
    const { t } = signedIn.page
    return { notice: t.team.roleChanged(changed.email, t.roles[changed.role]) }
  })
  change('remove', async (signedIn, form, address) => {
    const removed = await removeMember(context, by(signedIn, address), { memberId: form.memberId ?? '' })
    return isRefusal(removed) ? { refusal: removed } : { notice: signedIn.page.t.team.removed(removed.email) }
  })
  change('invitations/revoke', async (signedIn, form, address) => {
    const revoked = await revokeTeamInvitation(context, by(signedIn, address), form.invitationId ?? '')
    return isRefusal(revoked) ? { refusal: revoked } : { notice: signedIn.page.t.team.revoked }
  })
  change('sessions/end', async (signedIn, form, address) => {
    const ended = await endTeamSession(context, by(signedIn, address), form.sessionId ?? '')
    return isRefusal(ended) ? { refusal: ended } : { notice: signedIn.page.t.team.sessionEnded }
  })
}

async function sendTeamPage(context: AppContext, reply: FastifyReply, signedIn: SignedIn, outcome: Outcome) {
  const team = await teamOf(context, signedIn.live.member.merchantId)
  return sendPage(reply, outcome.refusal ? 400 : 200, teamPage(signedIn, team, outcome))
}

function teamPage(signedIn: SignedIn, team: TeamView, outcome: Outcome): string {
  const { page } = signedIn
  const { t } = page
  const changes = allows(page, 'team')
  return memberPage(
    page,
    t.team.title,
    <>
      {outcome.refusal && <RefusalNote page={page} refusal={outcome.refusal} />}
      {outcome.notice && (
        <p class="notice" role="status">
          {outcome.notice}
        </p>
      )}
      {outcome.invitation && <IssuedNote page={page} invitation={outcome.invitation} />}
      <MembersTable page={page} team={team} />
      {changes ? <TeamForms page={page} team={team} /> : <p class="muted">{t.team.readOnly}</p>}
      <InvitationsTable page={page} team={team} changes={changes} />
      <SessionsTable page={page} team={team} changes={changes} />
    </>,
  )
}

function IssuedNote({ page, invitation }: { page: PageContext; invitation: IssuedInvitation }) {
  return (
    <div class="notice" role="status">
      <p>{page.t.team.invited(invitation.email)}</p>
      <p>
        {page.t.team.invitationUrl}:{' '}
        <code class="secret" data-invitation-url>
          {invitation.invitationUrl}
        </code>
      </p>
    </div>
  )
}

const zoneOf = (page: PageContext) => page.member?.timeZone ?? 'UTC'

function MembersTable({ page, team }: { page: PageContext; team: TeamView }) {
  const { t } = page
  return (
    <section aria-labelledby="members">
      <h2 id="members">{t.team.members}</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">{t.team.name}</th>
            <th scope="col">{t.team.email}</th>
            <th scope="col">{t.team.role}</th>
            <th scope="col">{t.team.enrolled}</th>
            <th scope="col">{t.team.joined}</th>
          </tr>
        </thead>
        <tbody>
          {team.members.map((member) => (
            <tr key={member.id} data-member={member.email}>
              <th scope="row">{member.name}</th>
              <td>{member.email}</td>
              <td>{t.roles[member.role]}</td>
              <td>{member.totpSealed !== null && member.totpLastStep > 0 ? t.common.yes : t.common.no}</td>
              <td>{formatInstant(member.createdAtUs, page.locale, zoneOf(page))}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}

/** The roles this member may give: only an owner gives the owner role. */
function givableRoles(page: PageContext): Role[] {
  return roles.filter((role) => role !== 'owner' || page.member?.role === 'owner')
}

function RoleSelect({ page, id }: { page: PageContext; id: string }) {
  return (
    <select id={id} name="role" required>
      {givableRoles(page).map((role) => (
        <option key={role} value={role}>
          {page.t.roles[role]}
        </option>
      ))}
    </select>
  )
}

function MemberSelect({ page, team, id }: { page: PageContext; team: TeamView; id: string }) {
  return (
    <select id={id} name="memberId" required>
      {team.members.map((member) => (
        <option key={member.id} value={member.id}>
          {`${member.name} <${member.email}> (${page.t.roles[member.role]})`}
        </option>
      ))}
    </select>
  )
}

function TeamForms({ page, team }: { page: PageContext; team: TeamView }) {
  const { t } = page
  return (
    <>
      <section aria-labelledby="invite">
        <h2 id="invite">{t.team.invite}</h2>
        <form method="post" action="/dashboard/team/invite" class="inline" id="invite-form">
          <CsrfField page={page} />
          <label for="invite-email">{t.team.email}</label>
          <input id="invite-email" name="email" type="email" required autocomplete="off" />
          <label for="invite-role">{t.team.role}</label>
          <RoleSelect page={page} id="invite-role" />
          <button type="submit">{t.team.inviteSubmit}</button>
        </form>
      </section>
      <section aria-labelledby="change-role">
        <h2 id="change-role">{t.team.changeRole}</h2>
        <p class="muted">{t.team.changeRoleHint}</p>
        <form method="post" action="/dashboard/team/role" class="inline" id="role-form">
          <CsrfField page={page} />
          <label for="role-member">{t.team.member}</label>
          <MemberSelect page={page} team={team} id="role-member" />
          <label for="role-role">{t.team.role}</label>
          <RoleSelect page={page} id="role-role" />
          <button type="submit">{t.team.changeRoleSubmit}</button>
        </form>
      </section>
      <section aria-labelledby="remove">
        <h2 id="remove">{t.team.remove}</h2>
        <p class="muted">{t.team.removeHint}</p>
        <form method="post" action="/dashboard/team/remove" class="inline" id="remove-form">
          <CsrfField page={page} />
          <label for="remove-member">{t.team.member}</label>
          <MemberSelect page={page} team={team} id="remove-member" />
          <button type="submit" class="danger">
            {t.team.removeSubmit}
          </button>
        </form>
      </section>
    </>
  )
}

function InvitationsTable({ page, team, changes }: { page: PageContext; team: TeamView; changes: boolean }) {
  const { t } = page
  return (
    <section aria-labelledby="invitations">
      <h2 id="invitations">{t.team.invitations}</h2>
      {team.invitations.length === 0 ? (
        <p class="muted">{t.team.noInvitations}</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">{t.team.email}</th>
              <th scope="col">{t.team.role}</th>
              <th scope="col">{t.team.invitedAt}</th>
              <th scope="col">{t.team.expires}</th>
              {changes && <th scope="col">{t.common.actions}</th>}
            </tr>
          </thead>
          <tbody>
            {team.invitations.map((invitation) => (
              <tr key={invitation.id}>
                <th scope="row">{invitation.email}</th>
                <td>{t.roles[invitation.role]}</td>
                <td>{formatInstant(invitation.createdAtUs, page.locale, zoneOf(page))}</td>
                <td>{formatInstant(invitation.expiresAtUs, page.locale, zoneOf(page))}</td>
                {changes && (
                  <td>
                    <form method="post" action="/dashboard/team/invitations/revoke">
                      <CsrfField page={page} />
                      <input type="hidden" name="invitationId" value={invitation.id} />
                      <button type="submit" class="secondary" aria-label={t.team.revoke(invitation.email)}>
                        {t.team.revokeButton}
                      </button>
                    </form>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}

function SessionsTable({ page, team, changes }: { page: PageContext; team: TeamView; changes: boolean }) {
  const { t } = page
  const at = (us: number) => formatInstant(us, page.locale, zoneOf(page))
  return (
    <section aria-labelledby="sessions">
      <h2 id="sessions">{t.team.sessions}</h2>
      {team.sessions.length === 0 ? (
        <p class="muted">{t.team.noSessions}</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">{t.team.member}</th>
              <th scope="col">{t.team.started}</th>
              <th scope="col">{t.team.lastSeen}</th>
              <th scope="col">{t.team.address}</th>
              <th scope="col">{t.team.userAgent}</th>
              {changes && <th scope="col">{t.common.actions}</th>}
            </tr>
          </thead>
          <tbody>
            {team.sessions.map(({ session, memberEmail, memberName }) => (
              <tr key={session.id} data-session={session.id}>
                <th scope="row">{`${memberName} <${memberEmail}>`}</th>
                <td>{at(session.createdAtUs)}</td>
                <td>{at(session.lastSeenAtUs)}</td>
                <td>{session.address}</td>
                <td>{session.userAgent}</td>
                {changes && (
                  <td>
                    <form method="post" action="/dashboard/team/sessions/end">
                      <CsrfField page={page} />
                      <input type="hidden" name="sessionId" value={session.id} />
                      <button type="submit" class="secondary" aria-label={t.team.endLabel(memberEmail)}>
                        {t.team.endButton}
                      </button>
                    </form>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
