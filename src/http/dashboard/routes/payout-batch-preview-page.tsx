import type { BatchPreview, PreviewRow } from '../../../app/dashboard/payout-batch-upload.ts'
import { refusal } from '../../../app/dashboard/refusals.ts'
import { type Column, CsrfInput, showMoney, Table } from '../../pages/kit/index.ts'
import { memberPage, type PageContext } from '../layout.tsx'
import { RefusalNote } from '../refusal-text.tsx'

export interface ShownPreview {
  preview: BatchPreview
  reference: string
  /** The file as uploaded, base64: the submit form sends it again, and it is checked again. */
  csv: string
}

/** An uploaded file before it is a batch: its totals, each row with its errors, and submitting it when all are good. */
export function previewPage(page: PageContext, shown: ShownPreview): string {
  const { t } = page
  const { preview } = shown
  const good = preview.faulty === 0 && !preview.mixedCurrencies
  return memberPage(
    page,
    t.payoutBatches.previewTitle,
    <>
      {preview.mixedCurrencies && <RefusalNote page={page} refusal={refusal('batch_mixed_currencies')} />}
      <p class={good ? 'notice' : 'error'} role={good ? 'status' : 'alert'}>
        {t.payoutBatches.previewIntro(preview.rows.length, preview.faulty)}
      </p>
      <TotalsTable page={page} preview={preview} />
      {good ? (
        <form
          method="post"
          action={`/dashboard/${page.mode}/payout-batches`}
          enctype="multipart/form-data"
          class="inline"
        >
          <CsrfInput page={page} />
          <input type="hidden" name="csv" value={shown.csv} />
          <input type="hidden" name="reference" value={shown.reference} />
          <button type="submit">{t.payoutBatches.submit}</button>
        </form>
      ) : (
        <p>
          <a href={`/dashboard/${page.mode}/payout-batches`}>{t.payoutBatches.uploadAgain}</a>
        </p>
      )}
      <RowsTable page={page} rows={preview.rows} />
    </>,
  )
}

type Total = BatchPreview['totals'][number]

function TotalsTable({ page, preview }: { page: PageContext; preview: BatchPreview }) {
  const { t } = page
  const columns: Column<Total>[] = [
    { header: t.payoutBatches.currency, rowHeader: true, cell: (total) => total.currency },
    { header: t.payoutBatches.items, numeric: true, cell: (total) => total.count },
    {
      header: t.common.amount,
      numeric: true,
      cell: (total) => showMoney(page, total.amountMinor, total.currency),
    },
    {
      header: t.payoutBatches.fees,
      numeric: true,
      cell: (total) => showMoney(page, total.feesMinor, total.currency),
    },
    {
      header: t.payoutBatches.held,
      numeric: true,
      cell: (total) => showMoney(page, total.cashAmountMinor, total.currency),
    },
  ]
  return (
    <Table
      page={page}
      id="batch-totals"
      caption={t.payoutBatches.totals}
      columns={columns}
      rows={preview.totals}
      rowKey={(total) => total.currency}
    />
  )
}

function RowsTable({ page, rows }: { page: PageContext; rows: readonly PreviewRow[] }) {
  const { t } = page
  const columns: Column<PreviewRow>[] = [
    { header: t.payoutBatches.line, rowHeader: true, cell: ({ row }) => row.line },
    { header: t.common.amount, numeric: true, cell: ({ row }) => row.amount },
    { header: t.payoutBatches.channel, cell: ({ row }) => row.channel },
    { header: t.payoutBatches.country, cell: ({ row }) => row.country },
    { header: t.payoutBatches.phone, cell: ({ row }) => row.phoneNumber },
    {
      header: t.payoutBatches.fullName,
      cell: ({ row }) => <span class="customer-name">{row.fullName}</span>,
    },
    { header: t.payoutBatches.merchantReference, cell: ({ row }) => row.merchantReference },
    {
      header: t.payoutBatches.errors,
      cell: ({ errors }) =>
        errors.length === 0 ? (
          t.payoutBatches.ok
        ) : (
          <ul class="row-errors">
            {errors.map((error) => (
              <li key={`${error.field}-${error.code}`}>
                {`${error.field}: ${error.message ?? t.payoutBatches.rowErrors[error.code]}`}
              </li>
            ))}
          </ul>
        ),
    },
  ]
  return (
    <Table
      page={page}
      id="batch-rows"
      caption={t.payoutBatches.itemsTitle}
      columns={columns}
      rows={rows}
      rowKey={({ row }) => String(row.line)}
      rowClass={({ errors }) => (errors.length > 0 ? 'faulty' : undefined)}
    />
  )
}
