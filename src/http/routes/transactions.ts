import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AppContext } from '../../app/context.ts'
import { transactionRecord } from '../../app/records.ts'
import { listTransactions } from '../../app/transactions.ts'
import { validationFailed } from '../../errors.ts'
import { paginationMeta } from '../pagination.ts'
import { dateRange } from '../query.ts'
import { listEnvelope, TransactionListQuery, TransactionRecord } from '../schemas.ts'
import { envelopeOf } from './operations.ts'

/** GET /api/v1/transaction, and POST as its synonym: the spec's own sample sends POST. */
async function refuseBodyFields(request: FastifyRequest): Promise<void> {
  const body = request.body
  if (body === undefined || body === null) return
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw validationFailed([
      { field: '', code: 'invalid_type', message: 'The body, when sent, must be an empty JSON object.' },
    ])
  }
  const fields = Object.keys(body)
  if (fields.length === 0) return
  throw validationFailed(
    fields.map((field) => ({
      field,
      code: 'unknown_field',
      message: `${field} is not a field of this request; pages and filters go in the query string.`,
    })),
  )
}

export function transactionRoutes(app: FastifyInstance, context: AppContext): void {
  const schema = {
    tags: ['transaction'],
    summary: 'List balance movements',
    description:
      'type: cash-in, cash-out or reversal; status: pending (a hold), succeeded (posted) or canceled (released). amount is the cashAmount. Newest first.',
    querystring: TransactionListQuery,
    response: { 200: listEnvelope('transactions', TransactionRecord) },
  }
  const handler = async (request: FastifyRequest) => {
    const query = request.query as TransactionListQuery
    const page = query.page ?? 1
    const perPage = query.perPage ?? 10
    const { fromUs, toUs } = dateRange(query.from, query.to)
    const { items, total } = await listTransactions(
      context,
      request.principal,
      { type: query.type, operation: query.operation, status: query.status, fromUs, toUs },
      { page, perPage },
    )
    return {
      ...envelopeOf('Transactions !', 'transactions', items.map(transactionRecord)),
      meta: {
        pagination: paginationMeta(
          context.config.publicBaseUrl,
          '/api/v1/transaction',
          query,
          page,
          perPage,
          total,
        ),
      },
    }
  }
  app.get('/transaction', { schema: { ...schema, operationId: 'listTransactions' } }, handler)
  // The query carries the page and filters; a body field would be silently ignored, so it is refused.
  app.post(
    '/transaction',
    {
      schema: {
        ...schema,
        operationId: 'listTransactionsByPost',
        summary: 'List balance movements (POST synonym of the GET)',
      },
      preValidation: refuseBodyFields,
    },
    handler,
  )
}
