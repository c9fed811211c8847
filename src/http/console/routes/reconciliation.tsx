import type { FastifyInstance, FastifyReply } from 'fastify'
import {
  approveFromConsole,
  breakQueue,
  breaksOfRun,
  breaksPerPage,
  breakView,
  decideBreakByHand,
  queueFilterOf,
  type ReconciliationRefusal,
  reconciliationRuns,
  runDayByHand,
} from '../../../app/console/reconciliation-console.ts'
import { importPortalExport } from '../../../app/console/reconciliation-import.ts'
import type { AppContext } from '../../../app/context.ts'
import { isCurrency, toMajorUnits } from '../../../domain/money.ts'
import { csvLine } from '../../csv.ts'
import { refusalText } from '../../dashboard/refusal-text.tsx'
import { sendPage } from '../../dashboard/respond.ts'
import { acceptUploads, uploadGate } from '../../dashboard/uploads.ts'
import { sendLockedOutOf } from '../../pages/sign-in-routes.tsx'
import { type ConsoleGuard, consoleActorOf } from '../guard.ts'
import type { ConsolePage } from '../layout.tsx'
import { reconciliationWords, wordOf } from '../messages/reconciliation.ts'
import { breakPage } from './reconciliation-break.tsx'
import {
  breakPath,
  breaksPath,
  importPath,
  queuePage,
  reconciliationPath,
  runsPage,
} from './reconciliation-runs.tsx'

type Form = Record<string, string | undefined>
type Outcome = { notice?: string; error?: string }

/** A refusal in the page's words: the console's own for reconciliation, the shared ones for codes. */
function refusalWords(page: ConsolePage, refused: ReconciliationRefusal): string {
  const code = refused.refused
  const own = reconciliationWords(page.locale).refusals
  if (Object.hasOwn(own, code)) return wordOf(own, code)
  return refusalText(page, refused as Parameters<typeof refusalText>[1])
}

type SendRuns = (
  reply: FastifyReply,
  page: ConsolePage,
  status: number,
  outcome?: Outcome,
) => Promise<FastifyReply>

/** Answers the runs page, with what was done or why not. */
const runsSender =
  (context: AppContext): SendRuns =>
  async (reply, page, status, outcome = {}) =>
    sendPage(
      reply,
      status,
      runsPage({ ...page, path: reconciliationPath }, await reconciliationRuns(context), outcome),
    )

/** The largest portal export the console takes: a busy day of an MTN MoMo account. */
const importLimitBytes = 32 * 1024 * 1024

/**
 * The upload of a portal export: the console's only multipart body, in a scope of its own whose
 * body is read only once the session, its permission and its CSRF token have been checked
 * (dashboard/uploads.ts). The file is kept byte for byte, as `sika reconcile import` keeps it.
 */
function importRoutes(uploads: FastifyInstance, context: AppContext, guard: ConsoleGuard): void {
  acceptUploads(uploads, { limitBytes: importLimitBytes, bytesFields: ['file'] })
  const sendRuns = runsSender(context)
  uploads.post(importPath, { preParsing: uploadGate(guard, 'reconciliation') }, async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'reconciliation')
    if (!signedIn) return reply
    const form = (request.body ?? {}) as Form
    const { page } = signedIn
    const words = reconciliationWords(page.locale)
    const bytes = Buffer.from(form.file ?? '', 'latin1')
    const outcome = await importPortalExport(
      context,
      consoleActorOf(signedIn, request),
      form.connection ?? '',
      bytes,
      form.columns ?? '',
    )
    if ('refused' in outcome)
      return sendRuns(reply, page, 422, {
        error:
          outcome.refused === 'import_unreadable'
            ? words.importUnreadable(outcome.columns.join(', '))
            : words.refusals[outcome.refused],
      })
    const done = words.imported(outcome.lines, outcome.connection, outcome.days.join(', '))
    const skipped = outcome.problems.length > 0 ? ` ${words.importSkipped(outcome.problems.length)}` : ''
    return sendRuns(reply, page, 200, { notice: `${done}${skipped}` })
  })
}

/**
 * The console's reconciliation (CONTRACT.md, Reconciliation): every member reads the runs, the
 * break queue and a break; a finance member (or an admin) runs a day by hand, imports a portal
 * export, resolves or ignores a break, and approves another member's decision above the review
 * amount.
 */
export function consoleReconciliationRoutes(
  app: FastifyInstance,
  context: AppContext,
  guard: ConsoleGuard,
): void {
  const sendRuns = runsSender(context)

  app.get(reconciliationPath, async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'read')
    if (!signedIn) return reply
    return sendRuns(reply, signedIn.page, 200)
  })

  app.post(`${reconciliationPath}/run`, async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'reconciliation')
    if (!signedIn) return reply
    const form = request.body as Form
    const { page } = signedIn
    const words = reconciliationWords(page.locale)
    const report = await runDayByHand(
      context,
      consoleActorOf(signedIn, request),
      form.connection ?? '',
      form.day ?? '',
    )
    if ('refused' in report) return sendRuns(reply, page, 422, { error: refusalWords(page, report) })
    const status = words.runStatuses[report.status] ?? report.status
    const notice = words.ran(report.connection, report.date, status, report.breaks.length)
    return sendRuns(
      reply,
      page,
      200,
      report.status === 'completed' ? { notice } : { error: `${notice} ${report.reason ?? ''}` },
    )
  })

  app.get(`${reconciliationPath}/runs/:connection/:day/breaks.csv`, async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'read')
    if (!signedIn) return reply
    const { connection, day } = request.params as { connection: string; day: string }
    const breaks = await breaksOfRun(context, connection, day)
    const header = [
      'id',
      'connection',
      'day',
      'kind',
      'state',
      'token',
      'operatorReference',
      'amount',
      'currency',
      'detail',
      'foundAt',
      'reason',
    ]
    const rows = breaks.map((found) =>
      csvLine([
        found.id,
        found.connectionId,
        found.day,
        found.kind,
        found.state,
        found.token,
        found.operatorReference,
        isCurrency(found.currency) ? toMajorUnits(found.amountMinor, found.currency) : found.amountMinor,
        found.currency,
        found.detail,
        new Date(Math.floor(found.foundAtUs / 1000)).toISOString(),
        found.reason,
      ]),
    )
    const filename = `breaks-${connection}-${day}.csv`.replace(/[^A-Za-z0-9._-]/g, '_')
    return reply
      .code(200)
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${filename}"`)
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .send([csvLine(header), ...rows].join(''))
  })

  app.get(breaksPath, async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'read')
    if (!signedIn) return reply
    const query = request.query as Form
    const filter = queueFilterOf(query)
    const pageNumber = Math.max(1, Math.min(1_000_000, Number.parseInt(query.page ?? '1', 10) || 1))
    const shown = await breakQueue(context, filter, pageNumber)
    const connections = context.providers.liveConnections().map((each) => each.id)
    return sendPage(
      reply,
      200,
      queuePage(signedIn.page, connections, filter, { ...shown, page: pageNumber, perPage: breaksPerPage }),
    )
  })

  breakRoutes(app, context, guard)
  app.register(async (uploads) => importRoutes(uploads, context, guard))
}

function breakRoutes(app: FastifyInstance, context: AppContext, guard: ConsoleGuard): void {
  const sendBreak = async (
    reply: FastifyReply,
    page: ConsolePage,
    id: string,
    status: number,
    outcome: Outcome = {},
  ) => {
    const view = await breakView(context, id)
    if (!view)
      return sendPage(
        reply,
        404,
        runsPage(page, await reconciliationRuns(context), {
          error: reconciliationWords(page.locale).notFound,
        }),
      )
    return sendPage(reply, status, breakPage({ ...page, path: breakPath(id) }, view, outcome))
  }

  app.get(`${breaksPath}/:id`, async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'read')
    if (!signedIn) return reply
    return sendBreak(reply, signedIn.page, (request.params as { id: string }).id, 200)
  })

  app.post(`${breaksPath}/:id/decide`, async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'reconciliation')
    if (!signedIn) return reply
    const { id } = request.params as { id: string }
    const form = request.body as Form
    const { page } = signedIn
    const words = reconciliationWords(page.locale)
    const decision = form.decision === 'ignored' ? 'ignored' : 'resolved'
    const outcome = await decideBreakByHand(
      context,
      consoleActorOf(signedIn, request),
      id,
      decision,
      form.reason ?? '',
    )
    if (outcome === undefined) return sendBreak(reply, page, id, 404)
    if ('refused' in outcome) return sendBreak(reply, page, id, 422, { error: refusalWords(page, outcome) })
    const notice = outcome.pendingApproval ? words.asked : words.decided(words.states[outcome.state])
    return sendBreak(reply, page, id, 200, { notice })
  })

  app.post(`${breaksPath}/:id/approve`, async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'reconciliation')
    if (!signedIn) return reply
    const { id } = request.params as { id: string }
    const { page } = signedIn
    const actor = consoleActorOf(signedIn, request)
    const holder = { memberId: actor.memberId, sessionId: signedIn.live.session.id, address: actor.address }
    const code = (request.body as Form).code ?? ''
    const outcome = await approveFromConsole(context, actor, holder, id, code)
    if (outcome === undefined) return sendBreak(reply, page, id, 404)
    // The code's attempt that locks the member ends this session, as at sign-in.
    if (typeof outcome !== 'string' && outcome.refused === 'account_locked')
      return sendLockedOutOf(guard, request, reply, breakPath(id), '/console')
    if (typeof outcome !== 'string') {
      const status = outcome.refused === 'address_throttled' ? 429 : 422
      return sendBreak(reply, page, id, status, { error: refusalWords(page, outcome) })
    }
    const words = reconciliationWords(page.locale)
    return sendBreak(reply, page, id, 200, { notice: words.decided(words.states[outcome]) })
  })
}
