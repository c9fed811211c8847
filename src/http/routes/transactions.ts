import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AppContext } from '../../app/context.ts'
import { listTransactions } from '../../app/list-transactions.ts'
import { transactionRecord } from '../../app/records.ts'
import { paginationMeta } from '../pagination.ts'
import { dateRange } from '../query.ts'
import { listEnvelope, TransactionListQuery, TransactionRecord } from '../schemas.ts'
import { envelopeOf } from './operations.ts'

/** GET /api/v1/transaction, and POST as its synonym: the spec's own sample sends POST. */
export function transactionRoutes(app: FastifyInstance, context: AppContext): void {
  const schema = {
    tags: ['transaction'],
    querystring: TransactionListQuery,
    response: { 200: listEnvelope('transactions', TransactionRecord) },
  }
  const handler = async (request: FastifyRequest) => {
    const query = request.query as TransactionListQuery
    const page = query.page ?? 1
    const perPage = query.perPage ?? 10
    const { fromMicros, toMicros } = dateRange(query.from, query.to)
    const { items, total } = await listTransactions(
      context.store.db,
      request.principal.merchantId,
      request.principal.mode,
      { type: query.type, operation: query.operation, status: query.status, fromMicros, toMicros },
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
  app.get('/transaction', { schema }, handler)
  app.post('/transaction', { schema }, handler)
}
