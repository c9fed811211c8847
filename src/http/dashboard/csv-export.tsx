import { Readable } from 'node:stream'
import type { FastifyReply } from 'fastify'
import type { LongExport } from '../../app/mechanisms/long-exports.ts'
import { ApiError } from '../../errors.ts'
import { csvLine } from '../csv.ts'
import { Notification } from '../pages/kit/index.ts'
import { type PageContext, plainPage } from './layout.tsx'
import { sendPage } from './respond.ts'

/** A CSV download of the dashboard: its file's name, its header, and the cells of each row. */
export interface CsvDownload<Row> {
  filename: string
  header: readonly string[]
  cells(row: Row): unknown[]
}

/**
 * Streams an export (`openLongExport`: a batch of rows a turn of the process's long work, holding
 * one of the merchant's export slots, given back when the response ends however it ends). When
 * every slot is taken the member gets a page saying so, 429 with Retry-After, and nothing is read.
 */
export function sendCsvExport<Row>(
  reply: FastifyReply,
  page: PageContext,
  open: () => LongExport<Row>,
  download: CsvDownload<Row>,
): FastifyReply {
  let exported: LongExport<Row>
  try {
    exported = open()
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'rate_limited') throw error
    reply.headers(error.headers ?? {})
    return sendPage(
      reply,
      429,
      plainPage(page, page.t.errors.busyTitle, <Notification error={page.t.errors.busy} />),
    )
  }
  reply.raw.once('close', exported.close)
  async function* text(): AsyncGenerator<string> {
    yield csvLine(download.header)
    yield* exported.chunks((rows) => rows.map((row) => csvLine(download.cells(row))).join(''))
  }
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${download.filename}"`)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .send(Readable.from(text()))
}
