import { Readable } from 'node:stream'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../../../app/context.ts'
import {
  type BalancePageView,
  balancePageOf,
  exportStatement,
  movementsPerPage,
  type Statement,
} from '../../../app/dashboard/balance-view.ts'
import type { Principal } from '../../../app/principal.ts'
import { statementColumns, statementRow } from '../../../app/records.ts'
import type { Mode } from '../../../domain/kinds.ts'
import { inEffectOrder } from '../../../domain/movement-meanings.ts'
import { ApiError } from '../../../errors.ts'
import { csvLine } from '../../csv.ts'
import { formatInstant, formatMoney, instantFromInput } from '../format.ts'
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
      <section aria-labelledby="balances">
        <h2 id="balances">{t.balancePage.balances}</h2>
        <BalancesTable page={page} view={view} />
      </section>
      <section aria-labelledby="statement">
        <h2 id="statement">{t.balancePage.statement}</h2>
        <StatementForm page={page} error={statementError} />
      </section>
      <section aria-labelledby="movements">
        <h2 id="movements">{t.balancePage.movements}</h2>
        <MovementsTable page={page} view={view} />
      </section>
    </>,
  )
}

function BalancesTable({ page, view }: { page: PageContext; view: BalancePageView }) {
  const { t, locale } = page
  if (view.balances.length === 0) return <p class="muted">{t.balancePage.noBalance}</p>
  return (
    <table id="balances-table">
      <thead>
        <tr>
          <th scope="col">{t.balancePage.currency}</th>
          <th scope="col" class="num">
            {t.balancePage.balance}
          </th>
          <th scope="col" class="num">
            {t.balancePage.held}
          </th>
          <th scope="col" class="num">
            {t.balancePage.available}
          </th>
        </tr>
      </thead>
      <tbody>
        {view.balances.map((balance) => (
          <tr key={balance.currency}>
            <th scope="row">{balance.currency}</th>
            <td class="num">{formatMoney(balance.postedMinor, balance.currency, locale)}</td>
            <td class="num">{formatMoney(balance.heldMinor, balance.currency, locale)}</td>
            <td class="num">{formatMoney(balance.availableMinor, balance.currency, locale)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function StatementForm({ page, error }: { page: PageContext; error: string | undefined }) {
  const { t } = page
  if (!allows(page, 'export')) return null
  return (
    <>
      <p>{t.balancePage.statementIntro}</p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
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

function MovementsTable({ page, view }: { page: PageContext; view: BalancePageView }) {
  const { t, locale } = page
  const { items, total } = view.movements
  if (items.length === 0) return <p class="muted">{t.balancePage.noMovement}</p>
  const zone = page.member?.timeZone ?? 'UTC'
  const pages = Math.max(1, Math.ceil(total / movementsPerPage))
  const base = `/dashboard/${page.mode}/balance`
  return (
    <>
      <table id="movements-table">
        <caption>{t.balancePage.movementsCaption}</caption>
        <thead>
          <tr>
            <th scope="col">{t.balancePage.date}</th>
            <th scope="col">{t.balancePage.operation}</th>
            <th scope="col">{t.balancePage.type}</th>
            <th scope="col">{t.common.status}</th>
            <th scope="col" class="num">
              {t.common.amount}
            </th>
            <th scope="col" class="num">
              {t.balancePage.balanceAfter}
            </th>
            <th scope="col">{t.balancePage.merchantReference}</th>
            <th scope="col">{t.balancePage.reference}</th>
          </tr>
        </thead>
        <tbody>
          {inEffectOrder(items).map((entry) => (
            <tr key={entry.reference}>
              <td>{formatInstant(entry.createdAtUs, locale, zone)}</td>
              <td>
                <a href={`/dashboard/${page.mode}/operations/${encodeURIComponent(entry.token)}`}>
                  {(t.kinds as Record<string, string>)[entry.operationKind] ?? entry.operationKind}
                </a>
              </td>
              <td>
                <MovementText page={page} entry={entry} />
              </td>
              <td>
                <StatusBadge page={page} status={entry.status} />
              </td>
              <td class="num">{formatMoney(entry.amountMinor, entry.currency, locale)}</td>
              <td class="num">
                {entry.balanceAfterMinor === null
                  ? '—'
                  : formatMoney(entry.balanceAfterMinor, entry.currency, locale)}
              </td>
              <td>{entry.merchantReference}</td>
              <td>
                <code>{entry.reference}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <nav aria-label={t.balancePage.movements} class="pages">
        <p>{t.balancePage.pageOf(view.page, pages)}</p>
        {view.page > 1 && <a href={`${base}?page=${view.page - 1}`}>{t.balancePage.previous}</a>}{' '}
        {view.page < pages && <a href={`${base}?page=${view.page + 1}`}>{t.common.next}</a>}
      </nav>
    </>
  )
}
