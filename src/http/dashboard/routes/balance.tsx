import { Readable } from 'node:stream'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../../../app/context.ts'
import { balancePageOf, exportStatement, type Statement } from '../../../app/dashboard/balance-view.ts'
import type { Principal } from '../../../app/principal.ts'
import { statementColumns, statementRow } from '../../../app/records.ts'
import type { Mode } from '../../../domain/kinds.ts'
import { ApiError } from '../../../errors.ts'
import { csvLine } from '../../csv.ts'
import { instantFromInput, pageNumberOf } from '../../pages/kit/index.ts'
import type { Guard, SignedIn } from '../guard.tsx'
import { sendPage } from '../respond.ts'
import { balancePage } from './balance-page.tsx'
import { memberActor } from './developers.tsx'

const modes: readonly Mode[] = ['sandbox', 'live']

/** The dashboard acts for the member's merchant in the page's place, as an API key of that mode would. */
function principalOf(signedIn: SignedIn, mode: Mode): Principal {
  return { merchantId: signedIn.live.member.merchantId, merchantName: '', mode }
}

/**
 * The balance page of each place (permission 'read'): balances, movements newest first a page at
 * a time, and the statement form; the statement itself (permission 'export') is the API's CSV.
 */
export function balanceRoutes(app: FastifyInstance, context: AppContext, guard: Guard): void {
  for (const mode of modes) {
    app.get(`/dashboard/${mode}/balance`, async (request, reply) => {
      const signedIn = await guard.member(request, reply, 'read', mode)
      if (!signedIn) return reply
      const { page } = request.query as { page?: string }
      const view = await balancePageOf(context, principalOf(signedIn, mode), pageNumberOf(page))
      return sendPage(reply, 200, balancePage(signedIn.page, view))
    })
    app.get(`/dashboard/${mode}/balance/statement.csv`, async (request, reply) => {
      const signedIn = await guard.member(request, reply, 'export', mode)
      if (!signedIn) return reply
      return statementAnswer(context, request, reply, signedIn, mode)
    })
  }
}

async function statementAnswer(
  context: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  signedIn: SignedIn,
  mode: Mode,
): Promise<FastifyReply> {
  const { from, to } = request.query as { from?: string; to?: string }
  const { t } = signedIn.page
  const principal = principalOf(signedIn, mode)
  const refuse = async (status: number, text: string) => {
    const view = await balancePageOf(context, principal, 1)
    return sendPage(reply, status, balancePage(signedIn.page, view, text))
  }
  const range = statementRange(from, to)
  if (!range) return refuse(400, t.balancePage.dateInvalid)
  try {
    const statement = await exportStatement(context, memberActor(request, signedIn), principal, range)
    return sendStatement(reply, statement, mode)
  } catch (error) {
    if (error instanceof ApiError && error.code === 'rate_limited') {
      reply.header('retry-after', '1')
      return refuse(429, t.balancePage.busy)
    }
    throw error
  }
}

/**
 * The statement form's range: a date or a date and time (UTC) at each end, either left out for an
 * open end; a day given as the end is included whole (the range ends at the next midnight).
 * Undefined when either is not a date.
 */
export function statementRange(
  from: string | undefined,
  to: string | undefined,
): { fromUs: number | undefined; toUs: number | undefined } | undefined {
  const fromUs = instantFromInput(from)
  const toUs = instantFromInput(to)
  if ((from && fromUs === undefined) || (to && toUs === undefined)) return undefined
  const dayUs = 86_400_000_000
  return { fromUs, toUs: toUs !== undefined && !to?.includes('T') ? toUs + dayUs : toUs }
}

/** Streamed a batch at a time, as the API streams it; the statement's slot is given back when the response ends. */
export function sendStatement(reply: FastifyReply, statement: Statement, mode: Mode): FastifyReply {
  reply.raw.once('close', statement.close)
  async function* text() {
    yield csvLine(statementColumns)
    yield* statement.chunks((entries) => entries.map((entry) => csvLine(statementRow(entry))).join(''))
  }
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="statement-${mode}.csv"`)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .send(Readable.from(text()))
}
