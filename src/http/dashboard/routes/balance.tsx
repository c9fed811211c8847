import { Readable } from 'node:stream'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../../../app/context.ts'
import {
  type BalancePageView,
  balancePageOf,
  exportStatement,
  type LedgerEntry,
  movementsPerPage,
  type Statement,
} from '../../../app/dashboard/balance-view.ts'
import type { Principal } from '../../../app/principal.ts'
import { statementColumns, statementRow } from '../../../app/records.ts'
import type { Mode } from '../../../domain/kinds.ts'
import { inEffectOrder } from '../../../domain/movement-meanings.ts'
import { ApiError } from '../../../errors.ts'
import { csvLine } from '../../csv.ts'
import {
  type Column,
  instantFromInput,
  Notification,
  Pagination,
  Section,
  showInstant,
  showMoney,
  Table,
} from '../../pages/kit/index.ts'
import { BalancesTable } from '../balances-table.tsx'
import type { Guard, SignedIn } from '../guard.tsx'
import { allows, memberPage, type PageContext, StatusBadge } from '../layout.tsx'
import { MovementText } from '../movement-text.tsx'
import { sendPage } from '../respond.ts'
import { memberActor } from './developers.tsx'

const modes: readonly Mode[] = ['sandbox', 'live']

/** The dashboard acts for the member's merchant in the page's place, as an API key of that mode would. */
function principalOf(signedIn: SignedIn, mode: Mode): Principal {
  return { merchantId: signedIn.live.member.merchantId, merchantName: '', mode }
}

/** A positive page number from the query; the first page otherwise. */
function pageNumber(text: unknown): number {
  const page = Number(text)
  return Number.isInteger(page) && page >= 1 && page <= 1_000_000 ? page : 1
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
      const view = await balancePageOf(context, principalOf(signedIn, mode), pageNumber(page))
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
  const fromUs = instantFromInput(from)
  const toUs = instantFromInput(to)
  const { t } = signedIn.page
  const principal = principalOf(signedIn, mode)
  const wrong = (from && fromUs === undefined) || (to && toUs === undefined)
  const refuse = async (status: number, text: string) => {
    const view = await balancePageOf(context, principal, 1)
    return sendPage(reply, status, balancePage(signedIn.page, view, text))
  }
  if (wrong) return refuse(400, t.balancePage.dateInvalid)
  try {
    // A day given as the end is included whole: the range ends at the next midnight (UTC).
    const dayUs = 86_400_000_000
    const range = { fromUs, toUs: toUs !== undefined && !to?.includes('T') ? toUs + dayUs : toUs }
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

/** Streamed a batch at a time, as the API streams it; the statement's slot is given back when the response ends. */
function sendStatement(reply: FastifyReply, statement: Statement, mode: Mode): FastifyReply {
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

function balancePage(page: PageContext, view: BalancePageView, statementError?: string): string {
  const { t } = page
  return memberPage(
    page,
    t.balancePage.title,
    <>
      <Section id="balances" title={t.balancePage.balances}>
        <BalancesTable page={page} balances={view.balances} id="balances-table" />
      </Section>
      <Section id="statement" title={t.balancePage.statement}>
        <StatementForm page={page} error={statementError} />
      </Section>
      <Section id="movements" title={t.balancePage.movements}>
        <MovementsTable page={page} view={view} />
      </Section>
    </>,
  )
}

function StatementForm({ page, error }: { page: PageContext; error: string | undefined }) {
  const { t } = page
  if (!allows(page, 'export')) return null
  return (
    <>
      <p>{t.balancePage.statementIntro}</p>
      <Notification error={error} />
      <form method="get" action={`/dashboard/${page.mode}/balance/statement.csv`}>
        <label for="statement-from">{t.balancePage.from}</label>
        <input id="statement-from" name="from" type="date" />
        <label for="statement-to">{t.balancePage.to}</label>
        <input id="statement-to" name="to" type="date" />
        <button type="submit">{t.balancePage.download}</button>
      </form>
    </>
  )
}

/** A page of movements, newest first, each operation's lines in the order its money took effect. */
function MovementsTable({ page, view }: { page: PageContext; view: BalancePageView }) {
  const { t } = page
  const { items, total } = view.movements
  const pages = Math.max(1, Math.ceil(total / movementsPerPage))
  const base = `/dashboard/${page.mode}/balance`
  const columns: Column<LedgerEntry>[] = [
    { header: t.balancePage.date, cell: (entry) => showInstant(page, entry.createdAtUs) },
    {
      header: t.balancePage.operation,
      cell: (entry) => (
        <a href={`/dashboard/${page.mode}/operations/${encodeURIComponent(entry.token)}`}>
          {(t.kinds as Record<string, string>)[entry.operationKind] ?? entry.operationKind}
        </a>
      ),
    },
    { header: t.balancePage.type, cell: (entry) => <MovementText page={page} entry={entry} /> },
    { header: t.common.status, cell: (entry) => <StatusBadge page={page} status={entry.status} /> },
    {
      header: t.common.amount,
      numeric: true,
      cell: (entry) => showMoney(page, entry.amountMinor, entry.currency),
    },
    {
      header: t.balancePage.balanceAfter,
      numeric: true,
      cell: (entry) =>
        entry.balanceAfterMinor === null ? '—' : showMoney(page, entry.balanceAfterMinor, entry.currency),
    },
    { header: t.balancePage.merchantReference, cell: (entry) => entry.merchantReference },
    { header: t.balancePage.reference, cell: (entry) => <code>{entry.reference}</code> },
  ]
  return (
    <>
      <Table
        page={page}
        id="movements-table"
        caption={t.balancePage.movementsCaption}
        columns={columns}
        rows={inEffectOrder(items)}
        rowKey={(entry) => entry.reference}
        empty={t.balancePage.noMovement}
      />
      <Pagination
        page={page}
        label={t.balancePage.movements}
        position={{ page: view.page, pages }}
        previous={view.page > 1 ? `${base}?page=${view.page - 1}` : undefined}
        next={view.page < pages ? `${base}?page=${view.page + 1}` : undefined}
      />
    </>
  )
}
