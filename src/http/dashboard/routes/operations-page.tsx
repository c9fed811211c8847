import type { ComponentChildren } from 'preact'
import { csvRowLimit, cursorText, type OperationListPage } from '../../../app/dashboard/search.ts'
import { type Mode, operationKindNames } from '../../../domain/kinds.ts'
import { countries } from '../../../domain/money.ts'
import { statuses } from '../../../domain/status.ts'
import { countryName, Pagination, Section } from '../../pages/kit/index.ts'
import { memberPage, type PageContext } from '../layout.tsx'
import { OperationsTable } from '../operations-table.tsx'

/** The query string of the list and its CSV, as sent (kept to rebuild the next page's link). */
export type ListParameters = Partial<
  Record<'q' | 'kind' | 'status' | 'channel' | 'country' | 'from' | 'to' | 'after', string>
>

function linkWith(mode: Mode, path: string, parameters: ListParameters, changes: ListParameters): string {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries({ ...parameters, ...changes }))
    if (value) search.set(name, value)
  const text = search.toString()
  return `/dashboard/${mode}/${path}${text ? `?${text}` : ''}`
}

/** The operations page: one search box and the filters, what they find a page at a time, and its CSV. */
export function listPage(
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
      <OperationSearchForm page={page} action={`/dashboard/${mode}/operations`} parameters={parameters} />
      <Section id="results" title={t.nav.operations}>
        {searched && <p role="status">{t.operations.found(found.items.length)}</p>}
        <OperationsTable page={page} operations={found.items} />
        <Pagination
          page={page}
          label={t.nav.operations}
          first={parameters.after ? linkWith(mode, 'operations', parameters, { after: '' }) : undefined}
          next={
            found.next
              ? linkWith(mode, 'operations', parameters, { after: cursorText(found.next) })
              : undefined
          }
        />
        <p>
          <a href={linkWith(mode, 'operations.csv', parameters, { after: '' })} download>
            {t.common.downloadCsv}
          </a>{' '}
          <span class="muted">
            {t.operations.csvLimit(new Intl.NumberFormat(page.locale).format(csvRowLimit))}
          </span>
        </p>
      </Section>
    </>,
  )
}

/** The search box and the filters, sent to `action`; `children` are filters of the page's own (the console's merchant). */
export function OperationSearchForm({
  page,
  action,
  parameters,
  children,
}: {
  page: PageContext<string>
  action: string
  parameters: ListParameters
  children?: ComponentChildren
}) {
  const { t } = page
  const option = (value: string, text: string, selected: string | undefined) => (
    <option value={value} selected={selected === value}>
      {text}
    </option>
  )
  const countryOptions = Object.keys(countries)
    .map((code) => ({ code, name: countryName(code, page.locale) }))
    .sort((a, b) => a.name.localeCompare(b.name, page.locale))
  return (
    <form method="get" action={action} class="search">
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
          {countryOptions.map(({ code, name }) => option(code, name, parameters.country))}
        </select>
        <label for="from">{t.common.from}</label>
        <input id="from" name="from" type="date" value={parameters.from ?? ''} />
        <label for="to">{t.common.to}</label>
        <input id="to" name="to" type="date" value={parameters.to ?? ''} />
        {children}
      </fieldset>
      <button type="submit">{t.common.search}</button>
    </form>
  )
}
