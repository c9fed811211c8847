import type { ReconciliationSummary } from '../../app/console/reconciliation-console.ts'
import { formatInstant, Section, Table } from '../pages/kit/index.ts'
import type { ConsolePage } from './layout.tsx'
import { reconciliationWords, wordOf } from './messages/reconciliation.ts'
import { breaksPath } from './routes/reconciliation-runs.tsx'

/**
 * The overview's part on reconciliation (CONTRACT.md, Platform console): the open breaks of each
 * connection by kind, each linked to the queue, and each connection's last completed run. Its data
 * is `reconciliationSummary(context)`.
 */
export function ReconciliationOverview({
  page,
  summary,
}: {
  page: ConsolePage
  summary: ReconciliationSummary
}) {
  const words = reconciliationWords(page.locale)
  const zone = page.member?.timeZone ?? 'UTC'
  const queueOf = (connectionId: string, kind: string) =>
    `${breaksPath}?connection=${encodeURIComponent(connectionId)}&kind=${encodeURIComponent(kind)}&state=open`
  return (
    <Section id="reconciliation-overview" title={words.title}>
      <Table<ReconciliationSummary['openBreaks'][number]>
        page={page}
        caption={words.openBreaks}
        empty={words.noOpenBreaks}
        rows={summary.openBreaks}
        rowKey={(row) => `${row.connectionId} ${row.kind}`}
        columns={[
          { header: words.connection, cell: (row) => row.connectionId, rowHeader: true },
          { header: words.kind, cell: (row) => wordOf(words.kinds, row.kind) },
          {
            header: words.breaks,
            cell: (row) => <a href={queueOf(row.connectionId, row.kind)}>{row.count}</a>,
            numeric: true,
          },
        ]}
      />
      <Table<ReconciliationSummary['lastCompleted'][number]>
        page={page}
        caption={words.lastCompletedRuns}
        empty={words.noRuns}
        rows={summary.lastCompleted}
        rowKey={(run) => run.connectionId}
        columns={[
          { header: words.connection, cell: (run) => run.connectionId, rowHeader: true },
          { header: words.day, cell: (run) => run.day },
          { header: words.lines, cell: (run) => String(run.lines), numeric: true },
          { header: words.matched, cell: (run) => String(run.matched), numeric: true },
          {
            header: words.completedAt,
            cell: (run) =>
              run.completedAtUs === null ? '' : formatInstant(run.completedAtUs, page.locale, zone),
          },
        ]}
      />
    </Section>
  )
}
