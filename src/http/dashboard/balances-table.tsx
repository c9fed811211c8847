import type { BalanceView } from '../../app/dashboard/balance-view.ts'
import { type Column, showMoney, Table } from '../pages/kit/index.ts'
import type { PageContext } from './layout.tsx'

/** Balance, held and available, a row per currency: on the home page and the balance page. */
export function BalancesTable({
  page,
  balances,
  id,
}: {
  page: PageContext
  balances: BalanceView[]
  id?: string
}) {
  const { t } = page
  const columns: Column<BalanceView>[] = [
    { header: t.balancePage.currency, rowHeader: true, cell: (balance) => balance.currency },
    { header: t.balancePage.balance, numeric: true, cell: (b) => showMoney(page, b.postedMinor, b.currency) },
    { header: t.balancePage.held, numeric: true, cell: (b) => showMoney(page, b.heldMinor, b.currency) },
    {
      header: t.balancePage.available,
      numeric: true,
      cell: (b) => showMoney(page, b.availableMinor, b.currency),
    },
  ]
  return (
    <Table
      page={page}
      id={id}
      columns={columns}
      rows={balances}
      rowKey={(balance) => balance.currency}
      empty={t.balancePage.noBalance}
    />
  )
}
