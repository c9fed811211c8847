import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../app/context.ts'
import { type Initiation, initiateOperation } from '../../app/initiate.ts'
import { listOperations } from '../../app/list-operations.ts'
import { findOperationByToken } from '../../app/operation-rows.ts'
import { operationRecord } from '../../app/records.ts'
import { type OperationKind, operationKindNames, operationKinds } from '../../domain/kinds.ts'
import { ApiError } from '../../errors.ts'
import { kindExamples } from '../examples.ts'
import { paginationMeta } from '../pagination.ts'
import { dateRange } from '../query.ts'
import {
  envelope,
  listEnvelope,
  OperationListQuery,
  operationRecordOf,
  SingleInitiationBody,
  TokenParams,
  TransferInitiationBody,
  TransferRecord,
} from '../schemas.ts'

/** Three endpoints per kind, every one derived from the kinds table. */
export function operationRoutes(app: FastifyInstance, context: AppContext): void {
  for (const kind of operationKindNames) registerKind(app, context, kind)
}

function registerKind(app: FastifyInstance, context: AppContext, kind: OperationKind): void {
  const definition = operationKinds[kind]
  const isTransfer = definition.shape === 'transfer'
  const record = kind === 'transfer' ? TransferRecord : operationRecordOf(kind)
  const path = `/${definition.path}`
  const { dataKey, message } = definition
  const tags = [kind]
  const Kind = kind[0]!.toUpperCase() + kind.slice(1)
  const example = kindExamples[kind]

  app.post(
    path,
    {
      schema: {
        tags,
        operationId: `initiate${Kind}`,
        summary: `Initiate a ${kind}`,
        description: `${definition.summary} The same merchantReference with the same body returns the existing ${kind}; with another body it is a 409.`,
        body: {
          ...(isTransfer ? TransferInitiationBody : SingleInitiationBody),
          examples: [example.request],
        },
        response: {
          200: withExample(
            envelope(dataKey.created, record),
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

  app.get(
    path,
    {
      schema: {
        tags,
        operationId: `list${Kind}s`,
        summary: `List ${kind}s`,
        description: `Newest first, ${'`perPage`'} 1 to 100 (default 10), with filters. Page URLs in meta.pagination keep perPage and the filters.`,
        querystring: OperationListQuery,
        response: { 200: listEnvelope(dataKey.list, record) },
      },
    },
    async (request) => {
      const query = request.query as OperationListQuery
      const page = query.page ?? 1
      const perPage = query.perPage ?? 10
      const { fromMicros, toMicros } = dateRange(query.from, query.to)
      const { items, total } = await listOperations(
        context.store.db,
        request.principal.merchantId,
        request.principal.mode,
        kind,
        {
          status: query.status,
          merchantReference: query.merchantReference,
          phoneNumber: query.phoneNumber,
          channel: query.channel,
          country: query.country,
          fromMicros,
          toMicros,
        },
        { page, perPage },
      )
      return {
        ...envelopeOf(message.list, dataKey.list, items.map(operationRecord)),
        meta: {
          pagination: paginationMeta(
            context.config.publicBaseUrl,
            `/api/v1${path}`,
            query,
            page,
            perPage,
            total,
          ),
        },
      }
    },
  )

  app.get(
    `${path}/:token`,
    {
      schema: {
        tags,
        operationId: `get${Kind}`,
        summary: `Read a ${kind} by its token`,
        description: `Another merchant’s token, the other mode’s, or an unknown one: the same 404.`,
        params: TokenParams,
        response: {
          200: withExample(
            envelope(dataKey.details, record),
            envelopeOf(message.details, dataKey.details, example.record),
          ),
        },
      },
    },
    async (request) => {
      const { token } = request.params as { token: string }
      const operation = await findOperationByToken(
        context.store.db,
        request.principal.merchantId,
        request.principal.mode,
        token,
      )
      // Another merchant's token, the other mode's, or an unknown one: the same answer.
      if (!operation || operation.kind !== kind)
        throw new ApiError('not_found', `No ${kind} has token ${token}.`)
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
