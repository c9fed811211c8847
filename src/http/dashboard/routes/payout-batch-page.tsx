import {
  type BatchItemView,
  type BatchSummary,
  type BatchView,
  batchesPerPage,
} from '../../../app/dashboard/payout-batch-view.ts'
import type { Page } from '../../../domain/pages.ts'
import type { PayoutBatchStatus } from '../../../domain/payout-batches.ts'
import { formatInstant, formatMoney } from '../format.ts'
import { allows, CsrfField, memberPage, type PageContext, StatusBadge } from '../layout.tsx'

/** What a batch's page says above the record: what was just done, or why it was refused. */
export interface BatchNote {
  notice?: string
  error?: string
}

function when(page: PageContext, atUs: number): string {
  return formatInstant(atUs, page.locale, page.member?.timeZone ?? 'UTC')
}

function BatchStatus({ page, status }: { page: PageContext; status: PayoutBatchStatus }) {
  return <span class={`status status-batch-${status}`}>{page.t.payoutBatches.statuses[status]}</span>
}

/** The counts of a batch's items, in words: "3 succeeded · 1 failed". */
function countsText(page: PageContext, counts: Record<string, number>): string {
  const words = page.t.statuses as Record<string, string>
  return Object.entries(counts)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => `${count} ${words[status] ?? status}`)
    .join(' · ')
}

/** Links to the first and the next page of a list, when it has more than one. */
export function ListPages(props: {
  page: PageContext
  path: string
  current: number
  total: number
  perPage: number
}) {
  const { t } = props.page
  const more = props.total > props.current * props.perPage
  if (props.current <= 1 && !more) return null
  return (
    <nav aria-label={t.payoutBatches.pages}>
      {props.current > 1 && <a href={props.path}>{t.common.first}</a>}{' '}
      {more && <a href={`${props.path}?page=${props.current + 1}`}>{t.common.next}</a>}
    </nav>
  )
}

export function BatchList({
  page,
  list,
  current,
}: {
  page: PageContext
  list: Page<BatchSummary>
  current: number
}) {
  const { t } = page
  return (
    <section aria-labelledby="batches">
      <h2 id="batches">{t.payoutBatches.list}</h2>
      {list.items.length === 0 ? (
        <p class="muted">{t.payoutBatches.noBatches}</p>
      ) : (
        <table id="batches-table">
          <thead>
            <tr>
              <th scope="col">{t.payoutBatches.merchantReference}</th>
              <th scope="col">{t.common.status}</th>
              <th scope="col" class="num">
                {t.payoutBatches.itemCount}
              </th>
              <th scope="col" class="num">
                {t.payoutBatches.total}
              </th>
              <th scope="col">{t.payoutBatches.counts}</th>
              <th scope="col">{t.payoutBatches.createdBy}</th>
              <th scope="col">{t.payoutBatches.created}</th>
            </tr>
          </thead>
          <tbody>
            {list.items.map(({ batch, counts }) => (
              <tr key={batch.token}>
                <th scope="row">
                  <a href={`/dashboard/${batch.mode}/payout-batches/${batch.token}`}>
                    {batch.merchantReference}
                  </a>
                </th>
                <td>
                  <BatchStatus page={page} status={batch.status} />
                </td>
                <td class="num">{batch.itemCount}</td>
                <td class="num">{formatMoney(batch.totalMinor, batch.currency, page.locale)}</td>
                <td>{countsText(page, counts)}</td>
                <td>{batch.createdBy ?? ''}</td>
                <td>{when(page, batch.initiatedAtUs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ListPages
        page={page}
        path={`/dashboard/${page.mode}/payout-batches`}
        current={current}
        total={list.total}
        perPage={batchesPerPage}
      />
    </section>
  )
}

/** A batch's page: its record, what the member may do with it, its results file and its items. */
export function batchPage(page: PageContext, view: BatchView, note: BatchNote, memberId: string): string {
  const { t } = page
  return memberPage(
    page,
    t.payoutBatches.batchTitle(view.batch.merchantReference),
    <>
      {note.notice && (
        <p class="notice" role="status">
          {note.notice}
        </p>
      )}
      {note.error && (
        <p class="error" role="alert">
          {note.error}
        </p>
      )}
      <BatchRecord page={page} view={view} />
      <ApprovalSection page={page} view={view} memberId={memberId} />
      <CancelSection page={page} view={view} />
      <p>
        <a href={`/dashboard/${view.batch.mode}/payout-batches/${view.batch.token}/results.csv`}>
          {t.payoutBatches.results}
        </a>
      </p>
      <ItemsTable page={page} items={view.items} />
    </>,
  )
}

function BatchRecord({ page, view }: { page: PageContext; view: BatchView }) {
  const { t } = page
  const { batch } = view
  const row = (label: string, value: preact.ComponentChildren) => (
    <tr>
      <th scope="row">{label}</th>
      <td>{value}</td>
    </tr>
  )
  return (
    <section aria-labelledby="batch-record">
      <h2 id="batch-record">{t.payoutBatches.record}</h2>
      <table>
        <tbody>
          {row(t.payoutBatches.token, <code>{batch.token}</code>)}
          {row(t.common.status, <BatchStatus page={page} status={batch.status} />)}
          {row(t.payoutBatches.itemCount, String(batch.itemCount))}
          {row(t.payoutBatches.total, formatMoney(batch.totalMinor, batch.currency, page.locale))}
          {row(t.payoutBatches.counts, countsText(page, view.counts))}
          {row(t.payoutBatches.createdBy, batch.createdBy ?? '')}
          {batch.approvedBy && row(t.payoutBatches.approvedBy, batch.approvedBy)}
          {row(t.payoutBatches.created, when(page, batch.initiatedAtUs))}
          {batch.completedAtUs !== null && row(t.payoutBatches.completedAt, when(page, batch.completedAtUs))}
        </tbody>
      </table>
    </section>
  )
}

/** Approve (with a fresh code) or reject, while the batch awaits approval; never offered to its creator to approve. */
function ApprovalSection({ page, view, memberId }: { page: PageContext; view: BatchView; memberId: string }) {
  const { t } = page
  const { batch } = view
  if (batch.status !== 'awaiting_approval' || !allows(page, 'batches')) return null
  const action = `/dashboard/${batch.mode}/payout-batches/${batch.token}`
  return (
    <section aria-labelledby="approval">
      <h2 id="approval">{t.payoutBatches.approval}</h2>
      {batch.createdByMember === memberId ? (
        <p class="notice" id="own-batch">
          {t.payoutBatches.ownBatch}
        </p>
      ) : (
        <form method="post" action={`${action}/approve`} class="inline">
          <CsrfField page={page} />
          <p id="approve-intro">{t.payoutBatches.approveIntro}</p>
          <label>
            {t.payoutBatches.code}
            <input
              name="code"
              inputMode="numeric"
              autocomplete="one-time-code"
              pattern="[0-9]{6}"
              required
              aria-describedby="approve-intro"
            />
          </label>
          <button type="submit">{t.payoutBatches.approve}</button>
        </form>
      )}
      <form method="post" action={`${action}/reject`} class="inline">
        <CsrfField page={page} />
        <p id="reject-intro">{t.payoutBatches.rejectIntro}</p>
        <button type="submit" class="danger" aria-describedby="reject-intro">
          {t.payoutBatches.reject}
        </button>
      </form>
    </section>
  )
}

function CancelSection({ page, view }: { page: PageContext; view: BatchView }) {
  const { t } = page
  const { batch } = view
  if (batch.status !== 'processing' || !allows(page, 'cancel')) return null
  return (
    <section aria-labelledby="batch-cancel">
      <h2 id="batch-cancel">{t.payoutBatches.cancel}</h2>
      <form
        method="post"
        action={`/dashboard/${batch.mode}/payout-batches/${batch.token}/cancel`}
        class="inline"
      >
        <CsrfField page={page} />
        <p id="batch-cancel-intro">{t.payoutBatches.cancelIntro}</p>
        <button type="submit" class="danger" aria-describedby="batch-cancel-intro">
          {t.payoutBatches.cancel}
        </button>
      </form>
    </section>
  )
}

function ItemsTable({ page, items }: { page: PageContext; items: readonly BatchItemView[] }) {
  const { t } = page
  return (
    <table id="batch-items">
      <caption>{t.payoutBatches.itemsTitle}</caption>
      <thead>
        <tr>
          <th scope="col">{t.payoutBatches.operation}</th>
          <th scope="col">{t.payoutBatches.merchantReference}</th>
          <th scope="col">{t.payoutBatches.phone}</th>
          <th scope="col">{t.payoutBatches.fullName}</th>
          <th scope="col" class="num">
            {t.common.amount}
          </th>
          <th scope="col">{t.common.status}</th>
          <th scope="col">{t.payoutBatches.reason}</th>
        </tr>
      </thead>
      <tbody>
        {items.map((item) => (
          <tr key={item.token}>
            <th scope="row">
              <a href={`/dashboard/${page.mode}/operations/${item.token}`}>{item.token}</a>
            </th>
            <td>{item.merchantReference}</td>
            <td>{item.phoneNumber}</td>
            <td class="customer-name">{item.fullName}</td>
            <td class="num">{formatMoney(item.amountMinor, item.currency, page.locale)}</td>
            <td>
              <StatusBadge page={page} status={item.status} />
            </td>
            <td>{item.failureCode ? `${item.failureCode}: ${item.failureMessage}` : ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
