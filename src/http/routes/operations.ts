import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../app/context.ts'
import { type Initiation, initiateOperation } from '../../app/initiate.ts'
import { findOperation, listOperations } from '../../app/operations.ts'
import { operationRecord } from '../../app/records.ts'
import { refundOperation } from '../../app/refunds.ts'
import {
  initiationPathOf,
  type OperationKind,
  operationKindNames,
  operationKinds,
  refundedKindOf,
} from '../../domain/kinds.ts'
import { linkPaymentKind } from '../../domain/payment-links.ts'
import { kindExamples } from '../examples.ts'
import { paginationMeta } from '../pagination.ts'
import { dateRange } from '../query.ts'
import {
  CollectListQuery,
  envelope,
  initiationBodyOf,
  listEnvelope,
  OperationListQuery,
  operationRecordOf,
  RefundBody,
  TokenParams,
} from '../schemas.ts'

/** Three endpoints per kind, every one derived from the kinds table. */
export function operationRoutes(app: FastifyInstance, context: AppContext): void {
  for (const kind of operationKindNames) {
    const refundedKind = refundedKindOf(kind)
    if (refundedKind) refundRoute(app, context, kind, refundedKind)
    else initiationRoute(app, context, kind)
    listRoute(app, context, kind)
    detailsRoute(app, context, kind)
  }
}

const capitalised = (kind: OperationKind) => kind[0]!.toUpperCase() + kind.slice(1)

function initiationRoute(app: FastifyInstance, context: AppContext, kind: OperationKind): void {
  const { path, summary, dataKey, message } = operationKinds[kind]
  const example = kindExamples[kind]
  app.post(
    `/${path}`,
    {
      schema: {
        tags: [kind],
        operationId: `initiate${capitalised(kind)}`,
        summary: `Initiate a ${kind}`,
        description: `${summary} The same merchantReference with the same body returns the existing ${kind}; with another body it is a 409.`,
        body: { ...initiationBodyOf(kind), examples: [example.request] },
        response: {
          200: withExample(
            envelope(dataKey.created, operationRecordOf(kind)),
            envelopeOf(message.created, dataKey.created, example.record),
          ),
        },
      },
    },
    async (request) => {
      const operation = await initiateOperation(context, request.principal, kind, request.body as Initiation)
      return envelopeOf(message.created, dataKey.created, operationRecord(operation))
    },
  )
}

/** A refund kind is initiated on the operation it refunds: POST /collect/{token}/refund. */
function refundRoute(
  app: FastifyInstance,
  context: AppContext,
  kind: OperationKind,
  refundedKind: OperationKind,
): void {
  const { summary, dataKey, message } = operationKinds[kind]
  const example = kindExamples[kind]
  app.post(
    `/${initiationPathOf(kind, ':token')}`,
    {
      schema: {
        tags: [kind],
        operationId: `${kind}${capitalised(refundedKind)}`,
        summary: `Refund a ${refundedKind}`,
        description: `${summary} The amount is held on the balance at once (422 insufficient_balance otherwise). The ${kind}s of one ${refundedKind} never add up to more than its amount: 409 refund_exceeds_collected; a ${refundedKind} that has not succeeded: 422 not_refundable. The same merchantReference with the same body returns the existing ${kind}.`,
        params: TokenParams,
        body: { ...RefundBody, examples: [example.request] },
        response: {
          200: withExample(
            envelope(dataKey.created, operationRecordOf(kind)),
            envelopeOf(message.created, dataKey.created, example.record),
          ),
        },
      },
    },
    async (request) => {
      const { token } = request.params as { token: string }
      const body = request.body as RefundBody
      const refund = await refundOperation(context, request.principal, refundedKind, token, body)
      return envelopeOf(message.created, dataKey.created, operationRecord(refund))
    },
  )
}

function listRoute(app: FastifyInstance, context: AppContext, kind: OperationKind): void {
  const { path, dataKey, message } = operationKinds[kind]
  app.get(
    `/${path}`,
    {
      schema: {
        tags: [kind],
        operationId: `list${capitalised(kind)}s`,
        summary: `List ${kind}s`,
        description: `Newest first, ${'`perPage`'} 1 to 100 (default 10), with filters. Page URLs in meta.pagination keep perPage and the filters.`,
        querystring: kind === linkPaymentKind ? CollectListQuery : OperationListQuery,
        response: { 200: listEnvelope(dataKey.list, operationRecordOf(kind)) },
      },
    },
    async (request) => {
      const query = request.query as OperationListQuery
      const page = query.page ?? 1
      const perPage = query.perPage ?? 10
      const { page: _page, perPage: _perPage, from, to, ...filters } = query
      const { items, total } = await listOperations(
        context,
        request.principal,
        kind,
        { ...filters, ...dateRange(from, to) },
        { page, perPage },
      )
      const baseUrl = context.config.publicBaseUrl
      return {
        ...envelopeOf(message.list, dataKey.list, items.map(operationRecord)),
        meta: { pagination: paginationMeta(baseUrl, `/api/v1/${path}`, query, page, perPage, total) },
      }
    },
  )
}

function detailsRoute(app: FastifyInstance, context: AppContext, kind: OperationKind): void {
  const { path, dataKey, message } = operationKinds[kind]
  const example = kindExamples[kind]
  app.get(
    `/${path}/:token`,
    {
      schema: {
        tags: [kind],
        operationId: `get${capitalised(kind)}`,
        summary: `Read a ${kind} by its token`,
        description: `Another merchant’s token, the other mode’s, or an unknown one: the same 404.`,
        params: TokenParams,
        response: {
          200: withExample(
            envelope(dataKey.details, operationRecordOf(kind)),
            envelopeOf(message.details, dataKey.details, example.record),
          ),
        },
      },
    },
    async (request) => {
      const { token } = request.params as { token: string }
      const operation = await findOperation(context, request.principal, kind, token)
      return envelopeOf(message.details, dataKey.details, operationRecord(operation))
    },
  )
}

export function envelopeOf(message: string, dataKey: string, data: unknown) {
  return { success: true, statusCode: 200, message, data: { [dataKey]: data } }
}

/** Attaches a response example to a schema (JSON Schema's `examples`, which OpenAPI 3.1 shows). */
function withExample<T extends object>(schema: T, example: unknown): T {
  return { ...schema, examples: [example] }
}
