import { randomBytes } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../../../app/context.ts'
import {
  type BatchPreview,
  batchColumns,
  largestUpload,
  type PreviewRow,
  previewPayoutBatch,
  readPayoutCsv,
} from '../../../app/dashboard/payout-batch-upload.ts'
import { type DashboardRefusal, isRefusal, refusal } from '../../../app/dashboard/refusals.ts'
import type { Principal } from '../../../app/principal.ts'
import type { Mode } from '../../../domain/kinds.ts'
import { formatMoney } from '../format.ts'
import type { Guard, SignedIn } from '../guard.tsx'
import { allows, CsrfField, memberPage, type PageContext } from '../layout.tsx'
import { RefusalNote } from '../refusal-text.tsx'
import { sendPage } from '../respond.ts'
import { modes } from './home.tsx'

type Form = Record<string, string | undefined>

export function principalOf(signedIn: SignedIn, mode: Mode): Principal {
  return { merchantId: signedIn.live.member.merchantId, merchantName: '', mode }
}

/** A batch reference the member did not give: unique enough among a merchant's batches. */
function newBatchReference(): string {
  return `dashboard-${new Date().toISOString().slice(0, 10)}-${randomBytes(4).toString('hex')}`
}

/**
 * The payout batch pages of each place: the list and the upload form (permission 'read' to see,
 * 'batches' to upload), the preview of an uploaded file, and its submission.
 */
export function payoutBatchRoutes(app: FastifyInstance, context: AppContext, guard: Guard): void {
  for (const mode of modes) {
    const base = `/dashboard/${mode}/payout-batches`
    app.get(base, async (request, reply) => {
      const signedIn = await guard.member(request, reply, 'read', mode)
      if (!signedIn) return reply
      return sendPage(reply, 200, batchesPage(signedIn.page, {}))
    })
    app.post(`${base}/preview`, async (request, reply) => {
      const signedIn = await guard.member(request, reply, 'batches', mode)
      if (!signedIn) return reply
      return previewAnswer(context, request, reply, signedIn, mode)
    })
  }
}

/** The uploaded file read and every row checked; nothing is written. */
async function previewAnswer(
  context: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  signedIn: SignedIn,
  mode: Mode,
): Promise<FastifyReply> {
  const form = (request.body ?? {}) as Form
  const text = form.file ?? ''
  const rows = readPayoutCsv(text)
  if (isRefusal(rows)) return sendPage(reply, 422, batchesPage(signedIn.page, { refusal: rows }))
  const preview = await previewPayoutBatch(context, principalOf(signedIn, mode), rows)
  const reference = form.reference?.trim() || newBatchReference()
  const faulty = preview.faulty > 0 || preview.mixedCurrencies
  const shown = { preview, reference, csv: Buffer.from(text, 'utf8').toString('base64') }
  return sendPage(reply, faulty ? 422 : 200, previewPage(signedIn.page, shown))
}

interface ListNote {
  refusal?: DashboardRefusal
  notice?: string
}

function batchesPage(page: PageContext, note: ListNote): string {
  const { t } = page
  return memberPage(
    page,
    t.payoutBatches.title,
    <>
      {note.refusal && <RefusalNote page={page} refusal={note.refusal} />}
      {note.notice && (
        <p class="notice" role="status">
          {note.notice}
        </p>
      )}
      <p>{t.payoutBatches.intro}</p>
      {allows(page, 'batches') && <UploadForm page={page} />}
    </>,
  )
}

function UploadForm({ page }: { page: PageContext }) {
  const { t } = page
  return (
    <section aria-labelledby="upload">
      <h2 id="upload">{t.payoutBatches.upload}</h2>
      <form
        method="post"
        action={`/dashboard/${page.mode}/payout-batches/preview`}
        enctype="multipart/form-data"
        class="stack card"
      >
        <CsrfField page={page} />
        <label>
          {t.payoutBatches.file}
          <input name="file" type="file" accept=".csv,text/csv" required aria-describedby="upload-hint" />
        </label>
        <p id="upload-hint" class="muted">
          {t.payoutBatches.uploadHint(batchColumns.join(','), largestUpload)}
        </p>
        <label>
          {t.payoutBatches.reference}
          <input name="reference" type="text" maxLength={64} aria-describedby="reference-hint" />
        </label>
        <p id="reference-hint" class="muted">
          {t.payoutBatches.referenceHint}
        </p>
        <p>
          <button type="submit">{t.payoutBatches.previewSubmit}</button>
        </p>
      </form>
    </section>
  )
}

interface ShownPreview {
  preview: BatchPreview
  reference: string
  /** The file as uploaded, base64: the submit form sends it again, and it is checked again. */
  csv: string
}

function previewPage(page: PageContext, shown: ShownPreview): string {
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
          <CsrfField page={page} />
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

function TotalsTable({ page, preview }: { page: PageContext; preview: BatchPreview }) {
  const { t } = page
  const money = (minor: number, currency: string) => formatMoney(minor, currency, page.locale)
  return (
    <table id="batch-totals">
      <caption>{t.payoutBatches.totals}</caption>
      <thead>
        <tr>
          <th scope="col">{t.payoutBatches.currency}</th>
          <th scope="col" class="num">
            {t.payoutBatches.items}
          </th>
          <th scope="col" class="num">
            {t.common.amount}
          </th>
          <th scope="col" class="num">
            {t.payoutBatches.fees}
          </th>
          <th scope="col" class="num">
            {t.payoutBatches.held}
          </th>
        </tr>
      </thead>
      <tbody>
        {preview.totals.map((total) => (
          <tr key={total.currency}>
            <th scope="row">{total.currency}</th>
            <td class="num">{total.count}</td>
            <td class="num">{money(total.amountMinor, total.currency)}</td>
            <td class="num">{money(total.feesMinor, total.currency)}</td>
            <td class="num">{money(total.cashAmountMinor, total.currency)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function RowsTable({ page, rows }: { page: PageContext; rows: readonly PreviewRow[] }) {
  const { t } = page
  return (
    <table id="batch-rows">
      <caption>{t.payoutBatches.itemsTitle}</caption>
      <thead>
        <tr>
          <th scope="col">{t.payoutBatches.line}</th>
          <th scope="col" class="num">
            {t.common.amount}
          </th>
          <th scope="col">{t.payoutBatches.channel}</th>
          <th scope="col">{t.payoutBatches.country}</th>
          <th scope="col">{t.payoutBatches.phone}</th>
          <th scope="col">{t.payoutBatches.fullName}</th>
          <th scope="col">{t.payoutBatches.merchantReference}</th>
          <th scope="col">{t.payoutBatches.errors}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(({ row, errors }) => (
          <tr key={String(row.line)} class={errors.length > 0 ? 'faulty' : undefined}>
            <th scope="row">{row.line}</th>
            <td class="num">{row.amount}</td>
            <td>{row.channel}</td>
            <td>{row.country}</td>
            <td>{row.phoneNumber}</td>
            <td class="customer-name">{row.fullName}</td>
            <td>{row.merchantReference}</td>
            <td>
              {errors.length === 0 ? (
                t.payoutBatches.ok
              ) : (
                <ul class="row-errors">
                  {errors.map((error) => (
                    <li key={`${error.field}-${error.code}`}>
                      {`${error.field}: ${error.message ?? t.payoutBatches.rowErrors[error.code]}`}
                    </li>
                  ))}
                </ul>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
