import type { FastifyInstance, FastifyReply } from 'fastify'
import {
  inviteMemberAgain,
  type PersonToHelp,
  personToHelp,
  resetMemberAuthenticator,
} from '../../../app/console/merchant-members.ts'
import type { AppContext } from '../../../app/context.ts'
import { plainPage } from '../../dashboard/layout.tsx'
import { sendPage } from '../../dashboard/respond.ts'
import { ConfirmForm, Notification, SummaryList, showInstant } from '../../pages/kit/index.ts'
import { type ConsoleGuard, consoleActorOf } from '../guard.ts'
import { type ConsolePage, consolePage } from '../layout.tsx'
import { merchantWordsOf } from '../messages/merchants.ts'
import { sendMerchantPage } from './merchant.tsx'
import { helpPath, type HelpStep as Step } from './merchant-parts.tsx'

const merchantPath = (merchantId: string) => `/console/merchants/${encodeURIComponent(merchantId)}`

/**
 * Support's help to a merchant's members (the `members` permission): reset a member's
 * authenticator, or invite again an invitation not accepted or a member locked out. Each has a
 * confirmation page, then a POST with the console's CSRF token; the guard refuses any other role
 * (and a forged form) before anything changes.
 */
export function consoleMerchantMembersRoutes(
  app: FastifyInstance,
  context: AppContext,
  guard: ConsoleGuard,
): void {
  for (const step of ['reset-totp', 'invite-again'] as const) {
    app.get(`/console/merchants/:id/members/${step}`, async (request, reply) => {
      const signedIn = await guard.member(request, reply, 'members')
      if (!signedIn) return reply
      const merchantId = (request.params as { id: string }).id
      const email = String((request.query as { email?: string }).email ?? '')
        .trim()
        .toLowerCase()
      const person = await personToHelp(context, merchantId, email)
      const page = { ...signedIn.page, path: helpPath(merchantId, step, email) }
      if (!person || (step === 'reset-totp' && !person.memberId)) return sendNotFound(reply, page)
      return sendPage(reply, 200, confirmPage(page, merchantId, step, person))
    })
  }
  app.post('/console/merchants/:id/members/reset-totp', async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'members')
    if (!signedIn) return reply
    const merchantId = (request.params as { id: string }).id
    const email = String((request.body as { email?: string } | undefined)?.email ?? '')
    const actor = consoleActorOf(signedIn, request)
    const outcome = await resetMemberAuthenticator(context, actor, merchantId, email)
    const notice = 'done' in outcome ? merchantWordsOf(signedIn.page.locale).resetTotpDone(email) : undefined
    return sendMerchantPage(context, reply, signedIn.page, merchantId, {
      outcome,
      ...(notice ? { notice } : {}),
    })
  })
  app.post('/console/merchants/:id/members/invite-again', async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'members')
    if (!signedIn) return reply
    const merchantId = (request.params as { id: string }).id
    const email = String((request.body as { email?: string } | undefined)?.email ?? '')
    const person = await personToHelp(context, merchantId, email.trim().toLowerCase())
    const actor = consoleActorOf(signedIn, request)
    const outcome = await inviteMemberAgain(context, actor, merchantId, email)
    if (!person || !('done' in outcome))
      return sendMerchantPage(context, reply, signedIn.page, merchantId, { outcome })
    const words = merchantWordsOf(signedIn.page.locale)
    const page = { ...signedIn.page, path: merchantPath(merchantId) }
    return sendPage(
      reply,
      200,
      consolePage(
        page,
        words.invitedAgainTitle(person.email),
        <>
          <Notification notice={words.invitedAgainNotice(person.role)} />
          <p>{words.invitationOnce(showInstant(page, outcome.expiresAtUs))}</p>
          <p>
            <code data-invitation-url>{outcome.invitationUrl}</code>
          </p>
          <p>
            <a href={merchantPath(merchantId)}>{words.backToMerchant}</a>
          </p>
        </>,
      ),
    )
  })
}

function sendNotFound(reply: FastifyReply, page: ConsolePage): FastifyReply {
  return sendPage(
    reply,
    404,
    plainPage(page, page.t.errors.notFoundTitle, <p class="error">{page.t.errors.notFound}</p>),
  )
}

function confirmPage(page: ConsolePage, merchantId: string, step: Step, person: PersonToHelp): string {
  const words = merchantWordsOf(page.locale)
  const reset = step === 'reset-totp'
  const intro = reset
    ? words.resetTotpIntro
    : person.memberId
      ? words.inviteAgainMember
      : words.inviteAgainInvitation
  return consolePage(
    page,
    reset ? words.resetTotpTitle(person.email) : words.inviteAgainTitle(person.email),
    <>
      <SummaryList
        rows={[
          [words.email, person.email],
          [words.role, person.role],
          person.name !== undefined && [words.name, person.name],
          person.enrolled !== undefined && [words.enrolled, person.enrolled ? words.yes : words.no],
        ]}
      />
      <ConfirmForm
        page={page}
        action={`${merchantPath(merchantId)}/members/${step}`}
        id="help-intro"
        intro={intro}
        button={reset ? words.resetTotp : words.inviteAgain}
        tone="danger"
      >
        <input type="hidden" name="email" value={person.email} />
      </ConfirmForm>
      <p>
        <a href={merchantPath(merchantId)}>{words.backToMerchant}</a>
      </p>
    </>,
  )
}
