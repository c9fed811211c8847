import type { FastifyInstance, FastifyReply } from 'fastify'
import {
  changePlatformRole,
  endPlatformMemberSessions,
  invitePlatformMember,
  type PlatformTeamView,
  platformTeamOf,
  removePlatformMember,
} from '../../../app/console/platform-team.ts'
import type { AppContext } from '../../../app/context.ts'
import { type DashboardRefusal, isRefusal } from '../../../app/dashboard/refusals.ts'
import { platformRoles } from '../../../domain/platform-roles.ts'
import { formatInstant } from '../../dashboard/format.ts'
import { CsrfField } from '../../dashboard/layout.tsx'
import { RefusalNote } from '../../dashboard/refusal-text.tsx'
import { sendPage } from '../../dashboard/respond.ts'
import { type ConsoleGuard, consoleActorOf } from '../guard.ts'
import { type ConsolePage, consoleAllows, consolePage } from '../layout.tsx'
import { type ConsoleMessages, consoleMessagesOf } from '../messages/catalogue.ts'

type Form = Record<string, string | undefined>
/** What the page says after an action: a sentence, the invitation's address shown once, or a refusal. */
type Outcome = { notice?: string; invitation?: { email: string; url: string }; refusal?: DashboardRefusal }

/** The platform's team: every member reads it; an admin invites, changes roles, removes and ends sessions. */
export function consoleTeamRoutes(app: FastifyInstance, context: AppContext, guard: ConsoleGuard): void {
  app.get('/console/team', async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'read')
    if (!signedIn) return reply
    return sendTeamPage(context, reply, signedIn.page, 200, {})
  })

  /** An admin's action: the guard refuses any other role with a 403 before anything changes. */
  const action = (
    path: string,
    work: (actor: ReturnType<typeof consoleActorOf>, form: Form, words: ConsoleMessages) => Promise<Outcome>,
  ) =>
    app.post(path, async (request, reply) => {
      const signedIn = await guard.member(request, reply, 'team')
      if (!signedIn) return reply
      const outcome = await work(
        consoleActorOf(signedIn, request),
        { ...(request.body as Form), ...(request.params as Form) },
        consoleMessagesOf(signedIn.page.locale),
      )
      return sendTeamPage(context, reply, signedIn.page, outcome.refusal ? 422 : 200, outcome)
    })

  action('/console/team/invite', async (actor, form) => {
    const issued = await invitePlatformMember(context, actor, {
      email: form.email ?? '',
      role: form.role ?? '',
    })
    return isRefusal(issued)
      ? { refusal: issued }
      : { invitation: { email: issued.email, url: issued.invitationUrl } }
  })
  action('/console/team/members/:id/role', async (actor, form, words) => {
    const changed = await changePlatformRole(context, actor, form.id ?? '', form.role ?? '')
    return isRefusal(changed) ? { refusal: changed } : { notice: words.team.roleChanged(changed.email) }
  })
  action('/console/team/members/:id/remove', async (actor, form, words) => {
    const removed = await removePlatformMember(context, actor, {
      memberId: form.id ?? '',
    })
    return isRefusal(removed) ? { refusal: removed } : { notice: words.team.removed(removed.email) }
  })
  action('/console/team/members/:id/end-sessions', async (actor, form, words) => {
    const target = await context.store.platformMembers.findMember(form.id ?? '')
    const ended = await endPlatformMemberSessions(context, actor, form.id ?? '')
    return isRefusal(ended)
      ? { refusal: ended }
      : { notice: words.team.sessionsEnded(target?.email ?? '', ended) }
  })
}

async function sendTeamPage(
  context: AppContext,
  reply: FastifyReply,
  page: ConsolePage,
  status: number,
  outcome: Outcome,
): Promise<FastifyReply> {
  const team = await platformTeamOf(context)
  // After an action the page is the team's: its language switch comes back to the list.
  return sendPage(reply, status, teamPage({ ...page, path: '/console/team' }, team, outcome))
}

function teamPage(page: ConsolePage, team: PlatformTeamView, outcome: Outcome): string {
  const words = consoleMessagesOf(page.locale)
  const admin = consoleAllows(page, 'team')
  return consolePage(
    page,
    words.team.title,
    <>
      {outcome.notice && (
        <p class="notice" role="status">
          {outcome.notice}
        </p>
      )}
      {outcome.invitation && (
        <div class="notice" role="status">
          <p>{words.team.invitationUrl(outcome.invitation.email)}</p>
          <p>
            <code data-invitation-url>{outcome.invitation.url}</code>
          </p>
        </div>
      )}
      {outcome.refusal && <RefusalNote page={page} refusal={outcome.refusal} />}
      <MembersTable page={page} team={team} admin={admin} />
      {admin && <InviteForm page={page} />}
      <InvitationsTable page={page} team={team} />
      <SessionsTable page={page} team={team} />
    </>,
  )
}

function MembersTable({ page, team, admin }: { page: ConsolePage; team: PlatformTeamView; admin: boolean }) {
  const words = consoleMessagesOf(page.locale)
  return (
    <section aria-labelledby="members">
      <h2 id="members">{words.team.members}</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">{words.team.email}</th>
            <th scope="col">{words.team.name}</th>
            <th scope="col">{words.team.role}</th>
            <th scope="col">{words.team.enrolled}</th>
            {admin && <th scope="col">{page.t.common.actions}</th>}
          </tr>
        </thead>
        <tbody>
          {team.members.map((member) => (
            <tr key={member.id}>
              <td>{member.email}</td>
              <td>{member.name}</td>
              <td>{words.roles[member.role]}</td>
              <td>{member.totpLastStep > 0 ? words.team.enrolledYes : words.team.enrolledNo}</td>
              {admin && (
                <td>
                  <MemberActions page={page} member={member} />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}

function MemberActions({ page, member }: { page: ConsolePage; member: PlatformTeamView['members'][number] }) {
  const words = consoleMessagesOf(page.locale)
  const base = `/console/team/members/${encodeURIComponent(member.id)}`
  const selectId = `role-${member.id}`
  return (
    <div class="actions">
      <form method="post" action={`${base}/role`}>
        <CsrfField page={page} />
        <label for={selectId}>{words.team.roleOf(member.email)}</label>
        <select id={selectId} name="role">
          {platformRoles.map((role) => (
            <option key={role} value={role} selected={role === member.role}>
              {words.roles[role]}
            </option>
          ))}
        </select>
        <button type="submit">{words.team.changeRole}</button>
      </form>
      <form method="post" action={`${base}/end-sessions`}>
        <CsrfField page={page} />
        <button type="submit" aria-label={words.team.endSessionsLabel(member.email)}>
          {words.team.endSessions}
        </button>
      </form>
      <form method="post" action={`${base}/remove`}>
        <CsrfField page={page} />
        <button type="submit" aria-label={words.team.removeLabel(member.email)}>
          {words.team.remove}
        </button>
      </form>
    </div>
  )
}

function InviteForm({ page }: { page: ConsolePage }) {
  const words = consoleMessagesOf(page.locale)
  return (
    <section aria-labelledby="invite">
      <h2 id="invite">{words.team.invite}</h2>
      <form class="stack" method="post" action="/console/team/invite">
        <CsrfField page={page} />
        <label>
          {words.team.email}
          <input type="email" name="email" autocomplete="off" required />
        </label>
        <label>
          {words.team.role}
          <select name="role">
            {platformRoles.map((role) => (
              <option key={role} value={role}>
                {words.roles[role]}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">{words.team.inviteSubmit}</button>
      </form>
    </section>
  )
}

function InvitationsTable({ page, team }: { page: ConsolePage; team: PlatformTeamView }) {
  const words = consoleMessagesOf(page.locale)
  const zone = page.member?.timeZone ?? 'UTC'
  return (
    <section aria-labelledby="invitations">
      <h2 id="invitations">{words.team.invitations}</h2>
      {team.invitations.length === 0 ? (
        <p>{words.team.noInvitations}</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">{words.team.email}</th>
              <th scope="col">{words.team.role}</th>
              <th scope="col">{words.team.expires}</th>
            </tr>
          </thead>
          <tbody>
            {team.invitations.map((invitation) => (
              <tr key={invitation.id}>
                <td>{invitation.email}</td>
                <td>{words.roles[invitation.role]}</td>
                <td>{formatInstant(invitation.expiresAtUs, page.locale, zone)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}

function SessionsTable({ page, team }: { page: ConsolePage; team: PlatformTeamView }) {
  const words = consoleMessagesOf(page.locale)
  const zone = page.member?.timeZone ?? 'UTC'
  return (
    <section aria-labelledby="sessions">
      <h2 id="sessions">{words.team.sessions}</h2>
      {team.sessions.length === 0 ? (
        <p>{words.team.noSessions}</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">{words.team.email}</th>
              <th scope="col">{words.team.since}</th>
              <th scope="col">{words.team.address}</th>
            </tr>
          </thead>
          <tbody>
            {team.sessions.map(({ session, member }) => (
              <tr key={session.id}>
                <td>{member.email}</td>
                <td>{formatInstant(session.createdAtUs, page.locale, zone)}</td>
                <td>{session.address}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
