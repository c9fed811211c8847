import type { FastifyInstance, FastifyReply } from 'fastify'
import {
  type ConsoleOperationView,
  consoleOperationView,
  type RecheckOutcome,
  recheckFromConsole,
  resendFromConsole,
} from '../../../app/console/operation-file.ts'
import { type PlatformOperationPage, searchAllOperations } from '../../../app/console/operation-search.ts'
import type { AppContext } from '../../../app/context.ts'
import { cursorText } from '../../../app/dashboard/search.ts'
import { type Mode, modes } from '../../../domain/kinds.ts'
import { plainPage } from '../../dashboard/layout.tsx'
import { OperationsTable } from '../../dashboard/operations-table.tsx'
import { sendPage } from '../../dashboard/respond.ts'
import { OperationSections } from '../../dashboard/routes/operation-page.tsx'
import { operationQuery } from '../../dashboard/routes/operations.tsx'
import { type ListParameters, OperationSearchForm } from '../../dashboard/routes/operations-page.tsx'
import { ConfirmForm, Notification, Pagination, Section } from '../../pages/kit/index.ts'
import { type ConsoleGuard, consoleActorOf } from '../guard.ts'
import { type ConsolePage, consoleAllows, consolePage } from '../layout.tsx'
import { operationWordsOf } from '../messages/operations.ts'

type Parameters = ListParameters & { merchant?: string; mode?: string }

const operationHref = (operation: { token: string }) => `/console/operations/${operation.token}`

/** Operations of every merchant: one search, the filters, a page at a time; an operation's page read-only but for support's resend and its ask of the operator. */
export function consoleOperationsRoutes(
  app: FastifyInstance,
  context: AppContext,
  guard: ConsoleGuard,
): void {
  app.get('/console/operations', async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'read')
    if (!signedIn) return reply
    const parameters = request.query as Parameters
    const mode: Mode = parameters.mode === 'sandbox' ? 'sandbox' : 'live'
    const merchantId = parameters.merchant?.trim().slice(0, 100) || undefined
    const found = await searchAllOperations(context, {
      ...operationQuery(parameters),
      mode,
      ...(merchantId ? { merchantId } : {}),
    })
    return sendPage(reply, 200, listPage(signedIn.page, parameters, found))
  })
  app.get('/console/operations/:token', async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'read')
    if (!signedIn) return reply
    return sendOperationPage(context, reply, signedIn.page, (request.params as { token: string }).token)
  })
  app.post('/console/operations/:token/events/:eventId/resend', async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'resend')
    if (!signedIn) return reply
    const { token, eventId } = request.params as { token: string; eventId: string }
    await resendFromConsole(context, consoleActorOf(signedIn, request), token, eventId)
    return sendOperationPage(context, reply, signedIn.page, token, {
      notice: operationWordsOf(signedIn.page.locale).resent,
    })
  })
  app.post('/console/operations/:token/recheck', async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'recheck')
    if (!signedIn) return reply
    const { token } = request.params as { token: string }
    const outcome = await recheckFromConsole(context, consoleActorOf(signedIn, request), token)
    return sendOperationPage(context, reply, signedIn.page, token, recheckMessage(signedIn.page, outcome))
  })
}

/** What the page says after support asked the operator again, or, as an error, why nothing was asked. */
function recheckMessage(page: ConsolePage, outcome: RecheckOutcome): PageMessage {
  const words = operationWordsOf(page.locale)
  if (!outcome.asked) return { error: words.nothingToAsk[outcome.why] }
  return { notice: words.rechecked(page.t.statuses[outcome.before], page.t.statuses[outcome.after]) }
}

/** A line at the top of the operation's page: what was done, or why it was not. */
type PageMessage = { notice?: string; error?: string }

/** Support's "ask again", or, where there is no operator to ask, the reason in its place. */
function RecheckStep({ page, view }: { page: ConsolePage; view: ConsoleOperationView }) {
  if (!consoleAllows(page, 'recheck')) return null
  const words = operationWordsOf(page.locale)
  return (
    <Section id="operator" title={words.recheckTitle}>
      {view.nothingToAsk ? (
        <p>{words.nothingToAsk[view.nothingToAsk]}</p>
      ) : (
        <ConfirmForm
          page={page}
          action={`/console/operations/${view.operation.token}/recheck`}
          id="recheck-intro"
          intro={words.recheckIntro}
          button={words.recheck}
        />
      )}
    </Section>
  )
}

async function sendOperationPage(
  context: AppContext,
  reply: FastifyReply,
  page: ConsolePage,
  token: string,
  message: PageMessage = {},
): Promise<FastifyReply> {
  const view = await consoleOperationView(context, token)
  if (!view)
    return sendPage(
      reply,
      404,
      plainPage(page, page.t.errors.notFoundTitle, <p class="error">{page.t.errors.notFound}</p>),
    )
  return sendPage(reply, 200, operationPage({ ...page, path: operationHref({ token }) }, view, message))
}

function operationPage(page: ConsolePage, view: ConsoleOperationView, message: PageMessage): string {
  const { t } = page
  const words = operationWordsOf(page.locale)
  const { operation } = view
  const resendAction = consoleAllows(page, 'resend')
    ? (eventId: string) => `/console/operations/${operation.token}/events/${eventId}/resend`
    : undefined
  return consolePage(
    page,
    t.operations.recordTitle(t.kinds[operation.kind], operation.token),
    <>
      <Notification notice={message.notice} error={message.error} />
      <p>
        {words.merchantOf}:{' '}
        <a href={`/console/merchants/${encodeURIComponent(operation.merchantId)}`}>{view.merchantName}</a> (
        {words.modes[operation.mode]})
      </p>
      <RecheckStep page={page} view={view} />
      <OperationSections page={page} view={view} hrefOf={operationHref} resendAction={resendAction} />
    </>,
  )
}

function linkWith(parameters: Parameters, changes: Parameters): string {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries({ ...parameters, ...changes }))
    if (value) search.set(name, value)
  const text = search.toString()
  return `/console/operations${text ? `?${text}` : ''}`
}

function listPage(page: ConsolePage, parameters: Parameters, found: PlatformOperationPage): string {
  const { t } = page
  const words = operationWordsOf(page.locale)
  return consolePage(
    page,
    words.title,
    <>
      <OperationSearchForm page={page} action="/console/operations" parameters={parameters}>
        <label for="merchant">{words.merchant}</label>
        <input id="merchant" name="merchant" type="text" value={parameters.merchant ?? ''} />
        <label for="mode">{words.mode}</label>
        <select id="mode" name="mode">
          {modes.map((mode) => (
            <option key={mode} value={mode} selected={(parameters.mode ?? 'live') === mode}>
              {words.modes[mode]}
            </option>
          ))}
        </select>
      </OperationSearchForm>
      <Section id="results" title={words.title}>
        {Boolean(parameters.q?.trim()) && <p role="status">{words.found(found.items.length)}</p>}
        <OperationsTable page={page} operations={found.items} hrefOf={operationHref} />
        <Pagination
          page={page}
          label={t.nav.operations}
          first={parameters.after ? linkWith(parameters, { after: '' }) : undefined}
          next={found.next ? linkWith(parameters, { after: cursorText(found.next) }) : undefined}
        />
      </Section>
    </>,
  )
}
