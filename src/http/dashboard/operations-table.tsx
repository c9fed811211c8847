import { isOpeningBalance } from '../../domain/opening-balances.ts'
import type { Operation } from '../../domain/operation.ts'
import { formatInstant, formatMoney } from './format.ts'
import { type PageContext, StatusBadge } from './layout.tsx'

/** Operations as rows: when, kind, status, amount, customer's phone, reference; each links to its page. */
export function OperationsTable({
  page,
  operations,
}: {
  page: PageContext
  operations: readonly Operation[]
}) {
  const { t } = page
  if (operations.length === 0) return <p class="muted">{t.common.none}</p>
  const zone = page.member?.timeZone ?? 'UTC'
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">{t.common.when}</th>
          <th scope="col">{t.home.kind}</th>
          <th scope="col">{t.common.status}</th>
          <th scope="col" class="num">
            {t.common.amount}
          </th>
          <th scope="col">{t.operationsList.phone}</th>
          <th scope="col">{t.operationsList.reference}</th>
        </tr>
      </thead>
      <tbody>
        {operations.map((operation) => {
          const side = operation.sides[0]
          const opening = isOpeningBalance(operation)
          return (
            <tr key={operation.token}>
              <td>
                <a href={`/dashboard/${operation.mode}/operations/${operation.token}`}>
                  {formatInstant(operation.initiatedAtUs, page.locale, zone)}
                </a>
              </td>
              <td>{opening ? t.home.openingBalance : t.kinds[operation.kind]}</td>
              <td>
                <StatusBadge page={page} status={operation.status} />
              </td>
              <td class="num">{side ? formatMoney(side.amountMinor, side.currency, page.locale) : ''}</td>
              <td>{opening ? '—' : operation.sides.map((each) => each.customer.phoneNumber).join(' → ')}</td>
              <td>{operation.merchantReference}</td>
            </tr>
          )
        })}
      </tbody>
    </table>
  )
}
