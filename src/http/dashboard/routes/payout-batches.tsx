import { randomBytes } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../../../app/context.ts'
import {
  approveFromDashboard,
  type BatchMember,
  type BatchOutcome,
  cancelBatchFromDashboard,
  rejectFromDashboard,
  submitUploadedBatch,
} from '../../../app/dashboard/payout-batch-actions.ts'
import { previewPayoutBatch, readPayoutCsv } from '../../../app/dashboard/payout-batch-upload.ts'
import {
  batchesOf,
  batchResultColumns,
  batchResultsExport,
  batchViewOf,
} from '../../../app/dashboard/payout-batch-view.ts'
import { type DashboardRefusal, isRefusal } from '../../../app/dashboard/refusals.ts'
import type { Principal } from '../../../app/principal.ts'
import type { Mode } from '../../../domain/kinds.ts'
import { type Currency, toMajorUnits } from '../../../domain/money.ts'
import type { ApiError } from '../../../errors.ts'
import { pageNumberOf } from '../../pages/kit/index.ts'
import { sendCsvExport } from '../csv-export.tsx'
import type { Guard, SignedIn } from '../guard.tsx'
import type { PageContext } from '../layout.tsx'
import { refusalText } from '../refusal-text.tsx'
import { redirect, sendPage } from '../respond.ts'
import { acceptUploads, uploadGate } from '../uploads.ts'
import { modes } from './home.tsx'
import { type BatchNote, batchPage } from './payout-batch-page.tsx'
import { previewPage } from './payout-batch-preview-page.tsx'
import { batchesPage } from './payout-batches-page.tsx'
import { sendLockedOut } from './sign-in.tsx'

type Form = Record<string, string | undefined>

export function principalOf(signedIn: SignedIn, mode: Mode): Principal {
  return { merchantId: signedIn.live.member.merchantId, merchantName: '', mode }
}

/** A batch reference the member did not give: unique enough among a merchant's batches. */
function newBatchReference(): string {
  return `dashboard-${new Date().toISOString().slice(0, 10)}-${randomBytes(4).toString('hex')}`
}

/**
 * The payout batch pages of each place: the list and the upload form (permission 'read' to see,
 * 'batches' to upload), the preview of an uploaded file, and its submission.
 */
export function payoutBatchRoutes(app: FastifyInstance, context: AppContext, guard: Guard): void {
  app.register(async (uploads) => uploadRoutes(uploads, context, guard))
  for (const mode of modes) {
    const base = `/dashboard/${mode}/payout-batches`
    app.get(base, async (request, reply) => {
      const signedIn = await guard.member(request, reply, 'read', mode)
      if (!signedIn) return reply
      const { page } = request.query as { page?: string }
      const list = await batchesOf(context, signedIn.live.member.merchantId, mode, pageNumberOf(page))
      return sendPage(reply, 200, batchesPage(signedIn.page, list, { current: pageNumberOf(page) }))
    })
    batchRoutes(app, context, guard, mode)
    batchActionRoutes(app, context, guard, mode)
  }
}

/** The upload's preview and its submission: the dashboard's only multipart bodies (uploads.ts). */
function uploadRoutes(uploads: FastifyInstance, context: AppContext, guard: Guard): void {
  acceptUploads(uploads)
  for (const mode of modes) {
    const base = `/dashboard/${mode}/payout-batches`
    const preParsing = uploadGate(guard, 'batches', mode)
    uploads.post(`${base}/preview`, { preParsing }, async (request, reply) => {
      const signedIn = await guard.member(request, reply, 'batches', mode)
      if (!signedIn) return reply
      return previewAnswer(context, request, reply, signedIn, mode)
    })
    uploads.post(base, { preParsing }, async (request, reply) => {
      const signedIn = await guard.member(request, reply, 'batches', mode)
      if (!signedIn) return reply
      return submitAnswer(context, request, reply, signedIn, mode)
    })
  }
}

export function batchMemberOf(signedIn: SignedIn, request: FastifyRequest): BatchMember {
  const { member, session } = signedIn.live
  return {
    memberId: member.id,
    name: member.name,
    email: member.email,
    address: request.ip,
    sessionId: session.id,
  }
}

/** The words of a refused action: the dashboard's own refusal, or the API's message after "Sika refused this:". */
export function outcomeError(page: PageContext, outcome: DashboardRefusal | { apiError: ApiError }): string {
  return 'apiError' in outcome
    ? `${page.t.operations.refused} ${outcome.apiError.message}`
    : refusalText(page, outcome)
}

/** The previewed file submitted again: checked again, then accepted as the member's batch, awaiting approval. */
async function submitAnswer(
  context: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  signedIn: SignedIn,
  mode: Mode,
): Promise<FastifyReply> {
  const form = (request.body ?? {}) as Form
  const csv = Buffer.from(form.csv ?? '', 'base64').toString('utf8')
  const reference = form.reference?.trim() || newBatchReference()
  const principal = principalOf(signedIn, mode)
  const outcome = await submitUploadedBatch(context, batchMemberOf(signedIn, request), principal, {
    csv,
    reference,
  })
  if ('view' in outcome)
    return redirect(reply, `/dashboard/${mode}/payout-batches/${outcome.view.batch.token}?done=submitted`)
  const list = await batchesOf(context, signedIn.live.member.merchantId, mode, 1)
  const error = outcomeError(signedIn.page, outcome)
  return sendPage(
    reply,
    'apiError' in outcome ? outcome.apiError.status : 422,
    batchesPage(signedIn.page, list, { error, current: 1 }),
  )
}

/** Approve (with a fresh code), reject, cancel: each answers the batch's page, with what was done or why not. */
function batchActionRoutes(app: FastifyInstance, context: AppContext, guard: Guard, mode: Mode): void {
  const base = `/dashboard/${mode}/payout-batches/:token`
  const act = (
    path: string,
    permission: 'batches' | 'cancel',
    done: (typeof notices)[number],
    action: (
      target: { merchantId: string; mode: Mode; token: string },
      member: BatchMember,
      form: Form,
    ) => Promise<BatchOutcome>,
  ) =>
    app.post(`${base}/${path}`, async (request, reply) => {
      const signedIn = await guard.member(request, reply, permission, mode)
      if (!signedIn) return reply
      const { token } = request.params as { token: string }
      if (!tokenPattern.test(token)) throw notFound()
      const target = { merchantId: signedIn.live.member.merchantId, mode, token }
      const outcome = await action(target, batchMemberOf(signedIn, request), (request.body ?? {}) as Form)
      if (isRefusal(outcome) && outcome.refused === 'account_locked')
        return sendLockedOut(guard, request, reply)
      if ('view' in outcome) return redirect(reply, `/dashboard/${mode}/payout-batches/${token}?done=${done}`)
      const status = 'apiError' in outcome ? outcome.apiError.status : 422
      const note = { error: outcomeError(signedIn.page, outcome) }
      return showBatch(context, signedIn, reply, { mode, token, status, note })
    })
  act('approve', 'batches', 'approved', (target, member, form) =>
    approveFromDashboard(context, member, target, form.code ?? ''),
  )
  act('reject', 'batches', 'rejected', (target, member) => rejectFromDashboard(context, member, target))
  act('cancel', 'cancel', 'canceled', (target, member) => cancelBatchFromDashboard(context, member, target))
}

const tokenPattern = /^[a-z0-9_-]{4,64}$/i

function notFound(): Error {
  return Object.assign(new Error('No such payout batch'), { statusCode: 404 })
}

/** Which notice a batch's page shows after an action, named in its link. */
const notices = ['submitted', 'approved', 'rejected', 'canceled'] as const

/** A batch's page and its results as CSV. */
function batchRoutes(app: FastifyInstance, context: AppContext, guard: Guard, mode: Mode): void {
  const base = `/dashboard/${mode}/payout-batches/:token`
  app.get(base, async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'read', mode)
    if (!signedIn) return reply
    const { token } = request.params as { token: string }
    const { done } = request.query as { done?: string }
    const notice = notices.find((name) => name === done)
    const note = notice ? { notice: signedIn.page.t.payoutBatches[notice] } : {}
    return showBatch(context, signedIn, reply, { mode, token, status: 200, note })
  })
  app.get(`${base}/results.csv`, async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'read', mode)
    if (!signedIn) return reply
    const { token } = request.params as { token: string }
    const merchantId = signedIn.live.member.merchantId
    const found = tokenPattern.test(token)
      ? await batchResultsExport(context, merchantId, mode, token)
      : undefined
    if (!found) throw notFound()
    return sendCsvExport(reply, signedIn.page, found.open, {
      filename: `sika-${mode}-batch-${found.summary.batch.token}.csv`,
      header: batchResultColumns,
      cells: (item) => [
        item.token,
        item.merchantReference,
        item.phoneNumber,
        item.fullName,
        toMajorUnits(item.amountMinor, item.currency as Currency),
        item.currency,
        item.status,
        item.failureCode,
        item.failureMessage,
      ],
    })
  })
}

export async function showBatch(
  context: AppContext,
  signedIn: SignedIn,
  reply: FastifyReply,
  shown: { mode: Mode; token: string; status: number; note: BatchNote },
): Promise<FastifyReply> {
  if (!tokenPattern.test(shown.token)) throw notFound()
  const { member } = signedIn.live
  const view = await batchViewOf(context, member.merchantId, shown.mode, shown.token)
  if (!view) throw notFound()
  return sendPage(reply, shown.status, batchPage(signedIn.page, view, shown.note, member.id))
}

/** The uploaded file read and every row checked; nothing is written. */
async function previewAnswer(
  context: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  signedIn: SignedIn,
  mode: Mode,
): Promise<FastifyReply> {
  const form = (request.body ?? {}) as Form
  const text = form.file ?? ''
  const rows = readPayoutCsv(text)
  if (isRefusal(rows)) {
    const list = await batchesOf(context, signedIn.live.member.merchantId, mode, 1)
    return sendPage(reply, 422, batchesPage(signedIn.page, list, { refusal: rows, current: 1 }))
  }
  const preview = await previewPayoutBatch(context, principalOf(signedIn, mode), rows)
  const reference = form.reference?.trim() || newBatchReference()
  const faulty = preview.faulty > 0 || preview.mixedCurrencies
  const shown = { preview, reference, csv: Buffer.from(text, 'utf8').toString('base64') }
  return sendPage(reply, faulty ? 422 : 200, previewPage(signedIn.page, shown))
}
