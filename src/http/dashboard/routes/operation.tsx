import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../../../app/context.ts'
import {
  type MemberActor,
  operationView,
  type RefundOutcome,
  refundFromDashboard,
  resendFromDashboard,
} from '../../../app/dashboard/operation-view.ts'
import { cancelFromDashboard } from '../../../app/dashboard/payout-batch-actions.ts'
import type { Mode } from '../../../domain/kinds.ts'
import { ApiError } from '../../../errors.ts'
import { formatMoney } from '../../pages/kit/index.ts'
import type { Guard, SignedIn } from '../guard.tsx'
import type { PageContext } from '../layout.tsx'
import { redirect, sendPage } from '../respond.ts'
import { modes } from './home.tsx'
import { operationPage, type PageNote } from './operation-page.tsx'
import { batchMemberOf, outcomeError } from './payout-batches.tsx'

const tokenPattern = /^[a-z0-9]{5}(-[a-z0-9]{5}){4}$/

function notFound(): Error {
  return Object.assign(new Error('No such operation'), { statusCode: 404 })
}

function memberOf(signedIn: SignedIn, request: FastifyRequest): MemberActor {
  const { member } = signedIn.live
  return { memberId: member.id, email: member.email, address: request.ip }
}

/** An operation's page, and the refund and resend actions on it. */
export function operationRoutes(app: FastifyInstance, context: AppContext, guard: Guard): void {
  for (const mode of modes) {
    const base = `/dashboard/${mode}/operations/:token`
    app.get(base, async (request, reply) => {
      const signedIn = await guard.member(request, reply, 'read', mode)
      if (!signedIn) return reply
      const { token } = request.params as { token: string }
      const query = request.query as { refunded?: string; resent?: string; canceled?: string }
      const { t } = signedIn.page
      const note: PageNote = {}
      // Only a token is taken from the link: the amounts shown are the record's own.
      if (query.refunded && tokenPattern.test(query.refunded))
        note.notice = t.operations.refundedNotice(query.refunded)
      if (query.resent) note.notice = t.operations.resent
      if (query.canceled) note.notice = t.operations.canceledNotice
      return showOperation(context, signedIn, reply, { mode, token, status: 200, note })
    })
    app.post(`${base}/refund`, async (request, reply) => {
      const signedIn = await guard.member(request, reply, 'refund', mode)
      if (!signedIn) return reply
      const { token } = request.params as { token: string }
      if (!tokenPattern.test(token)) throw notFound()
      const body = request.body as { amount?: string; reason?: string; reference?: string }
      const target = { merchantId: signedIn.live.member.merchantId, mode, token }
      const outcome = await refundFromDashboard(context, memberOf(signedIn, request), target, body)
      if ('refund' in outcome) {
        const refunded = outcome.refund.token
        return redirect(reply, `/dashboard/${mode}/operations/${token}?refunded=${refunded}`)
      }
      const error = refundRefusalText(signedIn.page, outcome)
      return showOperation(context, signedIn, reply, { mode, token, status: 422, note: { error } })
    })
    app.post(`${base}/cancel`, async (request, reply) => {
      const signedIn = await guard.member(request, reply, 'cancel', mode)
      if (!signedIn) return reply
      const { token } = request.params as { token: string }
      if (!tokenPattern.test(token)) throw notFound()
      const reason = ((request.body ?? {}) as { reason?: string }).reason?.trim().slice(0, 500) || undefined
      const target = { merchantId: signedIn.live.member.merchantId, mode, token }
      const outcome = await cancelFromDashboard(context, batchMemberOf(signedIn, request), target, reason)
      if ('operation' in outcome) return redirect(reply, `/dashboard/${mode}/operations/${token}?canceled=1`)
      const note = { error: outcomeError(signedIn.page, outcome) }
      return showOperation(context, signedIn, reply, { mode, token, status: outcome.apiError.status, note })
    })
    app.post(`${base}/events/:eventId/resend`, async (request, reply) => {
      const signedIn = await guard.member(request, reply, 'resend', mode)
      if (!signedIn) return reply
      const { token, eventId } = request.params as { token: string; eventId: string }
      if (!tokenPattern.test(token)) throw notFound()
      const target = { merchantId: signedIn.live.member.merchantId, mode, token, eventId }
      try {
        await resendFromDashboard(context, memberOf(signedIn, request), target)
      } catch (error) {
        if (!(error instanceof ApiError)) throw error
        const note = { error: `${signedIn.page.t.operations.refused} ${error.message}` }
        return showOperation(context, signedIn, reply, { mode, token, status: error.status, note })
      }
      return redirect(reply, `/dashboard/${mode}/operations/${token}?resent=${encodeURIComponent(eventId)}`)
    })
  }
}

function refundRefusalText(page: PageContext, outcome: Exclude<RefundOutcome, { refund: unknown }>): string {
  const { t } = page
  if (outcome.refused === 'amount_invalid') return t.operations.refundAmountInvalid
  const left =
    outcome.leftMinor !== undefined && outcome.currency
      ? ` ${t.operations.refundLeft(formatMoney(outcome.leftMinor, outcome.currency, page.locale))}`
      : ''
  return `${t.operations.refused} ${outcome.message}${left}`
}

async function showOperation(
  context: AppContext,
  signedIn: SignedIn,
  reply: FastifyReply,
  shown: { mode: Mode; token: string; status: number; note: PageNote },
): Promise<FastifyReply> {
  if (!tokenPattern.test(shown.token)) throw notFound()
  const view = await operationView(context, signedIn.live.member.merchantId, shown.mode, shown.token)
  if (!view) throw notFound()
  return sendPage(reply, shown.status, operationPage(signedIn.page, view, shown.note))
}
