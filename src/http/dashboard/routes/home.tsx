import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../../app/context.ts'
import { type Overview, overviewOf } from '../../../app/dashboard/overview.ts'
import type { Mode } from '../../../domain/kinds.ts'
import { type Column, Section, showMoney, Table } from '../../pages/kit/index.ts'
import { BalancesTable } from '../balances-table.tsx'
import type { Guard } from '../guard.tsx'
import { memberPage, type PageContext, StatusBadge } from '../layout.tsx'
import { OperationsTable } from '../operations-table.tsx'
import { sendPage } from '../respond.ts'

export const modes: readonly Mode[] = ['sandbox', 'live']

/** The home of each place: balances, today's counts and amounts, the latest operations. */
export function homeRoutes(app: FastifyInstance, context: AppContext, guard: Guard): void {
  for (const mode of modes) {
    app.get(`/dashboard/${mode}`, async (request, reply) => {
      const signedIn = await guard.member(request, reply, 'read', mode)
      if (!signedIn) return reply
      const overview = await overviewOf(context, signedIn.live.member.merchantId, mode)
      return sendPage(reply, 200, homePage(signedIn.page, overview))
    })
  }
}

/** Home: the balances (and the sandbox's opening ones), today's counts and amounts, the latest operations. */
function homePage(page: PageContext, overview: Overview): string {
  const { t } = page
  return memberPage(
    page,
    t.home.title,
    <>
      <Section id="balances" title={t.home.balances}>
        <BalancesTable page={page} balances={overview.balances} />
        <OpeningBalances page={page} openings={overview.openingBalances} />
      </Section>
      <Section id="today" title={t.home.today}>
        <TodayTables page={page} today={overview.today} />
      </Section>
      <Section id="latest" title={t.home.latest}>
        <OperationsTable page={page} operations={overview.latest} />
      </Section>
    </>,
  )
}

/** What the sandbox opened the balances with: not recharges anyone made, so not among today's. */
function OpeningBalances({ page, openings }: { page: PageContext; openings: Overview['openingBalances'] }) {
  if (openings.length === 0) return null
  const amounts = openings.map((operation) => (
    <a key={operation.token} href={`/dashboard/${operation.mode}/operations/${operation.token}`}>
      {showMoney(page, operation.sides[0]?.amountMinor ?? 0, operation.currency)}
    </a>
  ))
  return (
    <p class="muted">
      {page.t.home.openingBalances}{' '}
      {amounts.flatMap((amount, index) => (index === 0 ? [amount] : [', ', amount]))}.
    </p>
  )
}

type Today = Overview['today']

function TodayTables({ page, today }: { page: PageContext; today: Today }) {
  const { t } = page
  if (today.byStatus.length === 0 && today.posted.length === 0) return <p class="muted">{t.common.none}</p>
  const counts: Column<Today['byStatus'][number]>[] = [
    { header: t.home.kind, cell: (row) => t.kinds[row.kind] },
    { header: t.common.status, cell: (row) => <StatusBadge page={page} status={row.status} /> },
    { header: t.home.count, numeric: true, cell: (row) => row.count },
  ]
  const amounts: Column<Today['posted'][number]>[] = [
    { header: t.home.kind, cell: (row) => t.kinds[row.kind] },
    { header: t.home.movement, cell: (row) => t.movements[row.type] },
    { header: t.home.count, numeric: true, cell: (row) => row.entries },
    { header: t.common.amount, numeric: true, cell: (row) => showMoney(page, row.amountMinor, row.currency) },
  ]
  return (
    <>
      <Table
        page={page}
        caption={t.home.todayCounts}
        columns={counts}
        rows={today.byStatus}
        rowKey={(row) => `${row.kind}-${row.status}`}
      />
      <Table
        page={page}
        caption={t.home.todayAmounts}
        columns={amounts}
        rows={today.posted}
        rowKey={(row) => `${row.kind}-${row.type}-${row.currency}`}
      />
    </>
  )
}
