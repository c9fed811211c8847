import { Readable } from 'node:stream'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../../app/context.ts'
import { statementColumns, statementRow, transactionRecord } from '../../app/records.ts'
import { balancesOf, listTransactions, openStatement, type Statement } from '../../app/transactions.ts'
import { type Currency, toMajorUnits } from '../../domain/money.ts'
import { validationFailed } from '../../errors.ts'
import { csvLine } from '../csv.ts'
import { paginationMeta } from '../pagination.ts'
import { dateRange } from '../query.ts'
import { envelope, listEnvelope, TransactionListQuery, TransactionRecord } from '../schemas.ts'
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
      'type: cash-in, cash-out or reversal; status: pending (a hold), succeeded (posted) or canceled (released). amount is the cashAmount; balanceAfter the posted balance after a succeeded row. Newest first. `format=csv` answers the same rows and filters as one CSV statement (RFC 4180, UTF-8, a header row), without pagination, streamed.',
    querystring: TransactionListQuery,
    response: {
      200: {
        content: {
          'application/json': { schema: listEnvelope('transactions', TransactionRecord) },
          'text/csv': {
            schema: Type.String({ description: `CSV with the header ${statementColumns.join(',')}` }),
          },
        },
      },
    },
  }
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const query = request.query as TransactionListQuery
    const { fromUs, toUs } = dateRange(query.from, query.to)
    const filters = { type: query.type, operation: query.operation, status: query.status, fromUs, toUs }
    if (query.format === 'csv')
      return sendStatement(reply, openStatement(context, request.principal, filters))
    const page = query.page ?? 1
    const perPage = query.perPage ?? 10
    const { items, total } = await listTransactions(context, request.principal, filters, { page, perPage })
    const baseUrl = context.config.publicBaseUrl
    return {
      ...envelopeOf('Transactions !', 'transactions', items.map(transactionRecord)),
      meta: { pagination: paginationMeta(baseUrl, '/api/v1/transaction', query, page, perPage, total) },
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
  balanceRoute(app, context)
}

/**
 * Streamed a batch of rows at a time: a statement of a million rows is sent in constant memory,
 * each batch written out as one chunk in its turn. The statement's slot is given back when the
 * response ends, whether it was sent whole or its client went away.
 */
function sendStatement(reply: FastifyReply, statement: Statement): FastifyReply {
  reply.raw.once('close', statement.close)
  async function* text() {
    yield csvLine(statementColumns)
    yield* statement.chunks((entries) => entries.map((entry) => csvLine(statementRow(entry))).join(''))
  }
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', 'attachment; filename="transactions.csv"')
    .send(Readable.from(text()))
}

const BalanceRecord = Type.Object({
  currency: Type.String({ description: 'ISO 4217: XOF, XAF, GHS, KES, UGX...' }),
  balance: Type.Number({ description: 'Posted: what succeeded operations left' }),
  held: Type.Number({ description: 'Reserved by cash-outs and refunds still pending' }),
  available: Type.Number({ description: 'balance - held: what a cash-out may use now' }),
})

/** GET /api/v1/balance: the calling mode's balance in each currency. */
function balanceRoute(app: FastifyInstance, context: AppContext): void {
  app.get(
    '/balance',
    {
      schema: {
        tags: ['balance'],
        operationId: 'getBalance',
        summary: 'Read the balance in each currency',
        description: 'One entry per currency of the calling mode (sandbox or live), in major units.',
        response: {
          200: envelope(
            'balances',
            Type.Array(BalanceRecord, { description: 'One entry per currency, in major units' }),
          ),
        },
      },
    },
    async (request) => {
      const balances = await balancesOf(context, request.principal)
      return envelopeOf(
        'Balance !',
        'balances',
        balances.map((balance) => {
          const major = (minor: number) => toMajorUnits(minor, balance.currency as Currency)
          return {
            currency: balance.currency,
            balance: major(balance.postedMinor),
            held: major(balance.heldMinor),
            available: major(balance.availableMinor),
          }
        }),
      )
    },
  )
}
