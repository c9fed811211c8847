import { batchColumns, largestUpload } from '../../../app/dashboard/payout-batch-upload.ts'
import type { BatchSummary } from '../../../app/dashboard/payout-batch-view.ts'
import type { DashboardRefusal } from '../../../app/dashboard/refusals.ts'
import type { Page } from '../../../domain/pages.ts'
import { CsrfInput, Notification, Section } from '../../pages/kit/index.ts'
import { allows, memberPage, type PageContext } from '../layout.tsx'
import { RefusalNote } from '../refusal-text.tsx'
import { BatchList } from './payout-batch-page.tsx'

export interface ListNote {
  refusal?: DashboardRefusal
  error?: string
  /** The list's page number. */
  current: number
}

/** The payout batches page: the upload form (for those who may), and the batches, newest first. */
export function batchesPage(page: PageContext, list: Page<BatchSummary>, note: ListNote): string {
  const { t } = page
  return memberPage(
    page,
    t.payoutBatches.title,
    <>
      {note.refusal && <RefusalNote page={page} refusal={note.refusal} />}
      <Notification error={note.error} />
      <p>{t.payoutBatches.intro}</p>
      {allows(page, 'batches') && <UploadForm page={page} />}
      <BatchList page={page} list={list} current={note.current} />
    </>,
  )
}

function UploadForm({ page }: { page: PageContext }) {
  const { t } = page
  return (
    <Section id="upload" title={t.payoutBatches.upload}>
      <form
        method="post"
        action={`/dashboard/${page.mode}/payout-batches/preview`}
        enctype="multipart/form-data"
        class="stack card"
      >
        <CsrfInput page={page} />
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
    </Section>
  )
}
