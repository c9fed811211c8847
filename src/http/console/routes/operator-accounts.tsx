import type { FastifyInstance } from 'fastify'
import {
  type OperatorAccount,
  type OperatorAccounts,
  readOperatorAccounts,
} from '../../../app/console/operator-accounts.ts'
import type { AppContext } from '../../../app/context.ts'
import { sendPage } from '../../dashboard/respond.ts'
import { type Column, Notification, Section, showInstant, showMoney, Table } from '../../pages/kit/index.ts'
import type { ConsoleGuard } from '../guard.ts'
import { type ConsolePage, consolePage } from '../layout.tsx'
import { consoleMessagesOf } from '../messages/catalogue.ts'

/** Operator accounts: every role reads it; the balances come from the operators, at most once a minute. */
export function consoleOperatorAccountsRoutes(
  app: FastifyInstance,
  context: AppContext,
  guard: ConsoleGuard,
): void {
  app.get('/console/operator-accounts', async (request, reply) => {
    const signedIn = await guard.member(request, reply, 'read')
    if (!signedIn) return reply
    return sendPage(reply, 200, accountsPage(signedIn.page, await readOperatorAccounts(context)))
  })
}

function accountsPage(page: ConsolePage, accounts: OperatorAccounts): string {
  const words = consoleMessagesOf(page.locale).operatorAccounts
  const low = accounts.connections.filter((connection) => connection.lowBalance)
  return consolePage(
    page,
    words.title,
    <>
      {low.map((connection) => (
        <Notification key={connection.id} error={words.lowAlert(connection.id)} />
      ))}
      <p>{words.intro}</p>
      {!accounts.waitingComplete && <p class="error">{words.waitingIncomplete}</p>}
      {accounts.connections.length === 0 && <p>{words.none}</p>}
      {accounts.connections.map((connection) => (
        <ConnectionSection key={connection.id} page={page} connection={connection} />
      ))}
    </>,
  )
}

function ConnectionSection({ page, connection }: { page: ConsolePage; connection: OperatorAccount }) {
  const words = consoleMessagesOf(page.locale).operatorAccounts
  const { balance } = connection
  return (
    <Section
      id={`connection-${connection.id}`}
      title={words.connection(connection.id, connection.channel, connection.countries.join(', '))}
    >
      {balance.state === 'not-offered' && <p data-balance="not-offered">{words.notOffered}</p>}
      {balance.state === 'unavailable' && (
        <p data-balance="unavailable">
          {words.unavailable(balance.reason)} {words.readAt(showInstant(page, balance.readAtUs))}
        </p>
      )}
      {balance.state === 'read' && (
        <>
          <Table
            page={page}
            caption={words.balances(connection.id)}
            columns={balanceColumns(page, connection)}
            rows={balance.accounts}
            rowKey={(account) => `${account.account}/${account.currency}`}
          />
          <p>{words.readAt(showInstant(page, balance.readAtUs))}</p>
        </>
      )}
      <Table
        page={page}
        caption={words.waiting(connection.id)}
        empty={words.noWaiting}
        columns={waitingColumns(page)}
        rows={connection.waiting}
        rowKey={(waiting) => waiting.currency}
      />
    </Section>
  )
}

type AccountRow = Extract<OperatorAccount['balance'], { state: 'read' }>['accounts'][number]

function balanceColumns(page: ConsolePage, connection: OperatorAccount): Column<AccountRow>[] {
  const words = consoleMessagesOf(page.locale).operatorAccounts
  const alertOf = (currency: string) =>
    connection.lowBalanceAlerts.find((alert) => alert.currency === currency)
  return [
    { header: words.account, cell: (row) => row.account, rowHeader: true },
    { header: words.balance, cell: (row) => showMoney(page, row.balanceMinor, row.currency), numeric: true },
    {
      header: words.alertBelow,
      cell: (row) => {
        const alert = alertOf(row.currency)
        return alert ? showMoney(page, alert.amountMinor, alert.currency) : words.noAlert
      },
      numeric: true,
    },
    {
      header: words.state,
      cell: (row) =>
        alertOf(row.currency) === undefined ? (
          ''
        ) : row.low ? (
          <strong data-low-balance>{words.low}</strong>
        ) : (
          words.fine
        ),
    },
  ]
}

function waitingColumns(page: ConsolePage): Column<OperatorAccount['waiting'][number]>[] {
  const words = consoleMessagesOf(page.locale).operatorAccounts
  return [
    { header: words.currency, cell: (row) => row.currency, rowHeader: true },
    {
      header: words.pending,
      cell: (row) => words.countAndAmount(row.pendingCount, showMoney(page, row.pendingMinor, row.currency)),
      numeric: true,
    },
    {
      header: words.queued,
      cell: (row) => words.countAndAmount(row.queuedCount, showMoney(page, row.queuedMinor, row.currency)),
      numeric: true,
    },
  ]
}
