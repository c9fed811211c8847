import type { FastifyInstance } from 'fastify'
import { type OperatorAccounts, readOperatorAccounts } from '../../../app/console/operator-accounts.ts'
import {
  type ConnectionOverview,
  type OperatorOverview,
  readOperatorOverview,
  type WindowFigures,
} from '../../../app/console/operator-overview.ts'
import {
  type ReconciliationSummary,
  reconciliationSummary,
} from '../../../app/console/reconciliation-console.ts'
import type { AppContext } from '../../../app/context.ts'
import { sendPage } from '../../dashboard/respond.ts'
import { VolumeRateChart } from '../../pages/kit/charts.tsx'
import { type Column, countryName, Notification, Section, showMoney, Table } from '../../pages/kit/index.ts'
import type { ConsoleGuard } from '../guard.ts'
import { type ConsolePage, consolePage, consoleSections } from '../layout.tsx'
import { consoleMessagesOf } from '../messages/catalogue.ts'
import { ReconciliationOverview } from '../reconciliation-summary.tsx'

/** The console's home, the overview: each live connection's figures, the operators' float, and the areas. */
export function consoleHomeRoutes(app: FastifyInstance, context: AppContext, guard: ConsoleGuard): void {
  app.get('/console', async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'read')
    if (!signedIn) return reply
    const [overview, accounts, reconciliation] = await Promise.all([
      readOperatorOverview(context),
      readOperatorAccounts(context),
      reconciliationSummary(context),
    ])
    return sendPage(reply, 200, overviewPage(signedIn.page, { overview, accounts, reconciliation }))
  })
}

function overviewPage(
  page: ConsolePage,
  {
    overview,
    accounts,
    reconciliation,
  }: { overview: OperatorOverview; accounts: OperatorAccounts; reconciliation: ReconciliationSummary },
): string {
  const words = consoleMessagesOf(page.locale).overview
  const low = accounts.connections.filter((connection) => connection.lowBalance)
  return consolePage(
    page,
    words.title,
    <>
      {low.map((connection) => (
        <Notification
          key={connection.id}
          error={consoleMessagesOf(page.locale).operatorAccounts.lowAlert(connection.id)}
        />
      ))}
      <p>{words.intro}</p>
      <Section id="connections" title={words.connections}>
        {overview.connections.length === 0 && <p>{words.noConnections}</p>}
        {overview.connections.map((connection) => (
          <ConnectionFigures
            key={`${connection.channel}/${connection.country}`}
            page={page}
            connection={connection}
          />
        ))}
      </Section>
      <Float page={page} accounts={accounts} />
      <ReconciliationOverview page={page} summary={reconciliation} />
      <Section id="areas" title={words.sections}>
        <ul class="sections">
          {consoleSections(page)
            .slice(1)
            .map(({ href, text }) => (
              <li key={href}>
                <a href={href}>{text}</a>
              </li>
            ))}
        </ul>
      </Section>
    </>,
  )
}

/** A connection's windows as a table, then its 30 days as a chart and as a table. */
function ConnectionFigures({ page, connection }: { page: ConsolePage; connection: ConnectionOverview }) {
  const words = consoleMessagesOf(page.locale).overview
  const country = countryName(connection.country, page.locale)
  const key = `${connection.channel}-${connection.country}`.replace(/[^a-zA-Z0-9-]/g, '_')
  const points = connection.days.map((day) => ({
    label: dayLabel(day.dayUs),
    volume: day.operations,
    rate: day.successRate,
  }))
  const total = points.reduce((sum, point) => sum + point.volume, 0)
  const windows: { name: string; figures: WindowFigures }[] = [
    { name: words.last24Hours, figures: connection.last24Hours },
    { name: words.last30Days, figures: connection.last30Days },
  ]
  return (
    <div
      class="connection"
      id={`overview-${key}`}
      data-connection={`${connection.channel}/${connection.country}`}
    >
      <Table
        page={page}
        caption={words.windowsCaption(connection.channel, country)}
        columns={windowColumns(page, connection)}
        rows={windows}
        rowKey={(row) => row.name}
      />
      <VolumeRateChart
        id={`chart-${key}`}
        title={words.chartTitle(connection.channel, country)}
        description={words.chartDescription(points[0]?.label ?? '', points.at(-1)?.label ?? '', total)}
        volumeLabel={words.volume}
        rateLabel={words.rate}
        points={points}
      />
      <details>
        <summary>{words.daysTable}</summary>
        <Table
          page={page}
          caption={words.daysCaption(connection.channel, country)}
          columns={[
            { header: words.day, cell: (row) => row.label, rowHeader: true },
            { header: words.volume, cell: (row) => showCount(page, row.volume), numeric: true },
            { header: words.rate, cell: (row) => showRate(page, row.rate), numeric: true },
          ]}
          rows={points}
          rowKey={(row) => row.label}
        />
      </details>
    </div>
  )
}

function windowColumns(
  page: ConsolePage,
  connection: ConnectionOverview,
): Column<{ name: string; figures: WindowFigures }>[] {
  const words = consoleMessagesOf(page.locale).overview
  return [
    { header: words.window, cell: (row) => row.name, rowHeader: true },
    { header: words.operations, cell: (row) => showCount(page, row.figures.operations), numeric: true },
    { header: words.successRate, cell: (row) => showRate(page, row.figures.successRate), numeric: true },
    { header: words.median, cell: (row) => showDuration(page, row.figures.medianToFinal), numeric: true },
    { header: words.p95, cell: (row) => showDuration(page, row.figures.p95ToFinal), numeric: true },
    {
      header: words.pendingOver15,
      cell: () => showCount(page, connection.pendingOver15Minutes),
      numeric: true,
    },
    {
      header: words.callbacksWaiting,
      cell: () => showCount(page, connection.callbacksWaiting),
      numeric: true,
    },
  ]
}

/** Each live connection's balances, as the operator accounts page reads them. */
function Float({ page, accounts }: { page: ConsolePage; accounts: OperatorAccounts }) {
  const words = consoleMessagesOf(page.locale).overview
  const accountWords = consoleMessagesOf(page.locale).operatorAccounts
  return (
    <Section id="float" title={words.float}>
      {accounts.connections.length === 0 && <p>{accountWords.none}</p>}
      {accounts.connections.map((connection) => {
        const { balance } = connection
        if (balance.state === 'not-offered')
          return <p key={connection.id}>{words.floatNotOffered(connection.id)}</p>
        if (balance.state === 'unavailable')
          return <p key={connection.id}>{words.floatUnavailable(connection.id, balance.reason)}</p>
        const lowIn = (currency: string) =>
          connection.lowBalanceAlerts.find((alert) => alert.currency === currency)
        return (
          <Table
            key={connection.id}
            page={page}
            caption={words.floatCaption(connection.id)}
            columns={[
              { header: accountWords.account, cell: (row) => row.account, rowHeader: true },
              {
                header: accountWords.balance,
                cell: (row) => showMoney(page, row.balanceMinor, row.currency),
                numeric: true,
              },
              {
                header: accountWords.state,
                cell: (row) =>
                  lowIn(row.currency) === undefined ? (
                    ''
                  ) : row.low ? (
                    <strong data-low-balance>{accountWords.low}</strong>
                  ) : (
                    accountWords.fine
                  ),
              },
            ]}
            rows={balance.accounts}
            rowKey={(row) => `${row.account}/${row.currency}`}
          />
        )
      })}
      <p>
        <a href="/console/operator-accounts">{accountWords.title}</a>
      </p>
    </Section>
  )
}

function dayLabel(dayUs: number): string {
  return new Date(Math.floor(dayUs / 1000)).toISOString().slice(0, 10)
}

function showCount(page: ConsolePage, count: number): string {
  return new Intl.NumberFormat(page.locale === 'fr' ? 'fr-FR' : 'en-GB').format(count)
}

function showRate(page: ConsolePage, rate: number | null): string {
  if (rate === null) return consoleMessagesOf(page.locale).overview.none
  return new Intl.NumberFormat(page.locale === 'fr' ? 'fr-FR' : 'en-GB', {
    style: 'percent',
    maximumFractionDigits: 1,
  }).format(rate)
}

function showDuration(page: ConsolePage, duration: WindowFigures['medianToFinal']): string {
  const words = consoleMessagesOf(page.locale).overview
  if (!duration) return words.none
  const ms = duration.atMostMs
  const format = new Intl.NumberFormat(page.locale === 'fr' ? 'fr-FR' : 'en-GB', { maximumFractionDigits: 1 })
  const text =
    ms < 1000
      ? `${format.format(ms)} ms`
      : ms < 60_000
        ? `${format.format(ms / 1000)} s`
        : `${format.format(ms / 60_000)} min`
  return duration.longer ? words.longer(text) : words.atMost(text)
}
