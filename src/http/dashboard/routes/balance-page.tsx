import {
  type BalancePageView,
  type LedgerEntry,
  movementsPerPage,
} from '../../../app/dashboard/balance-view.ts'
import { inEffectOrder } from '../../../domain/movement-meanings.ts'
import {
  type Column,
  Notification,
  Pagination,
  Section,
  showInstant,
  showMoney,
  Table,
} from '../../pages/kit/index.ts'
import { BalancesTable } from '../balances-table.tsx'
import { allows, memberPage, type PageContext, StatusBadge } from '../layout.tsx'
import { MovementText } from '../movement-text.tsx'

/** The balance page: balances per currency, the statement form, and the movements, newest first. */
export function balancePage(page: PageContext, view: BalancePageView, statementError?: string): string {
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
