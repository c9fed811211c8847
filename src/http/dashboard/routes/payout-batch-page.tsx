import {
  type BatchItemView,
  type BatchSummary,
  type BatchView,
  batchesPerPage,
} from '../../../app/dashboard/payout-batch-view.ts'
import type { Page } from '../../../domain/pages.ts'
import type { PayoutBatchStatus } from '../../../domain/payout-batches.ts'
import {
  type Column,
  ConfirmForm,
  Notification,
  numberedPages,
  Pagination,
  Section,
  SummaryList,
  showInstant,
  showMoney,
  Table,
} from '../../pages/kit/index.ts'
import { allows, memberPage, type PageContext, StatusBadge } from '../layout.tsx'

/** What a batch's page says above the record: what was just done, or why it was refused. */
export interface BatchNote {
  notice?: string
  error?: string
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

/** The batches, newest first, a page at a time. */
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
  const columns: Column<BatchSummary>[] = [
    {
      header: t.payoutBatches.merchantReference,
      rowHeader: true,
      cell: ({ batch }) => (
        <a href={`/dashboard/${batch.mode}/payout-batches/${batch.token}`}>{batch.merchantReference}</a>
      ),
    },
    { header: t.common.status, cell: ({ batch }) => <BatchStatus page={page} status={batch.status} /> },
    { header: t.payoutBatches.itemCount, numeric: true, cell: ({ batch }) => batch.itemCount },
    {
      header: t.payoutBatches.total,
      numeric: true,
      cell: ({ batch }) => showMoney(page, batch.totalMinor, batch.currency),
    },
    { header: t.payoutBatches.counts, cell: ({ counts }) => countsText(page, counts) },
    { header: t.payoutBatches.createdBy, cell: ({ batch }) => batch.createdBy ?? '' },
    { header: t.payoutBatches.created, cell: ({ batch }) => showInstant(page, batch.initiatedAtUs) },
  ]
  const path = `/dashboard/${page.mode}/payout-batches`
  return (
    <Section id="batches" title={t.payoutBatches.list}>
      <Table
        page={page}
        id="batches-table"
        columns={columns}
        rows={list.items}
        rowKey={({ batch }) => batch.token}
        empty={t.payoutBatches.noBatches}
      />
      <Pagination
        page={page}
        label={t.payoutBatches.pages}
        {...numberedPages(path, current, list.total, batchesPerPage)}
      />
    </Section>
  )
}

/** A batch's page: its record, what the member may do with it, its results file and its items. */
export function batchPage(page: PageContext, view: BatchView, note: BatchNote, memberId: string): string {
  const { t } = page
  const { batch } = view
  return memberPage(
    page,
    t.payoutBatches.batchTitle(batch.merchantReference),
    <>
      <Notification {...note} />
      <Section id="batch-record" title={t.payoutBatches.record}>
        <SummaryList
          rows={[
            [t.payoutBatches.token, <code>{batch.token}</code>],
            [t.common.status, <BatchStatus page={page} status={batch.status} />],
            [t.payoutBatches.itemCount, String(batch.itemCount)],
            [t.payoutBatches.total, showMoney(page, batch.totalMinor, batch.currency)],
            [t.payoutBatches.counts, countsText(page, view.counts)],
            [t.payoutBatches.createdBy, batch.createdBy ?? ''],
            batch.approvedBy && [t.payoutBatches.approvedBy, batch.approvedBy],
            [t.payoutBatches.created, showInstant(page, batch.initiatedAtUs)],
            batch.completedAtUs !== null && [
              t.payoutBatches.completedAt,
              showInstant(page, batch.completedAtUs),
            ],
          ]}
        />
      </Section>
      <ApprovalSection page={page} view={view} memberId={memberId} />
      <CancelSection page={page} view={view} />
      <p>
        <a href={`/dashboard/${batch.mode}/payout-batches/${batch.token}/results.csv`}>
          {t.payoutBatches.results}
        </a>
      </p>
      <ItemsTable page={page} items={view.items} />
    </>,
  )
}

/** Approve (with a fresh code) or reject, while the batch awaits approval; never offered to its creator to approve. */
function ApprovalSection({ page, view, memberId }: { page: PageContext; view: BatchView; memberId: string }) {
  const { t } = page
  const { batch } = view
  if (batch.status !== 'awaiting_approval' || !allows(page, 'batches')) return null
  const action = `/dashboard/${batch.mode}/payout-batches/${batch.token}`
  return (
    <Section id="approval" title={t.payoutBatches.approval}>
      {batch.createdByMember === memberId ? (
        <p class="notice" id="own-batch">
          {t.payoutBatches.ownBatch}
        </p>
      ) : (
        <ConfirmForm
          page={page}
          action={`${action}/approve`}
          id="approve-intro"
          intro={t.payoutBatches.approveIntro}
          button={t.payoutBatches.approve}
        >
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
        </ConfirmForm>
      )}
      <ConfirmForm
        page={page}
        action={`${action}/reject`}
        id="reject-intro"
        intro={t.payoutBatches.rejectIntro}
        button={t.payoutBatches.reject}
        tone="danger"
      />
    </Section>
  )
}

function CancelSection({ page, view }: { page: PageContext; view: BatchView }) {
  const { t } = page
  const { batch } = view
  if (batch.status !== 'processing' || !allows(page, 'cancel')) return null
  return (
    <Section id="batch-cancel" title={t.payoutBatches.cancel}>
      <ConfirmForm
        page={page}
        action={`/dashboard/${batch.mode}/payout-batches/${batch.token}/cancel`}
        id="batch-cancel-intro"
        intro={t.payoutBatches.cancelIntro}
        button={t.payoutBatches.cancel}
        tone="danger"
      />
    </Section>
  )
}

function ItemsTable({ page, items }: { page: PageContext; items: readonly BatchItemView[] }) {
  const { t } = page
  const columns: Column<BatchItemView>[] = [
    {
      header: t.payoutBatches.operation,
      rowHeader: true,
      cell: (item) => <a href={`/dashboard/${page.mode}/operations/${item.token}`}>{item.token}</a>,
    },
    { header: t.payoutBatches.merchantReference, cell: (item) => item.merchantReference },
    { header: t.payoutBatches.phone, cell: (item) => item.phoneNumber },
    { header: t.payoutBatches.fullName, cell: (item) => <span class="customer-name">{item.fullName}</span> },
    {
      header: t.common.amount,
      numeric: true,
      cell: (item) => showMoney(page, item.amountMinor, item.currency),
    },
    { header: t.common.status, cell: (item) => <StatusBadge page={page} status={item.status} /> },
    {
      header: t.payoutBatches.reason,
      cell: (item) => (item.failureCode ? `${item.failureCode}: ${item.failureMessage}` : ''),
    },
  ]
  return (
    <Table
      page={page}
      id="batch-items"
      caption={t.payoutBatches.itemsTitle}
      columns={columns}
      rows={items}
      rowKey={(item) => item.token}
    />
  )
}
