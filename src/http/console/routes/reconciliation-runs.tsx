import {
  type BreakAge,
  breakAges,
  breakStates,
  type QueueFilter,
  type RunRow,
  type RunsView,
} from '../../../app/console/reconciliation-console.ts'
import { defaultMapping, importFields } from '../../../app/reconciliation/imports.ts'
import { breakKinds } from '../../../domain/reconciliation.ts'
import type { StoredBreak } from '../../../store/repositories/reconciliation.ts'
import {
  ConfirmForm,
  CsrfInput,
  formatInstant,
  formatMoney,
  Notification,
  Pagination,
  Section,
  Table,
} from '../../pages/kit/index.ts'
import { type ConsolePage, consoleAllows, consolePage } from '../layout.tsx'
import { type ReconciliationWords, reconciliationWords, wordOf } from '../messages/reconciliation.ts'

export const reconciliationPath = '/console/reconciliation'
export const breaksPath = `${reconciliationPath}/breaks`
export const importPath = `${reconciliationPath}/import`

export const breakPath = (id: string) => `${breaksPath}/${encodeURIComponent(id)}`
export const breaksCsvPath = (connectionId: string, day: string) =>
  `${reconciliationPath}/runs/${encodeURIComponent(connectionId)}/${encodeURIComponent(day)}/breaks.csv`

/** The runs page: each run's figures and breaks by kind, its CSV of breaks, and finance's run by hand. */
export function runsPage(
  page: ConsolePage,
  view: RunsView,
  outcome: { notice?: string; error?: string } = {},
): string {
  const words = reconciliationWords(page.locale)
  return consolePage(
    page,
    words.title,
    <>
      <Notification notice={outcome.notice} error={outcome.error} />
      <p>
        <a href={breaksPath}>{words.queueLink}</a>
      </p>
      <Section id="runs" title={words.runs}>
        <RunsTable page={page} view={view} words={words} />
      </Section>
      {consoleAllows(page, 'reconciliation') && <RunForm page={page} view={view} words={words} />}
      {consoleAllows(page, 'reconciliation') && <ImportForm page={page} view={view} words={words} />}
    </>,
  )
}

function RunsTable({ page, view, words }: { page: ConsolePage; view: RunsView; words: ReconciliationWords }) {
  const currencyOf = new Map(view.connections.map((each) => [each.id, each.currency]))
  return (
    <Table<RunRow>
      page={page}
      caption={words.runsCaption}
      empty={words.noRuns}
      rows={view.runs}
      rowKey={(run) => `${run.connectionId} ${run.day}`}
      columns={[
        { header: words.connection, cell: (run) => run.connectionId, rowHeader: true },
        { header: words.day, cell: (run) => run.day },
        {
          header: words.status,
          cell: (run) =>
            `${words.runStatuses[run.status] ?? run.status}${run.reason ? `: ${run.reason}` : ''}`,
        },
        { header: words.lines, cell: (run) => String(run.lines), numeric: true },
        { header: words.matched, cell: (run) => String(run.matched), numeric: true },
        {
          header: words.matchedAmount,
          cell: (run) =>
            formatMoney(run.matchedAmountMinor, currencyOf.get(run.connectionId) ?? 'XOF', page.locale),
          numeric: true,
        },
        { header: words.breaks, cell: (run) => <BreaksByKind run={run} words={words} /> },
        {
          header: words.download,
          cell: (run) => (
            <a
              href={breaksCsvPath(run.connectionId, run.day)}
              aria-label={words.downloadLabel(run.connectionId, run.day)}
            >
              CSV
            </a>
          ),
        },
      ]}
    />
  )
}

function BreaksByKind({ run, words }: { run: RunRow; words: ReconciliationWords }) {
  const kinds = breakKinds.filter((kind) => (run.breaksByKind[kind] ?? 0) > 0)
  if (kinds.length === 0) return <>{words.noBreak}</>
  return (
    <ul class="plain">
      {kinds.map((kind) => (
        <li key={kind}>
          <a
            href={`${breaksPath}?connection=${encodeURIComponent(run.connectionId)}&day=${run.day}&kind=${kind}`}
          >
            {words.kinds[kind]}: {run.breaksByKind[kind]}
          </a>
        </li>
      ))}
    </ul>
  )
}

function RunForm({ page, view, words }: { page: ConsolePage; view: RunsView; words: ReconciliationWords }) {
  const today = new Date().toISOString().slice(0, 10)
  return (
    <Section id="run" title={words.runByHand}>
      <ConfirmForm
        page={page}
        action={`${reconciliationPath}/run`}
        id="run-intro"
        intro={words.runIntro}
        button={words.runSubmit}
      >
        <label>
          {words.connection}
          <select name="connection" required>
            {view.connections.map((each) => (
              <option key={each.id} value={each.id}>
                {each.id}
              </option>
            ))}
          </select>
        </label>
        <label>
          {words.day}
          <input type="date" name="day" value={today} required />
        </label>
      </ConfirmForm>
    </Section>
  )
}

/** The upload of a portal export, for the connections that take one (CONTRACT.md: "or an upload in the console"). */
function ImportForm({
  page,
  view,
  words,
}: {
  page: ConsolePage
  view: RunsView
  words: ReconciliationWords
}) {
  const connections = view.connections.filter((each) => each.takesExports)
  const defaults = importFields.map((field) => `${field}=${defaultMapping[field]}`).join(', ')
  return (
    <Section id="import" title={words.importTitle}>
      {connections.length === 0 ? (
        <p>{words.noImportConnection}</p>
      ) : (
        <form method="post" action={importPath} enctype="multipart/form-data" class="stack card">
          <CsrfInput page={page} />
          <p id="import-intro">{words.importIntro}</p>
          <label>
            {words.connection}
            <select name="connection" required>
              {connections.map((each) => (
                <option key={each.id} value={each.id}>
                  {each.id}
                </option>
              ))}
            </select>
          </label>
          <label>
            {words.importFile}
            <input name="file" type="file" accept=".csv,text/csv" required />
          </label>
          <label>
            {words.importColumns}
            <input name="columns" type="text" maxLength={500} aria-describedby="import-columns-hint" />
          </label>
          <p id="import-columns-hint" class="muted">
            {words.importColumnsHint(defaults)}
          </p>
          <p>
            <button type="submit" aria-describedby="import-intro">
              {words.importSubmit}
            </button>
          </p>
        </form>
      )}
    </Section>
  )
}

/** The query string of the queue with these filters (and page), for links between its pages. */
export function queueQuery(filter: QueueFilter, pageNumber?: number): string {
  const query = new URLSearchParams()
  if (filter.connectionId) query.set('connection', filter.connectionId)
  if (filter.day) query.set('day', filter.day)
  if (filter.kind) query.set('kind', filter.kind)
  if (filter.state) query.set('state', filter.state)
  if (filter.age) query.set('age', filter.age)
  if (pageNumber && pageNumber > 1) query.set('page', String(pageNumber))
  const text = query.toString()
  return text ? `?${text}` : ''
}

/** The break queue: its filters, a page of breaks, and the links to the other pages. */
export function queuePage(
  page: ConsolePage,
  connections: readonly string[],
  filter: QueueFilter,
  shown: { breaks: StoredBreak[]; total: number; page: number; perPage: number },
): string {
  const words = reconciliationWords(page.locale)
  const pages = Math.max(1, Math.ceil(shown.total / shown.perPage))
  return consolePage(
    page,
    words.queue,
    <>
      <p>
        <a href={reconciliationPath}>{words.runs}</a>
      </p>
      <QueueFilters connections={connections} filter={filter} words={words} />
      <Table<StoredBreak>
        page={page}
        caption={words.queueCaption(shown.total)}
        empty={words.noneMatch}
        rows={shown.breaks}
        rowKey={(found) => found.id}
        columns={breakColumns(page, words)}
      />
      <Pagination
        page={page}
        label={words.pages}
        first={shown.page > 1 ? `${breaksPath}${queueQuery(filter)}` : undefined}
        previous={shown.page > 1 ? `${breaksPath}${queueQuery(filter, shown.page - 1)}` : undefined}
        next={shown.page < pages ? `${breaksPath}${queueQuery(filter, shown.page + 1)}` : undefined}
        position={{ page: shown.page, pages }}
      />
    </>,
  )
}

function breakColumns(page: ConsolePage, words: ReconciliationWords) {
  const zone = page.member?.timeZone ?? 'UTC'
  return [
    {
      header: words.kind,
      cell: (found: StoredBreak) => <a href={breakPath(found.id)}>{wordOf(words.kinds, found.kind)}</a>,
      rowHeader: true,
    },
    { header: words.connection, cell: (found: StoredBreak) => found.connectionId },
    { header: words.day, cell: (found: StoredBreak) => found.day },
    { header: words.reference, cell: (found: StoredBreak) => found.token ?? found.operatorReference ?? '' },
    {
      header: words.amount,
      cell: (found: StoredBreak) => formatMoney(found.amountMinor, found.currency, page.locale),
      numeric: true,
    },
    { header: words.state, cell: (found: StoredBreak) => wordOf(words.states, found.state) },
    {
      header: words.foundAt,
      cell: (found: StoredBreak) => formatInstant(found.foundAtUs, page.locale, zone),
    },
  ]
}

function QueueFilters({
  connections,
  filter,
  words,
}: {
  connections: readonly string[]
  filter: QueueFilter
  words: ReconciliationWords
}) {
  const choice = (name: string, any: string, options: readonly [string, string][], selected?: string) => (
    <select id={`filter-${name}`} name={name}>
      <option value="">{any}</option>
      {options.map(([value, text]) => (
        <option key={value} value={value} selected={value === selected}>
          {text}
        </option>
      ))}
    </select>
  )
  return (
    <form method="get" action={breaksPath} class="filters" aria-label={words.filters}>
      {filter.day && <input type="hidden" name="day" value={filter.day} />}
      <label for="filter-connection">{words.connection}</label>
      {choice(
        'connection',
        words.anyConnection,
        connections.map((id) => [id, id]),
        filter.connectionId,
      )}
      <label for="filter-kind">{words.kind}</label>
      {choice(
        'kind',
        words.anyKind,
        breakKinds.map((kind) => [kind, words.kinds[kind]]),
        filter.kind,
      )}
      <label for="filter-state">{words.state}</label>
      {choice(
        'state',
        words.anyState,
        breakStates.map((state) => [state, words.states[state]]),
        filter.state,
      )}
      <label for="filter-age">{words.age}</label>
      {choice(
        'age',
        words.anyAge,
        breakAges.map((age: BreakAge) => [age, words.ages[age] ?? age]),
        filter.age,
      )}
      <button type="submit">{words.filter}</button>
    </form>
  )
}
