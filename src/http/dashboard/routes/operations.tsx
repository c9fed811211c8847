import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../../app/context.ts'
import type { OperationListPage } from '../../../app/dashboard/search.ts'
import {
  csvRowLimit,
  cursorText,
  type OperationQuery,
  openOperationsExport,
  parseCursor,
  searchOperations,
} from '../../../app/dashboard/search.ts'
import { formatTimestamp } from '../../../domain/clock.ts'
import { type Mode, operationKindNames } from '../../../domain/kinds.ts'
import { type Currency, countries, isCountry, toMajorUnits } from '../../../domain/money.ts'
import type { Operation } from '../../../domain/operation.ts'
import { statuses } from '../../../domain/status.ts'
import { sendCsvExport } from '../csv-export.tsx'
import { instantFromInput } from '../format.ts'
import type { Guard } from '../guard.tsx'
import { memberPage, type PageContext } from '../layout.tsx'
import { OperationsTable } from '../operations-table.tsx'
import { sendPage } from '../respond.ts'
import { modes } from './home.tsx'
import { operationRoutes } from './operation.tsx'

/** The query string of the list and its CSV, as sent (kept to rebuild the next page's link). */
type ListParameters = Partial<
  Record<'q' | 'kind' | 'status' | 'channel' | 'country' | 'from' | 'to' | 'after', string>
>

const dayUs = 86_400_000_000

/** The operations area: the list with its search and filters, its CSV, and each operation's page. */
export function operationsRoutes(app: FastifyInstance, context: AppContext, guard: Guard): void {
  for (const mode of modes) {
    app.get(`/dashboard/${mode}/operations`, async (request, reply) => {
      const signedIn = await guard.member(request, reply, 'read', mode)
      if (!signedIn) return reply
      const parameters = request.query as ListParameters
      const query = operationQuery(parameters)
      const found = await searchOperations(context, signedIn.live.member.merchantId, mode, query)
      return sendPage(reply, 200, listPage(signedIn.page, mode, parameters, found))
    })
    app.get(`/dashboard/${mode}/operations.csv`, async (request, reply) => {
      const signedIn = await guard.member(request, reply, 'read', mode)
      if (!signedIn) return reply
      const query = operationQuery(request.query as ListParameters)
      const merchantId = signedIn.live.member.merchantId
      return sendCsvExport(
        reply,
        signedIn.page,
        () => openOperationsExport(context, merchantId, mode, query),
        {
          filename: `sika-${mode}-operations.csv`,
          header: csvColumns,
          cells: csvRow,
        },
      )
    })
  }
  operationRoutes(app, context, guard)
}

/** What the query string asks, each value checked: an unknown kind, status or country filters nothing. */
export function operationQuery(parameters: ListParameters): OperationQuery {
  const text = (value: string | undefined) => value?.trim().slice(0, 200) || undefined
  const query: OperationQuery = {}
  const q = text(parameters.q)
  if (q) query.q = q
  const kind = text(parameters.kind)
  if (kind && (operationKindNames as string[]).includes(kind)) query.kind = kind
  const status = text(parameters.status)
  if (status && (statuses as readonly string[]).includes(status)) query.status = status
  const channel = text(parameters.channel)
  if (channel) query.channel = channel
  const country = text(parameters.country)?.toUpperCase()
  if (country && isCountry(country)) query.country = country
  const fromUs = instantFromInput(parameters.from)
  if (fromUs !== undefined) query.fromUs = fromUs
  // The `to` date is the last day shown: operations before the next midnight.
  const toUs = instantFromInput(parameters.to)
  if (toUs !== undefined) query.toUs = parameters.to?.includes('T') ? toUs : toUs + dayUs
  const after = parseCursor(parameters.after)
  if (after) query.after = after
  return query
}

export const csvColumns = [
  'initiatedAt',
  'token',
  'kind',
  'status',
  'amount',
  'currency',
  'fees',
  'channel',
  'country',
  'phoneNumber',
  'fullName',
  'toChannel',
  'toCountry',
  'toPhoneNumber',
  'toFullName',
  'merchantReference',
  'completedAt',
  'failureCode',
] as const

function csvRow(operation: Operation): unknown[] {
  const [first, second] = operation.sides
  const major = (minor: number | undefined) =>
    minor === undefined ? '' : toMajorUnits(minor, operation.currency as Currency)
  return [
    formatTimestamp(operation.initiatedAtUs),
    operation.token,
    operation.kind,
    operation.status,
    major(first?.amountMinor),
    operation.currency,
    major(first?.feesMinor),
    first?.channel,
    first?.country,
    first?.customer.phoneNumber,
    first?.customer.fullName,
    second?.channel,
    second?.country,
    second?.customer.phoneNumber,
    second?.customer.fullName,
    operation.merchantReference,
    operation.completedAtUs === null ? '' : formatTimestamp(operation.completedAtUs),
    operation.failure?.code,
  ]
}

function linkWith(mode: Mode, path: string, parameters: ListParameters, changes: ListParameters): string {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries({ ...parameters, ...changes }))
    if (value) search.set(name, value)
  const text = search.toString()
  return `/dashboard/${mode}/${path}${text ? `?${text}` : ''}`
}

function listPage(
  page: PageContext,
  mode: Mode,
  parameters: ListParameters,
  found: OperationListPage,
): string {
  const { t } = page
  const searched = Boolean(parameters.q?.trim())
  return memberPage(
    page,
    t.operations.title,
    <>
      <SearchForm page={page} mode={mode} parameters={parameters} />
      <section aria-labelledby="results">
        <h2 id="results">{t.nav.operations}</h2>
        {searched && <p role="status">{t.operations.found(found.items.length)}</p>}
        <OperationsTable page={page} operations={found.items} />
        <p class="pager">
          {parameters.after && (
            <a href={linkWith(mode, 'operations', parameters, { after: '' })}>{t.common.first}</a>
          )}{' '}
          {found.next && (
            <a rel="next" href={linkWith(mode, 'operations', parameters, { after: cursorText(found.next) })}>
              {t.common.next}
            </a>
          )}
        </p>
        <p>
          <a href={linkWith(mode, 'operations.csv', parameters, { after: '' })} download>
            {t.common.downloadCsv}
          </a>{' '}
          <span class="muted">
            {t.operations.csvLimit(new Intl.NumberFormat(page.locale).format(csvRowLimit))}
          </span>
        </p>
      </section>
    </>,
  )
}

function SearchForm({
  page,
  mode,
  parameters,
}: {
  page: PageContext
  mode: Mode
  parameters: ListParameters
}) {
  const { t } = page
  const option = (value: string, text: string, selected: string | undefined) => (
    <option value={value} selected={selected === value}>
      {text}
    </option>
  )
  return (
    <form method="get" action={`/dashboard/${mode}/operations`} class="search">
      <p>
        <label for="q">{t.operations.searchLabel}</label>
        <input id="q" name="q" type="search" value={parameters.q ?? ''} aria-describedby="q-hint" />
        <span id="q-hint" class="muted">
          {t.operations.searchHint}
        </span>
      </p>
      <fieldset>
        <legend>{t.operations.filters}</legend>
        <label for="kind">{t.operations.kind}</label>
        <select id="kind" name="kind">
          {option('', t.common.any, parameters.kind ?? '')}
          {operationKindNames.map((kind) => option(kind, t.kinds[kind], parameters.kind))}
        </select>
        <label for="status">{t.common.status}</label>
        <select id="status" name="status">
          {option('', t.common.any, parameters.status ?? '')}
          {statuses.map((status) => option(status, t.statuses[status], parameters.status))}
        </select>
        <label for="channel">{t.operations.channel}</label>
        <input id="channel" name="channel" type="text" value={parameters.channel ?? ''} />
        <label for="country">{t.operations.country}</label>
        <select id="country" name="country">
          {option('', t.common.any, parameters.country ?? '')}
          {Object.keys(countries).map((country) => option(country, country, parameters.country))}
        </select>
        <label for="from">{t.common.from}</label>
        <input id="from" name="from" type="date" value={parameters.from ?? ''} />
        <label for="to">{t.common.to}</label>
        <input id="to" name="to" type="date" value={parameters.to ?? ''} />
      </fieldset>
      <button type="submit">{t.common.search}</button>
    </form>
  )
}
