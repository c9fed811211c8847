import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { cancelOperation } from '../../app/cancel.ts'
import type { AppContext } from '../../app/context.ts'
import {
  acceptPayoutBatch,
  cancelPayoutBatch,
  listPayoutBatches,
  type PayoutBatchInput,
  payoutBatchDetails,
  payoutBatchRecord,
} from '../../app/payout-batches/index.ts'
import { operationRecord } from '../../app/records.ts'
import { operationKinds } from '../../domain/kinds.ts'
import { cancelableKinds } from '../../domain/payout-batches.ts'
import { paginationMeta } from '../pagination.ts'
import {
  CancelBody,
  PayoutBatchBody,
  PayoutBatchListQuery,
  PayoutBatchRecord,
  payoutBatchExamples,
} from '../payout-batch-schemas.ts'
import { dateRange } from '../query.ts'
import { envelope, listEnvelope, operationRecordOf, TokenParams } from '../schemas.ts'
import { envelopeOf } from './operations.ts'

/** Two MiB: a batch of 1,000 payouts with metadata; every other route keeps 64 KiB. */
export const payoutBatchBodyLimitBytes = 2 * 1024 * 1024

/** A cancel's body may be absent, or empty under `content-type: application/json`: read as `{}`. */
const emptyBody = { emptyBodyAsObject: true }

/** A cancel's body may be absent: read as `{}`. */
function emptyBodyAsObject(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  request.body ??= {}
  done()
}

/** CONTRACT.md, Payout batches and Cancel. */
export function payoutBatchRoutes(app: FastifyInstance, context: AppContext): void {
  acceptRoute(app, context)
  listRoute(app, context)
  detailsRoute(app, context)
  batchCancelRoute(app, context)
  for (const kind of cancelableKinds) cancelRoute(app, context, kind)
}

function listRoute(app: FastifyInstance, context: AppContext): void {
  app.get(
    '/payout-batch',
    {
      schema: {
        tags: ['payout-batch'],
        operationId: 'listPayoutBatches',
        summary: 'List payout batches',
        description:
          'Newest first, `perPage` 1 to 100 (default 10). Filters: `status`, `merchantReference`, and `from` (inclusive) and `to` (exclusive) on the initiationDate; the page URLs keep them.',
        querystring: PayoutBatchListQuery,
        response: { 200: listEnvelope('payoutBatches', PayoutBatchRecord) },
      },
    },
    async (request) => {
      const query = request.query as PayoutBatchListQuery
      const { page = 1, perPage = 10, status, merchantReference, from, to } = query
      const { merchantId, mode } = request.principal
      const filter = { status, merchantReference, ...dateRange(from, to) }
      const { items, total } = await listPayoutBatches(context, merchantId, mode, { page, perPage }, filter)
      return {
        ...envelopeOf('Payout batches !', 'payoutBatches', items.map(payoutBatchRecord)),
        meta: {
          pagination: paginationMeta(
            context.config.publicBaseUrl,
            '/api/v1/payout-batch',
            query,
            page,
            perPage,
            total,
          ),
        },
      }
    },
  )
}

function detailsRoute(app: FastifyInstance, context: AppContext): void {
  app.get(
    '/payout-batch/:token',
    {
      schema: {
        tags: ['payout-batch'],
        operationId: 'getPayoutBatch',
        summary: 'Read a payout batch by its token',
        description:
          'With its items counted by status. Its items are disbursements: GET /api/v1/disbursement?batch={token} lists them. Another merchant’s token, the other mode’s, or an unknown one: the same 404.',
        params: TokenParams,
        response: { 200: envelope('payoutBatch', PayoutBatchRecord) },
      },
    },
    async (request) => {
      const { token } = request.params as { token: string }
      const { merchantId, mode } = request.principal
      const view = await payoutBatchDetails(context, merchantId, mode, token)
      return envelopeOf('Payout batch !', 'payoutBatch', payoutBatchRecord(view))
    },
  )
}

function batchCancelRoute(app: FastifyInstance, context: AppContext): void {
  app.post(
    '/payout-batch/:token/cancel',
    {
      schema: {
        tags: ['payout-batch'],
        operationId: 'cancelPayoutBatch',
        summary: 'Cancel a payout batch',
        description:
          'Cancels every item no operator has yet: each ends canceled (failureReason.code canceled_by_merchant, with your reason when given) and its hold is released. Items pawaPay still holds ENQUEUED are asked of pawaPay and end canceled once it confirms. The body may be empty. A batch awaiting approval ends canceled (event payout_batch.canceled); one being processed completes once the items already sent are final. Canceling twice answers the same batch; a completed or rejected batch is a 409 not_cancelable.',
        params: TokenParams,
        body: CancelBody,
        response: { 200: envelope('payoutBatch', PayoutBatchRecord) },
      },
      config: emptyBody,
      preValidation: emptyBodyAsObject,
    },
    async (request) => {
      const { token } = request.params as { token: string }
      const { merchantId, mode } = request.principal
      const reason = (request.body as { reason?: string }).reason
      const view = await cancelPayoutBatch(context, merchantId, mode, token, reason)
      return envelopeOf('Payout batch !', 'payoutBatch', payoutBatchRecord(view))
    },
  )
}

function acceptRoute(app: FastifyInstance, context: AppContext): void {
  app.post(
    '/payout-batch',
    {
      bodyLimit: payoutBatchBodyLimitBytes,
      preParsing: (request, reply, payload) => waitForTheLine(context, request, reply, payload),
      schema: {
        tags: ['payout-batch'],
        operationId: 'createPayoutBatch',
        summary: 'Pay many customers in one request',
        description:
          'Accepts 1 to 1,000 payouts in one currency, all or nothing: each is validated and priced as a disbursement (a 422 names the item, items[41].customer.phoneNumber, and nothing is created); an item whose merchantReference already names a disbursement is a 409 naming it; the total of the items’ cash amounts must be available (422 insufficient_balance with total and available). Each item becomes a disbursement of its own (its own token, record, callbacks and hold), listed under GET /api/v1/disbursement?batch={token}. Items go to their operators at a bounded pace, after approval when your setting requireBatchApproval is on. The same merchantReference with the same body answers the same batch; with another body it is a 409. The body may reach 2 MiB. Your batches are accepted one after another: while one is, the next ones wait (four at most; another is a 429 rate_limited with Retry-After).',
        body: { ...PayoutBatchBody, examples: [payoutBatchExamples.request] },
        response: {
          200: {
            ...envelope('payoutBatch', PayoutBatchRecord),
            examples: [envelopeOf('Payout batch !', 'payoutBatch', payoutBatchExamples.record)],
          },
        },
      },
    },
    async (request) => {
      const view = await acceptPayoutBatch(context, request.principal, request.body as PayoutBatchInput, {
        kind: 'api',
      })
      return envelopeOf('Payout batch !', 'payoutBatch', payoutBatchRecord(view))
    },
  )
}

/**
 * A merchant's batches are accepted one at a time on this instance, the others waiting before
 * their bodies are read (`PayoutBatchLine`); a full line is a 429 with the body unread. The turn
 * is given back when the response has ended, sent whole or abandoned by its client.
 */
async function waitForTheLine<Payload>(
  context: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  payload: Payload,
): Promise<Payload> {
  const { merchantId, mode } = request.principal
  const release = await context.payoutBatchLine.enter({ merchantId, mode })
  if (request.raw.socket?.destroyed) release()
  else reply.raw.once('close', release)
  return payload
}

function cancelRoute(
  app: FastifyInstance,
  context: AppContext,
  kind: (typeof cancelableKinds)[number],
): void {
  const { path, dataKey, message } = operationKinds[kind]
  app.post(
    `/${path}/:token/cancel`,
    {
      schema: {
        tags: [kind],
        operationId: `cancel${kind[0]!.toUpperCase()}${kind.slice(1)}`,
        summary: `Cancel a ${kind} no operator has yet`,
        description: `A ${kind} waiting for its batch’s approval or queued in a payout batch ends canceled at once (failureReason.code canceled_by_merchant), its hold released and its events sent. One a pawaPay operator still holds ENQUEUED is asked of pawaPay, and ends canceled once pawaPay confirms (read it again, or wait for its callback). Anything else (at an operator that cannot stop it, or final) is a 409 not_cancelable naming its status and why; so is a cancel pawaPay did not answer (send it again). The body may be empty. Canceling twice answers the same canceled record.`,
        params: TokenParams,
        body: CancelBody,
        response: { 200: envelope(dataKey.details, operationRecordOf(kind)) },
      },
      config: emptyBody,
      preValidation: emptyBodyAsObject,
    },
    async (request) => {
      const { token } = request.params as { token: string }
      const { merchantId, mode } = request.principal
      const reason = (request.body as { reason?: string } | undefined)?.reason
      const operation = await cancelOperation(context, merchantId, mode, token, reason, kind)
      return envelopeOf(message.details, dataKey.details, operationRecord(operation))
    },
  )
}
