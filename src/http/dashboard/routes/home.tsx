import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../../app/context.ts'
import { type Overview, overviewOf } from '../../../app/dashboard/overview.ts'
import type { Mode } from '../../../domain/kinds.ts'
import { formatMoney } from '../format.ts'
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

function homePage(page: PageContext, overview: Overview): string {
  const { t } = page
  return memberPage(
    page,
    t.home.title,
    <>
      <section aria-labelledby="balances">
        <h2 id="balances">{t.home.balances}</h2>
        {overview.balances.length === 0 ? (
          <p class="muted">{t.home.noBalance}</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">{t.home.currency}</th>
                <th scope="col" class="num">
                  {t.home.balance}
                </th>
                <th scope="col" class="num">
                  {t.home.held}
                </th>
                <th scope="col" class="num">
                  {t.home.available}
                </th>
              </tr>
            </thead>
            <tbody>
              {overview.balances.map((balance) => (
                <tr key={balance.currency}>
                  <th scope="row">{balance.currency}</th>
                  <td class="num">{formatMoney(balance.postedMinor, balance.currency, page.locale)}</td>
                  <td class="num">{formatMoney(balance.heldMinor, balance.currency, page.locale)}</td>
                  <td class="num">{formatMoney(balance.availableMinor, balance.currency, page.locale)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <OpeningBalances page={page} openings={overview.openingBalances} />
      </section>
      <section aria-labelledby="today">
        <h2 id="today">{t.home.today}</h2>
        <TodayTable page={page} today={overview.today} />
      </section>
      <section aria-labelledby="latest">
        <h2 id="latest">{t.home.latest}</h2>
        <OperationsTable page={page} operations={overview.latest} />
      </section>
    </>,
  )
}

/** What the sandbox opened the balances with: not recharges anyone made, so not among today's. */
function OpeningBalances({ page, openings }: { page: PageContext; openings: Overview['openingBalances'] }) {
  if (openings.length === 0) return null
  const amounts = openings.map((operation) => (
    <a key={operation.token} href={`/dashboard/${operation.mode}/operations/${operation.token}`}>
      {formatMoney(operation.sides[0]?.amountMinor ?? 0, operation.currency, page.locale)}
    </a>
  ))
  return (
    <p class="muted">
      {page.t.home.openingBalances}{' '}
      {amounts.flatMap((amount, index) => (index === 0 ? [amount] : [', ', amount]))}.
    </p>
  )
}

function TodayTable({ page, today }: { page: PageContext; today: Overview['today'] }) {
  const { t } = page
  if (today.byStatus.length === 0 && today.posted.length === 0) return <p class="muted">{t.common.none}</p>
  return (
    <>
      <table>
        <caption>{t.home.todayCounts}</caption>
        <thead>
          <tr>
            <th scope="col">{t.home.kind}</th>
            <th scope="col">{t.common.status}</th>
            <th scope="col" class="num">
              {t.home.count}
            </th>
          </tr>
        </thead>
        <tbody>
          {today.byStatus.map((row) => (
            <tr key={`${row.kind}-${row.status}`}>
              <td>{t.kinds[row.kind]}</td>
              <td>
                <StatusBadge page={page} status={row.status} />
              </td>
              <td class="num">{row.count}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <table>
        <caption>{t.home.todayAmounts}</caption>
        <thead>
          <tr>
            <th scope="col">{t.home.kind}</th>
            <th scope="col">{t.home.movement}</th>
            <th scope="col" class="num">
              {t.home.count}
            </th>
            <th scope="col" class="num">
              {t.common.amount}
            </th>
          </tr>
        </thead>
        <tbody>
          {today.posted.map((row) => (
            <tr key={`${row.kind}-${row.type}-${row.currency}`}>
              <td>{t.kinds[row.kind]}</td>
              <td>{t.movements[row.type]}</td>
              <td class="num">{row.entries}</td>
              <td class="num">{formatMoney(row.amountMinor, row.currency, page.locale)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  )
}
