import type { FastifyInstance } from 'fastify'
import { exportMerchantStatement } from '../../../app/console/merchant-statements.ts'
import type { AppContext } from '../../../app/context.ts'
import { ApiError } from '../../../errors.ts'
import { sendStatement, statementRange } from '../../dashboard/routes/balance.tsx'
import { type ConsoleGuard, consoleActorOf } from '../guard.ts'
import { sendMerchantPage } from './merchant.tsx'

type Query = { mode?: string; currency?: string; from?: string; to?: string }

/**
 * Finance's statement of a merchant (permission `export`): the dashboard's CSV, streamed a batch at
 * a time in the merchant's export slot; a wrong date or a merchant already streaming as many
 * statements as it may answers with the merchant's page saying why.
 */
export function consoleMerchantStatementRoutes(
  app: FastifyInstance,
  context: AppContext,
  guard: ConsoleGuard,
): void {
  app.get('/console/merchants/:id/statement.csv', async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'export')
    if (!signedIn) return reply
    const merchantId = (request.params as { id: string }).id
    const query = request.query as Query
    const range = statementRange(query.from, query.to)
    const refuse = (refused: 'date_invalid' | 'statement_busy', status: number) =>
      sendMerchantPage(context, reply, signedIn.page, merchantId, { outcome: { refused }, status })
    if (!range) return refuse('date_invalid', 400)
    const actor = consoleActorOf(signedIn, request)
    const asked = { mode: query.mode ?? '', currency: query.currency ?? '', ...range }
    try {
      const opened = await exportMerchantStatement(context, actor, merchantId, asked)
      if ('refused' in opened)
        return sendMerchantPage(context, reply, signedIn.page, merchantId, { outcome: opened })
      return sendStatement(reply, opened.statement, opened.mode)
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 'rate_limited')) throw error
      reply.header('retry-after', '1')
      return refuse('statement_busy', 429)
    }
  })
}
