import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../../../app/context.ts'
import {
  type CallbackView,
  type MemberActor,
  newRefundReference,
  type OperationView,
  operationView,
  type RefundOutcome,
  refundFromDashboard,
  resendFromDashboard,
  type TimelineEntry,
} from '../../../app/dashboard/operation-view.ts'
import { cancelFromDashboard } from '../../../app/dashboard/payout-batch-actions.ts'
import type { Mode } from '../../../domain/kinds.ts'
import { cancelableKinds } from '../../../domain/payout-batches.ts'
import { ApiError } from '../../../errors.ts'
import { formatInstant, formatMoney } from '../format.ts'
import type { Guard, SignedIn } from '../guard.tsx'
import { allows, CsrfField, memberPage, type PageContext, StatusBadge } from '../layout.tsx'
import { redirect, sendPage } from '../respond.ts'
import { modes } from './home.tsx'
import { batchMemberOf, outcomeError } from './payout-batches.tsx'

const tokenPattern = /^[a-z0-9]{5}(-[a-z0-9]{5}){4}$/

/** What the page says above the record: a notice after an action, or why it was refused. */
interface PageNote {
  notice?: string
  error?: string
}

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

function operationPage(page: PageContext, view: OperationView, note: PageNote): string {
  const { t } = page
  const { operation } = view
  return memberPage(
    page,
    t.operations.recordTitle(t.kinds[operation.kind], operation.token),
    <>
      {note.notice && (
        <p class="notice" role="status">
          {note.notice}
        </p>
      )}
      {note.error && (
        <p class="error" role="alert">
          {note.error}
        </p>
      )}
      <RecordSection page={page} view={view} />
      <SidesSection page={page} view={view} />
      <MetadataSection page={page} view={view} />
      <TimelineSection page={page} view={view} />
      <MovementsSection page={page} view={view} />
      <CallbacksSection page={page} view={view} />
      <RefundSection page={page} view={view} />
      <CancelSection page={page} view={view} />
    </>,
  )
}

function when(page: PageContext, atUs: number): string {
  return formatInstant(atUs, page.locale, page.member?.timeZone ?? 'UTC')
}

function RecordSection({ page, view }: { page: PageContext; view: OperationView }) {
  const { t } = page
  const { operation } = view
  const money = (minor: number) => formatMoney(minor, operation.currency, page.locale)
  const first = operation.sides[0]
  const row = (label: string, value: preact.ComponentChildren) => (
    <tr>
      <th scope="row">{label}</th>
      <td>{value}</td>
    </tr>
  )
  return (
    <section aria-labelledby="record">
      <h2 id="record">{t.operations.record}</h2>
      <table>
        <tbody>
          {row(t.operations.token, <code>{operation.token}</code>)}
          {row(t.operations.kind, t.kinds[operation.kind])}
          {row(t.common.status, <StatusBadge page={page} status={operation.status} />)}
          {first && row(t.common.amount, money(first.amountMinor))}
          {first && row(t.operations.fees, money(first.feesMinor))}
          {row(t.operations.merchantReference, operation.merchantReference)}
          {row(t.operations.initiatedAt, when(page, operation.initiatedAtUs))}
          {operation.completedAtUs !== null &&
            row(t.operations.completedAt, when(page, operation.completedAtUs))}
          {operation.refunds && row(t.operations.refunded, money(operation.refunds.refundedMinor))}
          {view.leftToRefundMinor !== undefined &&
            row(t.operations.leftToRefund, money(view.leftToRefundMinor))}
          {operation.refundOf &&
            row(
              t.operations.refundOf,
              <a href={`/dashboard/${operation.mode}/operations/${operation.refundOf.token}`}>
                {operation.refundOf.token}
              </a>,
            )}
          {operation.failure &&
            row(t.operations.failure, `${operation.failure.code}: ${operation.failure.message}`)}
        </tbody>
      </table>
    </section>
  )
}

function SidesSection({ page, view }: { page: PageContext; view: OperationView }) {
  const { t } = page
  return (
    <section aria-labelledby="sides">
      <h2 id="sides">{t.operations.sides}</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">{t.operations.side}</th>
            <th scope="col">{t.operations.channel}</th>
            <th scope="col">{t.operations.country}</th>
            <th scope="col">{t.operations.phone}</th>
            <th scope="col">{t.operations.fullName}</th>
            <th scope="col">{t.common.status}</th>
            <th scope="col" class="num">
              {t.common.amount}
            </th>
            <th scope="col">{t.operations.operatorReference}</th>
            <th scope="col">{t.operations.failure}</th>
          </tr>
        </thead>
        <tbody>
          {view.operation.sides.map((side) => (
            <tr key={side.role}>
              <th scope="row">{t.sideRoles[side.role]}</th>
              <td>{side.channel}</td>
              <td>{side.country}</td>
              <td>{side.customer.phoneNumber}</td>
              <td class="customer-name">{side.customer.fullName}</td>
              <td>
                <StatusBadge page={page} status={side.status} />
              </td>
              <td class="num">{formatMoney(side.amountMinor, side.currency, page.locale)}</td>
              <td>{side.operatorReference ?? ''}</td>
              <td>{side.failure ? `${side.failure.code}: ${side.failure.message}` : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}

function MetadataSection({ page, view }: { page: PageContext; view: OperationView }) {
  const { t } = page
  const entries = Object.entries(view.operation.metadata ?? {})
  return (
    <section aria-labelledby="metadata">
      <h2 id="metadata">{t.operations.metadata}</h2>
      {entries.length === 0 ? (
        <p class="muted">{t.operations.noMetadata}</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">{t.operations.key}</th>
              <th scope="col">{t.operations.value}</th>
            </tr>
          </thead>
          <tbody>
            {entries.map(([key, value]) => (
              <tr key={key}>
                <th scope="row">{key}</th>
                <td>{value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}

function timelineWords(page: PageContext, entry: TimelineEntry): [string, string] {
  const { t } = page
  if (entry.what === 'initiated') return [t.operations.initiated, '']
  if (entry.what === 'submitted') {
    const references = [entry.operatorReference, entry.providerReference].filter(Boolean).join(' · ')
    return [t.operations.submitted(t.sideRoles[entry.role]), references]
  }
  if (entry.what === 'corrected') return [t.operations.corrected(entry.connection, entry.day), '']
  return [t.operations.statusEvent(t.statuses[entry.status] ?? entry.status), entry.reason ?? '']
}

function TimelineSection({ page, view }: { page: PageContext; view: OperationView }) {
  const { t } = page
  return (
    <section aria-labelledby="timeline">
      <h2 id="timeline">{t.operations.timeline}</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">{t.common.when}</th>
            <th scope="col">{t.operations.event}</th>
            <th scope="col">{t.operations.details}</th>
          </tr>
        </thead>
        <tbody>
          {view.timeline.map((entry, index) => {
            const [what, details] = timelineWords(page, entry)
            return (
              <tr key={String(index)}>
                <td>{when(page, entry.atUs)}</td>
                <td>{what}</td>
                <td>{details}</td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </section>
  )
}

function MovementsSection({ page, view }: { page: PageContext; view: OperationView }) {
  const { t } = page
  return (
    <section aria-labelledby="movements">
      <h2 id="movements">{t.operations.movements}</h2>
      {view.movements.length === 0 ? (
        <p class="muted">{t.common.none}</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">{t.common.when}</th>
              <th scope="col">{t.operations.movementReference}</th>
              <th scope="col">{t.operations.movementType}</th>
              <th scope="col">{t.common.status}</th>
              <th scope="col" class="num">
                {t.common.amount}
              </th>
              <th scope="col" class="num">
                {t.operations.balanceAfter}
              </th>
            </tr>
          </thead>
          <tbody>
            {view.movements.map((entry) => (
              <tr key={entry.reference}>
                <td>{when(page, entry.createdAtUs)}</td>
                <td>{entry.reference}</td>
                <td>{t.movements[entry.type]}</td>
                <td>
                  <StatusBadge page={page} status={entry.status} />
                </td>
                <td class="num">{formatMoney(entry.amountMinor, entry.currency, page.locale)}</td>
                <td class="num">
                  {entry.balanceAfterMinor === null
                    ? ''
                    : formatMoney(entry.balanceAfterMinor, entry.currency, page.locale)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}

function CallbacksSection({ page, view }: { page: PageContext; view: OperationView }) {
  const { t } = page
  return (
    <section aria-labelledby="callbacks">
      <h2 id="callbacks">{t.operations.callbacks}</h2>
      {view.callbacks.length === 0 ? (
        <p class="muted">{t.operations.noCallbacks}</p>
      ) : (
        view.callbacks.map((callback) => (
          <CallbackBlock key={callback.event.id} page={page} view={view} callback={callback} />
        ))
      )}
    </section>
  )
}

function CallbackBlock({
  page,
  view,
  callback,
}: {
  page: PageContext
  view: OperationView
  callback: CallbackView
}) {
  const { t } = page
  const { event, attempts } = callback
  const headingId = `event-${event.id}`
  return (
    <article class="callback" aria-labelledby={headingId}>
      <h3 id={headingId}>
        {event.type} · {t.operations.delivery}: {deliveryWords(page, event.deliveryStatus)}
      </h3>
      <p class="muted">
        {when(page, event.createdAtUs)} ·{' '}
        {event.callbackUrl ? t.operations.callbackTo(event.callbackUrl) : t.operations.noCallbackUrl}
      </p>
      {attempts.length === 0 ? (
        <p class="muted">{t.operations.noAttempts}</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">{t.operations.attempt}</th>
              <th scope="col">{t.common.when}</th>
              <th scope="col">{t.operations.answer}</th>
              <th scope="col" class="num">
                {t.operations.duration}
              </th>
              <th scope="col">{t.operations.error}</th>
            </tr>
          </thead>
          <tbody>
            {attempts.map((attempt) => (
              <tr key={String(attempt.number)}>
                <th scope="row">{attempt.number}</th>
                <td>{when(page, attempt.startedAtUs)}</td>
                <td>
                  {attempt.statusCode === null
                    ? deliveryWords(page, attempt.outcome)
                    : `${attempt.statusCode} (${deliveryWords(page, attempt.outcome)})`}
                </td>
                <td class="num">{t.operations.milliseconds(attempt.durationMs)}</td>
                <td>{attempt.error ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {allows(page, 'resend') && event.callbackUrl && (
        <form
          method="post"
          action={`/dashboard/${view.operation.mode}/operations/${view.operation.token}/events/${event.id}/resend`}
        >
          <CsrfField page={page} />
          <button type="submit" name="resend" value={event.id}>
            {t.operations.resend}
          </button>
        </form>
      )}
    </article>
  )
}

function RefundSection({ page, view }: { page: PageContext; view: OperationView }) {
  const { t } = page
  const { operation } = view
  if (!allows(page, 'refund') || view.leftToRefundMinor === undefined || view.leftToRefundMinor <= 0)
    return null
  return (
    <section aria-labelledby="refund">
      <h2 id="refund">{t.operations.refundTitle}</h2>
      <form method="post" action={`/dashboard/${operation.mode}/operations/${operation.token}/refund`}>
        <input type="hidden" name="reference" value={newRefundReference()} />
        <CsrfField page={page} />
        <p>
          <label for="refund-amount">{t.operations.refundAmount(operation.currency)}</label>
          <input
            id="refund-amount"
            name="amount"
            type="text"
            inputmode="decimal"
            aria-describedby="refund-amount-hint"
          />
          <span id="refund-amount-hint" class="muted">
            {t.operations.refundAmountHint}
          </span>
        </p>
        <p>
          <label for="refund-reason">{t.operations.refundReason}</label>
          <input id="refund-reason" name="reason" type="text" maxLength={500} />
        </p>
        <button type="submit">{t.operations.refundSubmit}</button>
      </form>
    </section>
  )
}

/** A pending cash-out a merchant may cancel (CONTRACT.md, Cancel): the API's cancel says whether it still can. */
function CancelSection({ page, view }: { page: PageContext; view: OperationView }) {
  const { t } = page
  const { operation } = view
  if (!allows(page, 'cancel') || !cancelableKinds.includes(operation.kind) || operation.status !== 'pending')
    return null
  return (
    <section aria-labelledby="cancel">
      <h2 id="cancel">{t.operations.cancelTitle}</h2>
      <p id="cancel-intro">{t.operations.cancelIntro}</p>
      <form method="post" action={`/dashboard/${operation.mode}/operations/${operation.token}/cancel`}>
        <CsrfField page={page} />
        <p>
          <label for="cancel-reason">{t.operations.cancelReason}</label>
          <input id="cancel-reason" name="reason" type="text" maxLength={500} />
        </p>
        <button type="submit" class="danger" aria-describedby="cancel-intro">
          {t.operations.cancelSubmit}
        </button>
      </form>
    </section>
  )
}

/** A delivery's status or an attempt's outcome in the member's words. */
function deliveryWords(page: PageContext, status: string): string {
  const words: Record<string, string> = {
    ...page.t.developers.deliveryStatuses,
    retry: page.t.operations.retrying,
  }
  return words[status] ?? status
}
