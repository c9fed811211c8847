import { isOpeningBalance } from '../../domain/opening-balances.ts'
import type { Operation } from '../../domain/operation.ts'
import { type Column, showInstant, showMoney, Table } from '../pages/kit/index.ts'
import { type PageContext, StatusBadge } from './layout.tsx'

/**
 * Operations as rows: when, kind, status, amount, customer's phone, reference; each links to its
 * page (the dashboard's, or `hrefOf`'s: the console's). The sandbox's opening balances say so,
 * with no made-up number.
 */
export function OperationsTable({
  page,
  operations,
  hrefOf = (operation) => `/dashboard/${operation.mode}/operations/${operation.token}`,
}: {
  page: PageContext<string>
  operations: readonly Operation[]
  hrefOf?: (operation: Operation) => string
}) {
  const { t } = page
  const columns: Column<Operation>[] = [
    {
      header: t.common.when,
      cell: (operation) => <a href={hrefOf(operation)}>{showInstant(page, operation.initiatedAtUs)}</a>,
    },
    {
      header: t.home.kind,
      cell: (operation) => (isOpeningBalance(operation) ? t.home.openingBalance : t.kinds[operation.kind]),
    },
    { header: t.common.status, cell: (operation) => <StatusBadge page={page} status={operation.status} /> },
    {
      header: t.common.amount,
      numeric: true,
      cell: ({ sides: [side] }) => (side ? showMoney(page, side.amountMinor, side.currency) : ''),
    },
    {
      header: t.operationsList.phone,
      cell: (operation) =>
        isOpeningBalance(operation)
          ? '—'
          : operation.sides.map((each) => each.customer.phoneNumber).join(' → '),
    },
    { header: t.operationsList.reference, cell: (operation) => operation.merchantReference },
  ]
  return (
    <Table
      page={page}
      columns={columns}
      rows={operations}
      rowKey={(operation) => operation.token}
      empty={t.common.none}
    />
  )
}
