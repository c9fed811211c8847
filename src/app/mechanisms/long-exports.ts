import { ApiError } from '../../errors.ts'
import type { AppContext } from '../context.ts'
import type { LongWorkOwner } from './long-work-turns.ts'
import { statementsPerMerchant } from './statement-slots.ts'

/** Seconds a merchant refused another export is told to wait: exports take seconds. */
export const exportRetryAfterSeconds = 1

/** An export being streamed (a CSV statement, a dashboard export): its text, a batch of rows at a time, until `close()`. */
export interface LongExport<Row> {
  /** The text of each batch of rows, as `format` writes a batch, in order. */
  chunks(format: (rows: readonly Row[]) => string): AsyncIterable<string>
  /** Gives the export's slot back: called once the response has ended, however it ended. */
  close(): void
}

/**
 * Each batch `batches` gives, read in its own turn of the process's long work (`LongWorkTurns`):
 * the requests that arrive meanwhile are answered between two batches, whatever the number of
 * batches. A page built from a long read (a batch's thousand items) reads it this way.
 */
export async function* inTurns<T>(
  context: AppContext,
  owner: LongWorkOwner,
  batches: AsyncIterator<T>,
): AsyncGenerator<T> {
  for (;;) {
    const next = await context.longWork.run(owner, () => batches.next())
    if (next.done) return
    yield next.value
  }
}

/**
 * An export of any length: refused (429 `rate_limited`, Retry-After) when its merchant is already
 * streaming as many exports in this mode as it may on this instance (`StatementSlots`: the API's
 * CSV statements and the dashboard's exports count together); otherwise each batch of rows is
 * read, and written out, in its turn with the process's other long work.
 */
export function openLongExport<Row>(
  context: AppContext,
  owner: LongWorkOwner,
  batches: () => AsyncIterator<readonly Row[]>,
): LongExport<Row> {
  const close = context.statementSlots.claim(owner)
  if (!close)
    throw new ApiError(
      'rate_limited',
      `Too many statements and exports at once: at most ${statementsPerMerchant} stream at a time per merchant and mode. Retry after ${exportRetryAfterSeconds} s, once one has ended.`,
      undefined,
      { 'retry-after': String(exportRetryAfterSeconds) },
    )
  return {
    close,
    async *chunks(format) {
      const rows = batches()
      for (;;) {
        const text = await context.longWork.run(owner, async () => {
          const batch = await rows.next()
          return batch.done ? undefined : format(batch.value)
        })
        if (text === undefined) return
        yield text
      }
    },
  }
}
